// The MySQL contenders of the sync figure, on a MariaDB server the bench starts (Debian's
// mariadb-server, as the tests start it, with a 256 MiB buffer pool, MariaDB's default being 128):
// `dq sync --to mysql://...` as a user runs it, and MariaDB's own loader, the `mariadb` client's
// LOAD DATA LOCAL INFILE of the same rows, written beforehand as a file in LOAD DATA's text
// format, into a table of the same columns without a key (as psql's \copy is timed: the
// loader's floor).

import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { JsonEscapeFilter } from '../../src/sync/jsonEscapes';
import { RecordReader, RecordRows } from '../../src/sync/mysqlRecords';
import { loadColumns } from '../../src/sync/mysqlSnapshot';
import { createTable, quoteIdent, tableName } from '../../src/sync/mysqlSql';
import { startMariadb, type MariadbServer } from '../../test/support/mariadbServer';
import { loopbackEnv, succeeded, timed } from './processes';
import { runDqSync, SYNC_TABLE, type SyncRun, type SyncSource } from './syncRuns';

const LOADER_TABLE = 'dq_bench_load';

export interface MysqlBench {
  server: MariadbServer;
  /** the rows as LOAD DATA reads them */
  rowsFile: string;
  close(): Promise<void>;
}

/** Starts MariaDB and writes the source's rows in LOAD DATA's text format (as the sync's stream makes them) into `dir`. */
export async function prepareMysqlBench(source: SyncSource, dir: string): Promise<MysqlBench> {
  const rowsFile = join(dir, 'web_logs.mysql.tsv');
  const load = loadColumns(source.table);
  const table = SYNC_TABLE.join('.');
  async function* rowsOfEveryFile(): AsyncGenerator<Buffer> {
    for (const file of source.files) {
      const rows = new RecordRows({ reader: new RecordReader(load, { table, file }) });
      yield* createReadStream(file).pipe(createGunzip()).pipe(new JsonEscapeFilter({ table, file })).pipe(rows);
    }
  }
  await pipeline(rowsOfEveryFile, createWriteStream(rowsFile));
  const server = await startMariadb({ bufferPoolMiB: 256 });
  return {
    server,
    rowsFile,
    close: async () => {
      await server.stop();
      await rm(rowsFile, { force: true });
    },
  };
}

/** `dq sync` into the server as a first sync (what an earlier run put there removed first). */
export async function mysqlSync(cli: string, source: SyncSource, bench: MysqlBench, workDir: string): Promise<SyncRun> {
  const { server } = bench;
  await server.admin(`DROP TABLE IF EXISTS ${quoteIdent(tableName(...SYNC_TABLE))}, dq_sync_state`);
  return runDqSync(cli, source, server.urlWithoutPassword, workDir, { MYSQL_PWD: server.password });
}

/**
 * The `mariadb` client's LOAD DATA LOCAL INFILE of the rows into a new table of the same
 * columns without a key, timed from the client's start to its exit; the table is dropped afterwards.
 */
export async function mariadbLoadData(source: SyncSource, bench: MysqlBench): Promise<number> {
  const { server } = bench;
  await server.admin(`DROP TABLE IF EXISTS ${LOADER_TABLE}`);
  await server.admin(createTable(source.table, LOADER_TABLE, 'utf8mb4_nopad_bin', false));
  try {
    const columns = source.table.columns.map((c) => quoteIdent(c.name)).join(', ');
    const sql = `SET time_zone = '+00:00'; LOAD DATA LOCAL INFILE '${bench.rowsFile.replace(/'/g, "''")}' INTO TABLE ${LOADER_TABLE} CHARACTER SET utf8mb4 (${columns})`;
    const args = ['--no-defaults', '--local-infile=1', '--protocol=TCP', '-h', '127.0.0.1', '-P', String(server.port), '-u', 'dq_sync', server.database, '-e', sql];
    const run = succeeded('mariadb LOAD DATA', await timed('mariadb', args, { env: loopbackEnv({ MYSQL_PWD: server.password }) }));
    const [{ n }] = await server.admin<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${LOADER_TABLE}`);
    if (Number(n) !== source.rows) throw new Error(`mariadb LOAD DATA loaded ${String(n)} rows, the table has ${source.rows}`);
    return run.seconds;
  } finally {
    await server.admin(`DROP TABLE IF EXISTS ${LOADER_TABLE}`);
  }
}

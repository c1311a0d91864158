// Sync: a first snapshot of canvas_logs.web_logs by `dq sync` into a DuckDB file and into a
// real PostgreSQL server, against each database's own bulk loader reading the same rows from
// files already on disk: DuckDB's read_json (CREATE TABLE AS, in a fresh process) and psql's
// \copy of the rows as CSV. The job is made beforehand and reused (as the download figure
// does), so each sync is timed end to end (the job's answer, download on loopback, gzip check,
// apply) and from its `applying` line to its exit (the apply alone). Values are seconds for the
// same rows, so each ratio is dq's rows per second over the loader's. MySQL (a MariaDB server
// the bench starts) beside the `mariadb` client's LOAD DATA LOCAL INFILE (syncMysqlRuns.ts).

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { findPostgresBin, POSTGRES_MISSING, startPostgres } from '../../test/support/postgresServer';
import { compared, median, type BenchContext, type Figure } from '../figure';
import { findMariadb, MARIADB_MISSING } from '../../test/support/mariadbServer';
import { mariadbLoadData, mysqlSync, prepareMysqlBench } from '../support/syncMysqlRuns';
import { duckdbReadJson, forgetSyncSql, prepareSyncSource, psqlCopy, rowsPerSecond, runDqSync, writeCsv, type SyncRun, type SyncSource } from '../support/syncRuns';

const FULL = { rows: 500_000, repeats: 3 };
const QUICK = { rows: 50_000, repeats: 1 };

interface Contest {
  sync: SyncRun[];
  loader: number[];
}

export const syncFigure: Figure = {
  name: 'sync',
  title: 'Sync: snapshot rows/s into DuckDB, PostgreSQL and MySQL against their bulk loaders',
  async run(ctx) {
    if (!findPostgresBin()) throw new Error(POSTGRES_MISSING);
    if (!findMariadb()) throw new Error(MARIADB_MISSING);
    const plan = ctx.quick ? QUICK : FULL;
    const cli = join(ctx.root, 'dist', 'cli.js');
    const probe = join(__dirname, '..', 'support', 'syncDuckdbProbe.js');
    const dir = join(ctx.scratch, 'sync');
    ctx.log(`sync: generating a snapshot of canvas_logs.web_logs, ${plan.rows.toLocaleString('en-US')} rows`);
    const source = await prepareSyncSource({ rows: plan.rows, dir: join(dir, 'source') });
    let duckdb: Contest;
    let postgres: Contest;
    let mysql: Contest;
    try {
      duckdb = await contest(ctx, 'DuckDB', source, plan.repeats, {
        sync: async (i) => {
          const file = join(dir, `sync-${i}.duckdb`);
          try {
            return await runDqSync(cli, source, file, join(dir, 'work'));
          } finally {
            await rm(file, { force: true });
            await rm(`${file}.wal`, { force: true });
          }
        },
        loader: (i) => duckdbReadJson(probe, source, join(dir, `read_json-${i}.duckdb`)),
      });
      const csv = join(dir, 'web_logs.csv');
      await writeCsv(probe, source, csv);
      ctx.log('sync: starting PostgreSQL');
      const server = await startPostgres();
      try {
        const pg = { url: server.urlWithoutPassword, password: server.password };
        postgres = await contest(ctx, 'PostgreSQL', source, plan.repeats, {
          sync: async () => {
            await server.admin(forgetSyncSql());
            return runDqSync(cli, source, pg.url, join(dir, 'work'), { PGPASSWORD: pg.password });
          },
          loader: () => psqlCopy(source, csv, pg),
        });
      } finally {
        await server.stop();
        await rm(csv, { force: true });
      }
      ctx.log('sync: starting MariaDB');
      const mariadb = await prepareMysqlBench(source, dir);
      try {
        mysql = await contest(ctx, 'MySQL', source, plan.repeats, {
          sync: () => mysqlSync(cli, source, mariadb, join(dir, 'work')),
          loader: () => mariadbLoadData(source, mariadb),
        });
      } finally {
        await mariadb.close();
      }
    } finally {
      await source.close();
    }

    const rows = `${plan.rows.toLocaleString('en-US')} rows`;
    const readJson = { label: 'DuckDB CREATE TABLE AS read_json of the same gzip files, fresh process (no key, no dedupe)', value: median(duckdb.loader) };
    const copy = { label: 'psql \\copy of the same rows as plain CSV (no key, no merge)', value: median(postgres.loader) };
    const loadData = { label: 'mariadb LOAD DATA LOCAL INFILE of the same rows as a plain text file (no key, no merge)', value: median(mysql.loader) };
    return [
      compared(`DuckDB: dq sync of ${rows}, end to end (prepared job, loopback download, gzip check, apply)`, median(duckdb.sync.map(total)), 's', readJson),
      compared(`DuckDB: dq sync of ${rows}, the apply alone (read_json, repeated keys and deletes counted, meta row, close)`, median(duckdb.sync.map(apply)), 's', readJson),
      compared(`PostgreSQL: dq sync of ${rows}, end to end (prepared job, loopback download, apply)`, median(postgres.sync.map(total)), 's', copy),
      compared(`PostgreSQL: dq sync of ${rows}, the apply alone (gunzip, binary COPY of typed rows into the table, primary key, meta row)`, median(postgres.sync.map(apply)), 's', copy),
      compared(`MySQL (MariaDB): dq sync of ${rows}, end to end (prepared job, loopback download, gzip check, apply)`, median(mysql.sync.map(total)), 's', loadData),
      compared(`MySQL (MariaDB): dq sync of ${rows}, the apply alone (gunzip, records to LOAD DATA text, load into a new table, primary key, swap with meta row)`, median(mysql.sync.map(apply)), 's', loadData),
    ];
  },
};

/** The sync and the loader in turn, `repeats` times each, into fresh tables. */
async function contest(
  ctx: BenchContext,
  target: string,
  source: SyncSource,
  repeats: number,
  run: { sync: (i: number) => Promise<SyncRun>; loader: (i: number) => Promise<number> },
): Promise<Contest> {
  const result: Contest = { sync: [], loader: [] };
  for (let i = 0; i < repeats; i++) {
    const sync = await run.sync(i);
    const loader = await run.loader(i);
    result.sync.push(sync);
    result.loader.push(loader);
    ctx.log(
      `sync: ${target} run ${i + 1}/${repeats}: dq sync ${sync.seconds.toFixed(2)} s (${rowsPerSecond(source.rows, sync.seconds)}), ` +
        `its apply ${sync.applySeconds.toFixed(2)} s (${rowsPerSecond(source.rows, sync.applySeconds)}), ` +
        `bulk loader ${loader.toFixed(2)} s (${rowsPerSecond(source.rows, loader)})`,
    );
  }
  return result;
}

const total = (run: SyncRun): number => run.seconds;
const apply = (run: SyncRun): number => run.applySeconds;

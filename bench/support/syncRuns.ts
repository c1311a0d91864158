// The sync figure's contenders. A snapshot job of canvas_logs.web_logs is made once in a local
// emulator and reused by every run (identical requests within the dedupe window return the
// same job, so `dq sync` finds it complete), and its gzip objects are downloaded once more into
// a folder, for the bulk loaders to read. Then: `dq sync` as a user runs it, timed from spawn
// to exit and from its `applying` progress line to exit; DuckDB's own read_json in a fresh
// process; and psql's \copy of the same rows as CSV.

import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JobRecord } from '../../src/core/contract';
import type { RunningEmulator } from '../../src/emulator/emulator';
import { quoteIdent, quoteString } from '../../src/engine/sqlText';
import { recordStructs } from '../../src/sync/duckdbSql';
import { createTable, qualifiedName } from '../../src/sync/postgresSql';
import { targetTableOf } from '../../src/sync/syncColumns';
import type { TableSyncReport } from '../../src/sync/syncReport';
import type { TargetTable } from '../../src/sync/syncTarget';
import { prepareJob } from './preparedResult';
import { loopbackEnv, ownRateBudget, succeeded, timed, timedNode } from './processes';

export const SYNC_TABLE = ['canvas_logs', 'web_logs'] as const;

export interface SyncSource {
  emulator: RunningEmulator;
  job: JobRecord;
  rows: number;
  /** the job's objects as the service sends them (gzip JSONL), in part order */
  files: string[];
  /** the target table the sync makes of the table's schema */
  table: TargetTable;
  /** the DQ_ variables that point dq at the emulator */
  dqEnv: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** Makes the snapshot job of `rows` rows, waits for its objects and downloads them into `dir`. */
export async function prepareSyncSource(o: { rows: number; dir: string }): Promise<SyncSource> {
  // the request `dq sync` makes for a first snapshot, so it finds this job
  const prepared = await prepareJob({ table: SYNC_TABLE, emulator: { rows: o.rows, cacheDir: join(o.dir, 'emulator') }, removeOnClose: o.dir });
  const { emulator, client, job, objectIds, dqEnv, close } = prepared;
  try {
    const downloaded = await client.downloadJob(job, { dir: join(o.dir, 'files'), format: 'jsonl', decompress: false });
    const order = new Map(objectIds.map((id, i) => [id, i]));
    const files = downloaded.sort((a, b) => (order.get(a.objectId) ?? 0) - (order.get(b.objectId) ?? 0)).map((f) => f.path);
    const envelope = await client.getSchema(...SYNC_TABLE);
    return { emulator, job, rows: o.rows, files, table: targetTableOf(SYNC_TABLE[0], SYNC_TABLE[1], envelope), dqEnv, close };
  } catch (err) {
    await close();
    throw err;
  }
}

export interface SyncRun {
  /** spawn to exit */
  seconds: number;
  /** from the `applying` progress line (files downloaded and checked) to exit */
  applySeconds: number;
}

/**
 * `dq sync canvas_logs web_logs --to <to>` as a first sync: the target must not hold the table
 * yet. Fails unless the snapshot reused the prepared job and loaded every row.
 */
export async function runDqSync(cli: string, source: SyncSource, to: string, workDir: string, env: NodeJS.ProcessEnv = {}): Promise<SyncRun> {
  await mkdir(workDir, { recursive: true });
  const args = [cli, 'sync', ...SYNC_TABLE, '--to', to, '--work-dir', workDir, '--json', '--progress'];
  const run = await spawnWatched(process.execPath, args, await ownRateBudget({ ...source.dqEnv, ...env }, dirname(workDir)), /: applying$/m);
  const report = reportOf(run.stdout);
  if (run.code !== 0) {
    const lines = run.stderr.split('\n').filter(Boolean);
    const why = report?.error ? `${report.error.kind}: ${report.error.message}` : (lines.find((l) => l.startsWith('dq: ')) ?? lines[lines.length - 1] ?? 'no message');
    throw new Error(`dq sync exited with ${run.code}: ${why}`);
  }
  if (!report) throw new Error('dq sync --json printed no report');
  if (run.sawAt === undefined) throw new Error('dq sync never said it was applying (is --progress still a plain line per stage?)');
  if (report.outcome !== 'synced' || report.kind !== 'snapshot') throw new Error(`dq sync ended ${report.outcome} (${report.kind ?? 'no kind'}), not a synced snapshot`);
  if (report.point !== source.job.at) throw new Error(`dq sync reached ${report.point}, not the prepared job's ${source.job.at}: it made a job of its own`);
  if (report.rows !== source.rows) throw new Error(`dq sync left ${report.rows} rows, the table has ${source.rows}`);
  return { seconds: run.seconds, applySeconds: run.seconds - run.sawAt };
}

function reportOf(stdout: string): TableSyncReport | undefined {
  try {
    return (JSON.parse(stdout) as { tables: TableSyncReport[] }).tables[0];
  } catch {
    return undefined;
  }
}

/** The select that reads the files as the target table's columns, typed as the sync types them; no dedupe. */
export function typedRecordsSql(source: SyncSource): string {
  const files = `[${source.files.map(quoteString).join(', ')}]`;
  const columns = source.table.columns.map((c) => {
    const [part, ...members] = c.path;
    return `${quoteIdent(part)}${members.map((m) => `[${quoteString(m)}]`).join('')} AS ${quoteIdent(c.name)}`;
  });
  return (
    `SELECT ${columns.join(', ')} FROM read_json(${files}, format='newline_delimited', compression='auto_detect', ` +
    `columns=${recordStructs(source.table.columns)})`
  );
}

/**
 * DuckDB alone, in a fresh process: CREATE TABLE AS SELECT from read_json over the same gzip
 * files into a new database file, then a count, then close. Seconds of those statements and
 * the close (the process's start and DuckDB's loading are left out, as they are for the apply).
 */
export async function duckdbReadJson(probe: string, source: SyncSource, database: string): Promise<number> {
  await rm(database, { force: true });
  try {
    const ctas = `CREATE TABLE web_logs AS ${typedRecordsSql(source)}`;
    const run = succeeded('DuckDB read_json', await timedNode(probe, [database, ctas, 'SELECT count(*) FROM web_logs']));
    const { ms, value } = JSON.parse(run.stdout) as { ms: number; value: unknown };
    if (Number(value) !== source.rows) throw new Error(`DuckDB read_json loaded ${String(value)} rows, the table has ${source.rows}`);
    return ms / 1000;
  } finally {
    await rm(database, { force: true });
    await rm(`${database}.wal`, { force: true });
  }
}

/** The same rows and columns as CSV (no header), written by DuckDB, for COPY. */
export async function writeCsv(probe: string, source: SyncSource, file: string): Promise<void> {
  const copy = `COPY (${typedRecordsSql(source)}) TO ${quoteString(file)} (FORMAT csv, HEADER false)`;
  succeeded('DuckDB COPY TO csv', await timedNode(probe, [':memory:', copy]));
}

/**
 * psql's \copy of the CSV into a new table of the target table's columns and types in its own
 * schema, without a key; timed from psql's start to its exit. The table is dropped afterwards.
 */
export async function psqlCopy(source: SyncSource, csv: string, pg: { url: string; password: string }): Promise<number> {
  const table = { ...source.table, namespace: 'dq_bench_copy' };
  const name = qualifiedName(table.namespace, table.table);
  const env = loopbackEnv({ PGPASSWORD: pg.password });
  const psql = async (what: string, sql: string) =>
    succeeded(what, await timed('psql', ['--no-psqlrc', '--quiet', '-v', 'ON_ERROR_STOP=1', '-d', pg.url, '-c', sql], { env }));
  await psql('psql (create)', `DROP SCHEMA IF EXISTS ${quoteIdent(table.namespace)} CASCADE; CREATE SCHEMA ${quoteIdent(table.namespace)}; ${createTable(table, false)}`);
  try {
    const copied = await timed('psql', ['--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '-d', pg.url, '-c', `\\copy ${name} FROM ${quoteString(csv)} WITH (FORMAT csv)`], { env });
    const run = succeeded('psql \\copy', copied);
    const count = Number(/COPY (\d+)/.exec(run.stdout)?.[1]);
    if (count !== source.rows) throw new Error(`psql \\copy loaded ${count} rows, the table has ${source.rows}`);
    return run.seconds;
  } finally {
    await psql('psql (drop)', `DROP SCHEMA IF EXISTS ${quoteIdent(table.namespace)} CASCADE`);
  }
}

/** Removes what a sync put into PostgreSQL (its table and meta table), so the next one is a first sync again. */
export function forgetSyncSql(): string {
  return `DROP SCHEMA IF EXISTS ${quoteIdent(SYNC_TABLE[0])} CASCADE; DROP TABLE IF EXISTS public.dq_sync_state`;
}

interface Watched {
  code: number;
  seconds: number;
  stdout: string;
  stderr: string;
  /** seconds from spawn to the first stderr line matching the pattern */
  sawAt?: number;
}

/** Runs a program to its end, noting when a line of its stderr first matched `pattern`. */
function spawnWatched(command: string, args: string[], env: NodeJS.ProcessEnv, pattern: RegExp): Promise<Watched> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sawAt: number | undefined;
    let seconds = 0;
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      if (sawAt === undefined && pattern.test(stderr)) sawAt = (performance.now() - started) / 1000;
    });
    child.on('error', reject);
    child.on('exit', () => (seconds = (performance.now() - started) / 1000));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), seconds, stdout, stderr, sawAt }));
  });
}

/** For a figure's log line: `1,234,567 rows/s`. */
export function rowsPerSecond(rows: number, seconds: number): string {
  return `${Math.round(rows / seconds).toLocaleString('en-US')} rows/s`;
}

// What the sync tests run against and compare with: the local emulator (its history fixed at
// start, commits every 4 hours), a client for it, and the reference a synced table must equal:
// a fresh snapshot at the same point, downloaded from the emulator and flattened the way the
// emulator itself flattens records for CSV (independently of the sync code). Synced tables are
// read straight from the DuckDB file, each value in a form both sides can be compared in.
// Also what several sync tests share: a run on a target opened and closed around it, the
// snapshot-then-incrementals walk every target must pass, result files written as the service
// writes them, a logger that keeps its lines, and the emulator's settings for dq and the host.

import type { DuckDBInstance } from '@duckdb/node-api';
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import type { Clock } from '../../../src/core/clock';
import { systemClock } from '../../../src/core/clock';
import { isoUtc } from '../../../src/core/isoTime';
import type { Logger } from '../../../src/core/logger';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/emulator';
import { flatValues } from '../../../src/emulator/recordFormats';
import { COMMIT_INTERVAL_MS, type ChangeRecord } from '../../../src/emulator/sampleData/changeHistory';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { flatColumns, tableSchema, type FlatColumn } from '../../../src/emulator/sampleData/tableModel';
import { syncServiceConfig } from '../../../src/extension/sync/syncServiceConfig';
import type { JsonSchema } from '../../../src/core/contract';
import type { SyncRunRequest } from '../../../src/sync/syncProtocol';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import { runSync, type SyncClient, type SyncRunOptions } from '../../../src/sync/syncRunner';
import { sourceIdentity } from '../../../src/sync/syncSource';
import type { SyncState, SyncTarget } from '../../../src/sync/syncTarget';

const duckdb = require('@duckdb/node-api') as typeof import('@duckdb/node-api');

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The emulators' clock: real time moved back to one minute past the start of the current
 * commit, so every emulator a test starts shares the same history however long the run takes.
 */
export function sharedClock(): Clock {
  const offset = (Date.now() % COMMIT_INTERVAL_MS) - 60_000;
  return { now: () => Date.now() - offset, sleep: (ms, signal) => systemClock.sleep(ms, signal) };
}

/** A table as rows keyed by its key columns, with its column names in order. */
export interface TableRows {
  columns: string[];
  /** JSON of the key values -> the row's values, in column order */
  rows: Map<string, unknown[]>;
}

export class SyncFixture {
  private downloads = 0;

  private constructor(
    readonly dir: string,
    readonly emulator: RunningEmulator,
    readonly client: DataQueryClient,
    readonly clock: Clock,
    readonly options: EmulatorOptions,
  ) {}

  static async start(options: EmulatorOptions = {}, clock = sharedClock()): Promise<SyncFixture> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-sync-test-'));
    // the seven written-out canvas tables, which the walks compare row by row at every step
    // (dqSyncFullSize.test.ts syncs the service's whole list)
    const all: EmulatorOptions = { jobDelayMs: 0, limits: false, tokenTtlSec: 30 * 86_400, canvasTables: 'core', clock, ...options };
    const emulator = await startEmulator(all);
    return new SyncFixture(dir, emulator, clientFor(emulator), clock, all);
  }

  /**
   * Another emulator on the same clock and seed (the same history), e.g. with faults; given a
   * clock of its own (a fake one at this clock's time), it and its client run on that.
   */
  async sibling(options: EmulatorOptions): Promise<{ emulator: RunningEmulator; client: DataQueryClient; close(): Promise<void> }> {
    const emulator = await startEmulator({ ...this.options, ...options });
    const client = clientFor(emulator, emulator, options.clock);
    return {
      emulator,
      client,
      close: async () => {
        await client.close();
        await emulator.close();
      },
    };
  }

  /** The latest commit, and points `days` before it. */
  point(daysBack: number): string {
    const latest = Math.floor(this.clock.now() / COMMIT_INTERVAL_MS) * COMMIT_INTERVAL_MS;
    return isoUtc(latest - daysBack * DAY);
  }

  /**
   * The emulator's snapshot of a table at `at`, flattened as its CSV is, key prefixes dropped,
   * with the table's columns as the emulator has them now (after any evolveTable).
   */
  async reference(namespace: string, table: string, at: string): Promise<TableRows> {
    const def = this.emulator.table(namespace, table);
    if (!def) throw new Error(`no sample table ${namespace}.${table}`);
    const job = await this.client.runJob(namespace, table, { format: 'jsonl', until: at });
    const files = await this.client.downloadJob(job, { dir: path.join(this.dir, `reference-${++this.downloads}`), format: 'jsonl' });
    const flat = flatColumns(def, 'expanded').filter((c) => c.path[0] !== 'meta');
    const keys = flat.filter((c) => c.path[0] === 'key').length;
    const keyNames = new Set(flat.slice(0, keys).map((c) => c.path.slice(1).join('.')));
    const columns = flat.map((c) => {
      const bare = c.path.slice(1).join('.');
      return c.path[0] === 'value' && keyNames.has(bare) ? `value.${bare}` : bare;
    });
    const rows = new Map<string, unknown[]>();
    for (const file of files) {
      for (const line of gunzipSync(await fs.readFile(file.path)).toString('utf8').split('\n')) {
        if (!line) continue;
        const record = JSON.parse(line) as ChangeRecord;
        const values = flatValues(record, flat).map((v, i) => comparable(flat[i], v));
        rows.set(JSON.stringify(values.slice(0, keys)), values);
      }
      await fs.rm(file.path);
    }
    return { columns, rows };
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.emulator.close();
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}

/** The client ID each client of clientFor uses, for the source its syncs record. */
const clientIds = new WeakMap<object, string>();

/** A client of the emulator with its main credentials, or others it was started with; on real time unless given a clock. */
export function clientFor(emulator: RunningEmulator, credentials: { clientId: string; clientSecret: string } = emulator, clock?: Clock): DataQueryClient {
  const { clientId, clientSecret } = credentials;
  const client = new DataQueryClient({
    baseUrl: emulator.baseUrl,
    dataPrefix: emulator.dataPrefix,
    credentials: async () => ({ clientId, clientSecret }),
    rateLimits: { listTables: 1000, createJob: 1000, getJob: 1000, getSchema: 1000, createUrls: 1000 },
    clock,
  });
  clientIds.set(client, clientId);
  return client;
}

/** A value of the emulator's flat record in the form a synced table's value is read in. */
function comparable(column: FlatColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.kind) {
    case 'datetime':
      return Date.parse(String(value));
    case 'json':
      return JSON.parse(String(value));
    case 'int64':
      return String(value);
    default:
      return value;
  }
}

/** Runs `work` on the database file opened read-only (the sync must have closed it). */
export async function withDatabase<T>(file: string, work: (db: DuckDBInstance) => Promise<T>): Promise<T> {
  const db = await duckdb.DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  try {
    return await work(db);
  } finally {
    db.closeSync();
  }
}

/** A synced table's rows, each value read by the column's type in the database. */
export function syncedRows(file: string, namespace: string, table: string, keyCount: number): Promise<TableRows> {
  return withDatabase(file, async (db) => {
    const conn = await db.connect();
    try {
      const info = await conn.runAndReadAll(
        'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
        [namespace, table],
      );
      const described = info.getRowsJson().map(([name, type]) => ({ name: String(name), type: String(type) }));
      const select = described.map(({ name, type }) => {
        const id = `"${name.replace(/"/g, '""')}"`;
        if (type === 'TIMESTAMP WITH TIME ZONE') return `epoch_ms(${id})`;
        if (type === 'JSON' || type === 'BIGINT') return `CAST(${id} AS VARCHAR)`;
        return id;
      });
      // named with the database's own name too: `"canvas"."users"` is ambiguous in a file named canvas.duckdb
      const reader = await conn.runAndReadAll(`SELECT ${select.join(', ')} FROM ${await catalogOf(conn)}."${namespace}"."${table}"`);
      const rows = new Map<string, unknown[]>();
      for (const raw of reader.getRowsJson()) {
        const values = raw.map((v, i) => {
          if (v === null) return null;
          if (described[i].type === 'TIMESTAMP WITH TIME ZONE') return Number(v);
          if (described[i].type === 'JSON') return JSON.parse(String(v));
          return v;
        });
        rows.set(JSON.stringify(values.slice(0, keyCount)), values);
      }
      return { columns: described.map((c) => c.name), rows };
    } finally {
      conn.closeSync();
    }
  });
}

/** The quoted catalog name of the database a connection is on: `"sync"`. */
async function catalogOf(conn: import('@duckdb/node-api').DuckDBConnection): Promise<string> {
  const name = String((await conn.runAndReadAll('SELECT current_database()')).getRowsJson()[0][0]);
  return `"${name.replace(/"/g, '""')}"`;
}

/** The database column types of a synced table, by name. */
export function columnTypes(file: string, namespace: string, table: string): Promise<Record<string, string>> {
  return withDatabase(file, async (db) => {
    const conn = await db.connect();
    try {
      const info = await conn.runAndReadAll('SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2', [namespace, table]);
      return Object.fromEntries(info.getRowsJson().map(([name, type]) => [String(name), String(type)]));
    } finally {
      conn.closeSync();
    }
  });
}

/** Runs SQL on the database file opened read-write (to set up a test), then closes it. */
export async function alterDatabase(file: string, sql: string, values: (string | number)[] = []): Promise<void> {
  const db = await duckdb.DuckDBInstance.create(file);
  try {
    const conn = await db.connect();
    await conn.run(sql, values);
    conn.closeSync();
  } finally {
    db.closeSync();
  }
}

/** The number of key columns of a sample table. */
export function keyCountOf(namespace: string, table: string): number {
  return new SampleCatalog().table(namespace, table)!.key.length;
}

/** Opens the target, runs `work` on it and closes it, whatever happens. */
export async function withTarget<T, S extends SyncTarget>(target: S, work: (target: S) => Promise<T>): Promise<T> {
  await target.open();
  try {
    return await work(target);
  } finally {
    await target.close();
  }
}

/** What a test's sync run is given: the source is the client's service unless the test names one. */
export type SyncOptions = Omit<SyncRunOptions, 'target' | 'source'> & { source?: string };

/** The source a client's service and credentials are recorded as, as `dq sync` records it (a client of clientFor). */
export function sourceOf(client: DataQueryClient | SyncRunOptions['client']): string {
  const { baseUrl, dataPrefix } = client as DataQueryClient;
  const clientId = clientIds.get(client);
  if (clientId === undefined) throw new Error('sourceOf: not a client of clientFor, whose client ID is known');
  return sourceIdentity({ baseUrl, dataPrefix, clientId });
}

/** One sync run into the target, opened for it and closed after it. */
export function syncInto(target: SyncTarget, options: SyncOptions): Promise<TableSyncReport[]> {
  return withTarget(target, (t) => runSync({ ...options, source: options.source ?? sourceOf(options.client), target: t }));
}

/** A synced table equals the reference: same columns, same keys, same values. */
export function assertSameRows(actual: TableRows, expected: TableRows, name: string): void {
  assert.deepEqual(actual.columns, expected.columns, `${name} columns`);
  const missing = [...expected.rows.keys()].filter((k) => !actual.rows.has(k));
  const extra = [...actual.rows.keys()].filter((k) => !expected.rows.has(k));
  assert.deepEqual({ missing: missing.slice(0, 5), extra: extra.slice(0, 5) }, { missing: [], extra: [] }, `${name} keys`);
  for (const [key, row] of expected.rows) assert.deepEqual(actual.rows.get(key), row, `${name} row ${key}`);
}

/** A target as the walk below syncs into it and reads it back. */
export interface WalkedTarget {
  sync(options: SyncOptions): Promise<TableSyncReport[]>;
  rows(namespace: string, table: string): Promise<TableRows>;
  states(): Promise<SyncState[]>;
}

/**
 * A snapshot of every canvas table and canvas_logs.web_logs six days back, then incrementals
 * four, two and zero days back. After each step every table equals the emulator's own snapshot
 * at that point and the reports and meta rows say so; at the end, the submissions deleted
 * upstream are gone from the target. `afterStep` checks more of a step, given its references.
 */
export async function walkPoints(fixture: SyncFixture, target: WalkedTarget, afterStep?: (until: string, references: TableRows[]) => Promise<void>): Promise<void> {
  const catalog = new SampleCatalog({ rows: fixture.options.rows, canvasTables: fixture.options.canvasTables });
  const points = [6, 4, 2, 0].map((days) => fixture.point(days));
  const deleted: Record<string, number> = {};
  const first = await fixture.reference('canvas', 'submissions', points[0]);
  for (const [step, until] of points.entries()) {
    const started = Date.now();
    const reports = [
      ...(await target.sync({ client: fixture.client, namespace: 'canvas', tables: 'all', until })),
      ...(await target.sync({ client: fixture.client, namespace: 'canvas_logs', tables: ['web_logs'], until })),
    ];
    assert.deepEqual(reports.map((r) => r.table), [...catalog.tables('canvas')!, 'web_logs']);
    for (const r of reports) {
      assert.ok(r.outcome === 'synced' || r.outcome === 'unchanged', `${r.table}: ${JSON.stringify(r)}`);
      assert.equal(r.kind, step === 0 ? 'snapshot' : 'changes');
      assert.equal(r.point, until);
      deleted[r.table] = (deleted[r.table] ?? 0) + r.deleted;
    }
    const references: TableRows[] = [];
    const rowsByTable = new Map<string, number>();
    for (const r of reports) {
      const expected = await fixture.reference(r.namespace, r.table, until);
      assertSameRows(await target.rows(r.namespace, r.table), expected, `${r.namespace}.${r.table}`);
      assert.equal(r.rows, expected.rows.size, `${r.table} row count in the report`);
      rowsByTable.set(`${r.namespace}.${r.table}`, expected.rows.size);
      references.push(expected);
    }
    const meta = await target.states();
    assert.deepEqual(meta.map((s) => `${s.namespace}.${s.table}`).sort(), [...rowsByTable.keys()].sort());
    for (const s of meta) {
      const def = catalog.table(s.namespace, s.table)!;
      assert.equal(s.point, until, `${s.table} point`);
      assert.equal(s.schemaVersion, def.version);
      assert.deepEqual(s.schema, tableSchema(def));
      assert.equal(s.rows, rowsByTable.get(`${s.namespace}.${s.table}`));
      assert.ok(Date.parse(s.ranAt) >= started - 1000 && Date.parse(s.ranAt) <= Date.now(), `${s.table} ran at ${s.ranAt}`);
    }
    await afterStep?.(until, references);
  }
  // the incrementals really deleted rows: keys present at the first point are gone at the last
  const last = await fixture.reference('canvas', 'submissions', points[3]);
  const gone = [...first.rows.keys()].filter((k) => !last.rows.has(k));
  assert.ok(gone.length > 0 && deleted.submissions >= gone.length, `${gone.length} submissions deleted upstream, ${deleted.submissions} applied`);
  const synced = await target.rows('canvas', 'submissions');
  assert.deepEqual(gone.filter((k) => synced.rows.has(k)), []);
}

/**
 * The schema changes the service makes, as a sync meets them on `namespace.table` of a fixture
 * of its own (the emulator's table is changed): a snapshot six days back; a column added, synced
 * in place four days back; a required column made optional, synced in place two days back; a
 * column's type changed, which stops the table (as it was) until a --resnapshot, which brings
 * it to today. After each run the table equals the emulator's snapshot at that point.
 */
export async function walkSchemaChanges(fixture: SyncFixture, target: WalkedTarget, namespace: string, table: string): Promise<void> {
  const [p6, p4, p2, p0] = [6, 4, 2, 0].map((days) => fixture.point(days));
  const name = `${namespace}.${table}`;
  const run = async (until: string, resnapshot = false): Promise<TableSyncReport> =>
    (await target.sync({ client: fixture.client, namespace, tables: [table], until, resnapshot }))[0];
  const assertAt = async (until: string): Promise<void> =>
    assertSameRows(await target.rows(namespace, table), await fixture.reference(namespace, table, until), `${name} at ${until}`);
  const version = async (): Promise<number | undefined> => (await target.states()).find((s) => s.namespace === namespace && s.table === table)?.schemaVersion;

  const first = await run(p6);
  assert.deepEqual([first.outcome, first.kind], ['synced', 'snapshot']);
  await assertAt(p6);

  const added = fixture.emulator.evolveTable(namespace, table, 'addColumn', Date.parse(p6));
  const withColumn = await run(p4);
  assert.deepEqual([withColumn.outcome, withColumn.kind], ['synced', 'changes'], JSON.stringify(withColumn));
  await assertAt(p4);
  assert.ok((await target.rows(namespace, table)).columns.includes(`added_in_v${added}`));
  assert.equal(await version(), added);

  const relaxed = fixture.emulator.evolveTable(namespace, table, 'relaxRequired');
  const optional = await run(p2);
  assert.deepEqual([optional.outcome, optional.kind], ['synced', 'changes'], JSON.stringify(optional));
  await assertAt(p2);
  assert.equal(await version(), relaxed);

  const before = await target.rows(namespace, table);
  const retyped = fixture.emulator.evolveTable(namespace, table, 'retype');
  const stopped = await run(p0);
  assert.equal(stopped.outcome, 'failed');
  assert.equal(stopped.needsResnapshot, true);
  assert.match(stopped.error?.message ?? '', /column "\w+" changed type from (integer|bigint) to text/);
  assert.match(stopped.error?.hint ?? '', /--resnapshot/);
  assert.equal(stopped.point, p2);
  assert.deepEqual(await target.rows(namespace, table), before, `${name} is as the last run left it`);
  assert.equal(await version(), relaxed);

  const fresh = await run(p0, true);
  assert.deepEqual([fresh.outcome, fresh.kind], ['synced', 'snapshot']);
  await assertAt(p0);
  assert.equal(await version(), retyped);
}

let gzFiles = 0;

/** A result object as the service writes it: the lines as gzip JSONL, in a new file in `dir`. */
export async function writeGzJsonl(dir: string, lines: readonly string[]): Promise<string> {
  const file = path.join(dir, `part-${++gzFiles}.jsonl.gz`);
  await fs.writeFile(file, gzipSync(lines.map((l) => `${l}\n`).join('')));
  return file;
}

/** A logger that keeps every line, to look for what must never be logged. */
export class LogLines implements Logger {
  readonly lines: string[] = [];
  trace = (m: string): void => void this.lines.push(m);
  debug = (m: string): void => void this.lines.push(m);
  info = (m: string): void => void this.lines.push(m);
  warn = (m: string): void => void this.lines.push(m);
  error = (m: string): void => void this.lines.push(m);
}

/** The DQ_ variables that point dq at the emulator. */
export function dqEnvOf(emulator: RunningEmulator): NodeJS.ProcessEnv {
  return { DQ_BASE_URL: emulator.baseUrl, DQ_DATA_PREFIX: emulator.dataPrefix, DQ_CLIENT_ID: emulator.clientId, DQ_CLIENT_SECRET: emulator.clientSecret };
}

/** The service part of a sync host request for the emulator, as the editor builds it for its sample data. */
export function hostServiceOf(emulator: RunningEmulator): Promise<SyncRunRequest['service']> {
  return syncServiceConfig(
    { kind: 'sample', name: 'Sample data' },
    { sample: async () => emulator, credentials: async () => assert.fail('a sample connection needs no stored credentials'), proxySettings: () => ({}), rateLimits: () => ({}), userAgent: 'dq-test' },
  );
}

/** What a service that names things otherwise answers, as `renamingClient` serves it. */
export interface RenamedService {
  /** the tables it lists (each served as the emulator's table named here) */
  tables: Record<string, string>;
  /** members of the key and value (schema and records) served under another name: the emulator's name -> the one served */
  columns?: Record<string, string>;
  /** more members of the value schema (in no record) */
  moreValue?: Record<string, JsonSchema>;
}

/** Renames the members of an object, keeping their order. */
function renamed<T>(members: Record<string, T>, names: Record<string, string>): Record<string, T> {
  return Object.fromEntries(Object.entries(members).map(([name, v]) => [names[name] ?? name, v]));
}

/**
 * The emulator as a service that names its tables and columns otherwise (names the service
 * controls: the sync must take them as untrusted); `jobs` counts the jobs it made.
 */
export function renamingClient(client: DataQueryClient, service: RenamedService): SyncClient & { jobs: number } {
  const real = (table: string): string => service.tables[table] ?? assert.fail(`no table ${table} in the renamed service`);
  const names = service.columns ?? {};
  const wrapped = {
    jobs: 0,
    listTables: async () => Object.keys(service.tables),
    getSchema: async (namespace: string, table: string, opts?: Parameters<SyncClient['getSchema']>[2]) => {
      const envelope = structuredClone(await client.getSchema(namespace, real(table), opts));
      const parts = (envelope.schema.properties ?? {}) as Record<string, JsonSchema & { properties?: Record<string, JsonSchema>; required?: string[] }>;
      for (const part of [parts.key, parts.value]) {
        if (!part?.properties) continue;
        part.properties = renamed(part.properties, names);
        if (part.required) part.required = part.required.map((n) => names[n] ?? n);
      }
      if (service.moreValue && parts.value) parts.value.properties = { ...parts.value.properties, ...service.moreValue };
      return envelope;
    },
    runJob: async (...args: Parameters<SyncClient['runJob']>) => {
      wrapped.jobs++;
      const [namespace, table, ...rest] = args;
      return client.runJob(namespace, real(table), ...rest);
    },
    downloadJob: async (...args: Parameters<SyncClient['downloadJob']>) => {
      const files = await client.downloadJob(...args);
      if (Object.keys(names).length === 0) return files;
      for (const file of files) {
        const lines = gunzipSync(await fs.readFile(file.path)).toString('utf8').split('\n').filter((l) => l);
        const records = lines.map((l) => {
          const record = JSON.parse(l) as Record<string, unknown>;
          for (const part of ['key', 'value']) if (record[part]) record[part] = renamed(record[part] as Record<string, unknown>, names);
          return JSON.stringify(record);
        });
        await fs.writeFile(file.path, gzipSync(records.map((r) => `${r}\n`).join('')));
      }
      return files;
    },
  };
  return wrapped;
}

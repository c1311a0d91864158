// Reading a lake table back as a reader that knows nothing of dq does: the manifest's
// `s3://` URLs, each file fetched from the store, read by DuckDB's read_parquet (files of
// several schema versions by name, a missing column as NULL) and, independently, by hyparquet
// (zstd pages inflated by the zstd program). Values come out in the forms the sync fixture
// compares (timestamps as epoch ms, bigints as text, JSON parsed). Also the bytes a run wrote
// against the table's size, and the objects no state, manifest or retired list accounts for.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { nullLogger } from '../../../src/core/logger';
import { targetColumnsOf } from '../../../src/sync/syncColumns';
import type { LakeTuning } from '../../../src/sync/lakeLayout';
import type { LakeTargetOptions } from '../../../src/sync/lakeOptions';
import { LakeTarget } from '../../../src/sync/lakeTarget';
import { accountedKeys, parquetName, TableLayout } from '../../../src/sync/lakeLayout';
import type { LakeState } from '../../../src/sync/lakeState';
import type { TableRows } from './syncFixture';
import type { ObjectStore } from '../../../src/sync/objectStore';
import { openS3Store } from '../../../src/sync/s3Store';
import type { S3TestServer } from '../../support/s3Server';

const duckdb = require('@duckdb/node-api') as typeof import('@duckdb/node-api');

export const PREFIX = 'lake';

/** A store whose objects the test reads as local files (a folder store, or the loopback S3 server's own folder). */
export type InspectedStore = ObjectStore & { fileOf(key: string): string };

/**
 * The loopback S3 server as the target's store, through the AWS SDK; each object is read back
 * from the file the server keeps its bytes in. The targets of a test share it: their close
 * leaves it open, `shutdown` closes it.
 */
export async function s3LakeStore(server: S3TestServer): Promise<InspectedStore & { shutdown(): Promise<void> }> {
  const store = await openS3Store({ bucket: server.bucket, endpoint: server.url, env: server.env(), logger: nullLogger, probePrefix: PREFIX });
  return {
    root: store.root,
    enforcesConditions: store.enforcesConditions,
    getBytes: (key, signal) => store.getBytes(key, signal),
    getStream: (key, signal) => store.getStream(key, signal),
    putBytes: (key, body, options) => store.putBytes(key, body, options),
    uploadFile: (key, file, options) => store.uploadFile(key, file, options),
    list: (prefix, signal) => store.list(prefix, signal),
    delete: (keys, signal) => store.delete(keys, signal),
    close: async () => undefined,
    fileOf: (key) => server.objectFile(key) ?? path.join(server.folder, 'no such object', key),
    shutdown: () => store.close(),
  };
}

/** A lake target on the store under PREFIX, working in `workDir`. */
export function lakeTarget(store: InspectedStore, workDir: string, options: Partial<LakeTargetOptions> = {}, tuning: Partial<LakeTuning> = {}): LakeTarget {
  return new LakeTarget(
    {
      url: `${store.root}/${PREFIX}`,
      bucket: store.root.slice('s3://'.length),
      prefix: PREFIX,
      label: `${store.root}/${PREFIX}`,
      openStore: async () => store,
      logger: nullLogger,
      workDir,
      ...options,
    },
    tuning,
  );
}

export function layoutOf(namespace: string, table: string): TableLayout {
  return new TableLayout(PREFIX, namespace, table);
}

export async function stateOf(store: ObjectStore, namespace: string, table: string): Promise<LakeState | undefined> {
  const got = await store.getBytes(layoutOf(namespace, table).state);
  return got && (JSON.parse(got.body.toString('utf8')) as LakeState);
}

/** The files the manifest lists, as local paths; each must exist. */
export async function manifestFiles(store: InspectedStore, namespace: string, table: string): Promise<string[]> {
  const got = await store.getBytes(layoutOf(namespace, table).manifest);
  assert.ok(got, `${namespace}.${table} has a manifest`);
  const urls = got.body.toString('utf8').split('\n').filter((l) => l);
  return Promise.all(
    urls.map(async (url) => {
      assert.ok(url.startsWith(`${store.root}/`), url);
      const file = store.fileOf(url.slice(store.root.length + 1));
      await fs.access(file).catch(() => assert.fail(`the manifest lists ${url}, which is not there`));
      return file;
    }),
  );
}

/** The table's columns as the service names them, with their Parquet names and types. */
async function columnsOf(store: InspectedStore, namespace: string, table: string): Promise<{ name: string; parquet: string; type: string; key: boolean }[]> {
  const state = await stateOf(store, namespace, table);
  assert.ok(state, `${namespace}.${table} has a state`);
  return targetColumnsOf({ version: state.schemaVersion, schema: state.schema }).map((c) => ({ name: c.name, parquet: parquetName(c.name), type: c.type, key: c.key }));
}

/** The table as DuckDB reads the manifest's files. */
export async function lakeRows(store: InspectedStore, namespace: string, table: string): Promise<TableRows> {
  const columns = await columnsOf(store, namespace, table);
  const files = await manifestFiles(store, namespace, table);
  const keyCount = columns.filter((c) => c.key).length;
  const rows = new Map<string, unknown[]>();
  if (files.length > 0) {
    const db = await duckdb.DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    try {
      await conn.run("SET TimeZone = 'UTC'");
      const select = columns.map((c) => {
        const id = `"${c.parquet}"`;
        if (c.type === 'timestamptz') return `epoch_ms(${id})`;
        if (c.type === 'bigint' || c.type === 'date') return `CAST(${id} AS VARCHAR)`;
        return id;
      });
      const list = files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ');
      const reader = await conn.runAndReadAll(`SELECT ${select.join(', ')} FROM read_parquet([${list}], union_by_name = true)`);
      for (const raw of reader.getRowsJson()) {
        const values = raw.map((v, i) => (v === null ? null : columns[i].type === 'timestamptz' ? Number(v) : columns[i].type === 'json' ? JSON.parse(String(v)) : v));
        const key = JSON.stringify(values.slice(0, keyCount));
        assert.ok(!rows.has(key), `${namespace}.${table}: key ${key} is in two files`);
        rows.set(key, values);
      }
    } finally {
      conn.closeSync();
      db.closeSync();
    }
  }
  return { columns: columns.map((c) => c.name), rows };
}

/** hyparquet takes custom decompressors: zstd through the zstd program. */
function inflateZstd(input: Uint8Array): Uint8Array {
  return new Uint8Array(execFileSync('zstd', ['-d', '-c', '-q'], { input }));
}

/** The table as hyparquet reads the manifest's files, in the same forms as `lakeRows`. */
export async function lakeRowsByHyparquet(store: InspectedStore, namespace: string, table: string): Promise<TableRows> {
  const { parquetReadObjects } = await import('hyparquet');
  const columns = await columnsOf(store, namespace, table);
  const keyCount = columns.filter((c) => c.key).length;
  const rows = new Map<string, unknown[]>();
  for (const file of await manifestFiles(store, namespace, table)) {
    const bytes = await fs.readFile(file);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const records = (await parquetReadObjects({ file: buffer, compressors: { ZSTD: inflateZstd } })) as Record<string, unknown>[];
    for (const record of records) {
      const values = columns.map((c) => comparable(c.type, record[c.parquet]));
      rows.set(JSON.stringify(values.slice(0, keyCount)), values);
    }
  }
  return { columns: columns.map((c) => c.name), rows };
}

function comparable(type: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'timestamptz':
      return (v as Date).getTime();
    case 'date':
      return (v as Date).toISOString().slice(0, 10);
    case 'bigint':
      return String(v);
    case 'integer':
    case 'double':
      return Number(v);
    case 'json':
      return JSON.parse(String(v));
    default:
      return v;
  }
}

/** Bytes of the data files a run added, against the table's size after it. */
export function bytesWritten(before: LakeState, after: LakeState): { written: number; table: number; files: number; rewritten: number } {
  const old = new Set(before.files.map((f) => f.key));
  const added = after.files.filter((f) => !old.has(f.key));
  const now = new Set(after.files.map((f) => f.key));
  return {
    written: added.reduce((n, f) => n + f.bytes, 0),
    table: after.files.reduce((n, f) => n + f.bytes, 0),
    files: after.files.length,
    rewritten: before.files.filter((f) => !now.has(f.key)).length,
  };
}

/** Objects under the table's folder that neither its state (files, retired files, their companions), manifest nor lock account for. */
export async function unaccounted(store: InspectedStore, namespace: string, table: string): Promise<string[]> {
  const layout = layoutOf(namespace, table);
  const accounted = accountedKeys(layout, await stateOf(store, namespace, table));
  return (await store.list(layout.folder)).map((o) => o.key).filter((k) => !accounted.has(k));
}

/** A work folder for the target under the fixture's folder. */
export async function workFolder(dir: string, name: string): Promise<string> {
  const folder = path.join(dir, name);
  await fs.mkdir(folder, { recursive: true });
  return folder;
}

/** What one run wrote into a lake table: the bytes of its new files against the table's size after it. */
export interface RunBytes {
  until: string;
  kind: string;
  upserted: number;
  deleted: number;
  written: number;
  table: number;
  files: number;
  rewritten: number;
}

/**
 * Syncs one table into the store at each point in turn (a snapshot at the first), and says
 * what each run wrote against the table's size: the figure the layout was chosen by.
 */
export async function bytesPerRun(
  sync: (until: string) => Promise<{ kind?: string; upserted: number; deleted: number }>,
  store: ObjectStore,
  namespace: string,
  table: string,
  points: readonly string[],
): Promise<RunBytes[]> {
  const runs: RunBytes[] = [];
  let before: LakeState = { files: [] } as unknown as LakeState;
  for (const until of points) {
    const report = await sync(until);
    const after = await stateOf(store, namespace, table);
    assert.ok(after, `${namespace}.${table} has a state after the run to ${until}`);
    runs.push({ until, kind: report.kind ?? '', upserted: report.upserted, deleted: report.deleted, ...bytesWritten(before, after) });
    before = after;
  }
  return runs;
}

/** Each file of the table's state holds its rows in key order, from the state's minKey to its maxKey. */
export async function assertSortedFiles(store: InspectedStore, namespace: string, table: string): Promise<void> {
  const state = await stateOf(store, namespace, table);
  assert.ok(state);
  const keys = state.columns.filter((c) => c.key).map((c) => `"${c.name}"`);
  const row = `(${keys.join(', ')})`;
  const db = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    await conn.run("SET TimeZone = 'UTC'");
    for (const f of state.files) {
      const file = `'${store.fileOf(f.key).replace(/'/g, "''")}'`;
      const reader = await conn.runAndReadAll(
        `SELECT count(*) FILTER (WHERE dq_next < dq_key), first(json_array(${keys.join(', ')})::VARCHAR ORDER BY file_row_number), last(json_array(${keys.join(', ')})::VARCHAR ORDER BY file_row_number) ` +
          `FROM (SELECT *, ${row} AS dq_key, lead(${row}) OVER (ORDER BY file_row_number) AS dq_next FROM read_parquet(${file}, file_row_number = true))`,
      );
      const [[unordered, first, last]] = reader.getRowsJson();
      assert.deepEqual([Number(unordered), first, last], [0, f.minKey, f.maxKey], `${f.key} is sorted by key from minKey to maxKey`);
    }
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

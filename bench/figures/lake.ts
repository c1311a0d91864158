// Lake: canvas_logs.web_logs as Parquet files in an object store. The snapshot's apply (the
// job's gzip JSONL read by DuckDB, newest record per key, sorted by key, written as zstd Parquet
// files with their key companions, uploaded, then state and manifest) against DuckDB's own
// COPY … TO … (FORMAT parquet, COMPRESSION zstd) of the same rows to local disk in a fresh
// process (no dedupe, no sort, no upload). Then the bytes an incremental of one day writes
// against the table's size (the layout's figure: appended rows go into new files). The store is
// a real S3-compatible server on loopback (s3rver, as the tests start it), through the AWS SDK
// as `dq sync --to s3://` uses it.

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DataQueryClient } from '../../src/client/dataQueryClient';
import { isoUtc } from '../../src/core/isoTime';
import { nullLogger } from '../../src/core/logger';
import { COMMIT_INTERVAL_MS } from '../../src/emulator/sampleData/changeHistory';
import { quoteString } from '../../src/engine/sqlText';
import { LakeTarget } from '../../src/sync/lakeTarget';
import { runSync } from '../../src/sync/syncRunner';
import { sourceIdentity } from '../../src/sync/syncSource';
import { bytesPerRun, PREFIX, type RunBytes } from '../../test/integration/sync/lakeRows';
import type { ObjectStore } from '../../src/sync/objectStore';
import { openS3Store } from '../../src/sync/s3Store';
import { S3TestServer } from '../../test/support/s3Server';
import { compared, median, type BenchContext, type Figure } from '../figure';
import { succeeded, timedNode } from '../support/processes';
import { prepareSyncSource, SYNC_TABLE, typedRecordsSql, type SyncSource } from '../support/syncRuns';

const FULL = { rows: 500_000, repeats: 3 };
const QUICK = { rows: 50_000, repeats: 1 };
const KiB = 1024;

export const lakeFigure: Figure = {
  name: 'lake',
  title: 'Lake: web_logs as Parquet in an object store against DuckDB COPY TO parquet; bytes an incremental writes',
  async run(ctx) {
    const plan = ctx.quick ? QUICK : FULL;
    const dir = join(ctx.scratch, 'lake');
    const probe = join(__dirname, '..', 'support', 'syncDuckdbProbe.js');
    ctx.log(`lake: generating a snapshot of canvas_logs.web_logs, ${plan.rows.toLocaleString('en-US')} rows`);
    const source = await prepareSyncSource({ rows: plan.rows, dir: join(dir, 'source') });
    const server = await S3TestServer.start('dq-bench');
    const stores: ObjectStore[] = [];
    const s3 = async (): Promise<ObjectStore> => {
      const store = await openS3Store({ bucket: 'dq-bench', endpoint: server.url, env: server.env(), logger: nullLogger, probePrefix: 'probe' });
      stores.push(store);
      return store;
    };
    try {
      const lake: number[] = [];
      const copy: number[] = [];
      for (let i = 0; i < plan.repeats; i++) {
        lake.push(await lakeSnapshot(source, await s3(), `run-${i}`, join(dir, 'work')));
        copy.push(await duckdbCopyParquet(probe, source, join(dir, `copy-${i}.parquet`)));
        ctx.log(`lake: run ${i + 1}/${plan.repeats}: lake snapshot apply ${lake[i].toFixed(2)} s, DuckDB COPY TO parquet ${copy[i].toFixed(2)} s`);
      }
      const incremental = await incrementalBytes(ctx, source, await s3(), join(dir, 'incremental'));
      const rows = `${plan.rows.toLocaleString('en-US')} rows`;
      return [
        compared(`lake: snapshot apply of ${rows} (read, newest per key, sort, zstd Parquet files and key companions, upload, state, manifest)`, median(lake), 's', {
          label: 'DuckDB COPY of the same rows from the gzip files TO one zstd Parquet file on local disk, fresh process (no dedupe, no sort, no upload)',
          value: median(copy),
        }),
        compared(`lake: bytes one day of changes writes (${incremental.upserted} upserts, ${incremental.deleted} deletes, ${incremental.rewritten} files rewritten)`, incremental.written / KiB, 'KiB', {
          label: `the table's size after it (${incremental.files} files)`,
          value: incremental.table / KiB,
        }),
      ];
    } finally {
      for (const store of stores) await store.close();
      await server.stop();
      await source.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

/** Seconds of the lake target's apply of the snapshot job's files under a fresh prefix of the store. */
async function lakeSnapshot(source: SyncSource, store: ObjectStore, prefix: string, workDir: string): Promise<number> {
  const target = lakeTargetOn(store, workDir, prefix);
  await target.open();
  try {
    const started = performance.now();
    const result = await target.apply({
      kind: 'snapshot',
      table: source.table,
      files: source.files,
      addedColumns: [],
      state: { namespace: SYNC_TABLE[0], table: SYNC_TABLE[1], point: source.job.at ?? isoUtc(Date.now()), schemaVersion: source.table.schemaVersion, schema: source.table.schema, ranAt: isoUtc(Date.now()) },
    });
    const seconds = (performance.now() - started) / 1000;
    if (result.rows !== source.rows) throw new Error(`the lake snapshot holds ${result.rows} rows, the table has ${source.rows}`);
    return seconds;
  } finally {
    await target.close();
  }
}

/** DuckDB alone, in a fresh process: the same rows from the gzip files to one zstd Parquet file. */
async function duckdbCopyParquet(probe: string, source: SyncSource, file: string): Promise<number> {
  try {
    const sql = `COPY (${typedRecordsSql(source)}) TO ${quoteString(file)} (FORMAT parquet, COMPRESSION zstd)`;
    const run = succeeded('DuckDB COPY TO parquet', await timedNode(probe, [':memory:', sql]));
    return (JSON.parse(run.stdout) as { ms: number }).ms / 1000;
  } finally {
    await rm(file, { force: true });
  }
}

/** A snapshot a day back, then the day's changes, through the runner: what the changes wrote. */
async function incrementalBytes(ctx: BenchContext, source: SyncSource, store: ObjectStore, dir: string): Promise<RunBytes> {
  const env = source.dqEnv;
  const [baseUrl, dataPrefix, clientId, clientSecret] = [env.DQ_BASE_URL, env.DQ_DATA_PREFIX, env.DQ_CLIENT_ID, env.DQ_CLIENT_SECRET].map(String);
  const client = new DataQueryClient({ baseUrl, dataPrefix, credentials: async () => ({ clientId, clientSecret }) });
  const latest = Math.floor(Date.now() / COMMIT_INTERVAL_MS) * COMMIT_INTERVAL_MS;
  const points = [isoUtc(latest - 6 * COMMIT_INTERVAL_MS), isoUtc(latest)];
  try {
    const runs = await bytesPerRun(
      async (until) => {
        const target = lakeTargetOn(store, join(dir, 'work'));
        await target.open();
        try {
          const [report] = await runSync({ client, target, source: sourceIdentity({ baseUrl, dataPrefix, clientId }), namespace: SYNC_TABLE[0], tables: [SYNC_TABLE[1]], until, workDir: join(dir, 'work') });
          if (report.outcome === 'failed') throw new Error(`the lake sync to ${until} failed: ${report.error?.message}`);
          ctx.log(`lake: ${report.kind} to ${until}: ${report.upserted} upserted, ${report.deleted} deleted, ${report.rows} rows`);
          return report;
        } finally {
          await target.close();
        }
      },
      store,
      SYNC_TABLE[0],
      SYNC_TABLE[1],
      points,
    );
    return runs[runs.length - 1];
  } finally {
    await client.close();
  }
}

function lakeTargetOn(store: ObjectStore, workDir: string, prefix = PREFIX): LakeTarget {
  const url = `${store.root}/${prefix}`;
  // the store is shared by the runs: closing a target leaves it open
  const shared: ObjectStore = Object.assign(Object.create(store) as ObjectStore, { close: async () => undefined });
  return new LakeTarget({ url, bucket: store.root.slice('s3://'.length), prefix, label: url, openStore: async () => shared, logger: nullLogger, workDir });
}

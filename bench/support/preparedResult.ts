// A large query result, generated once in a local emulator and reused by every run: identical
// requests within the dedupe window return the same job, so `dq query` (or `dq sync`) finds it
// complete.

import { rm } from 'node:fs/promises';
import { DataQueryClient } from '../../src/client/dataQueryClient';
import type { JobRecord } from '../../src/core/contract';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/emulator';
import { loopbackEnv } from './processes';

/** web_logs rows as stored gzip JSONL (level 0) take about this many bytes. */
const BYTES_PER_ROW = 413;
const MiB = 1024 * 1024;

export const RESULT_TABLE = ['canvas_logs', 'web_logs'] as const;
export const RESULT_FORMAT = 'jsonl';

export interface PreparedResult {
  emulator: RunningEmulator;
  /** an in-process client of the emulator, for fresh pre-signed URLs */
  client: DataQueryClient;
  job: JobRecord;
  objectIds: string[];
  /** total size of the objects */
  bytes: number;
  /** the DQ_ variables that point dq at the emulator */
  dqEnv: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/**
 * Generates about `mib` MiB of JSONL in `objects` gzip objects. By default the objects are
 * stored uncompressed inside gzip (level 0): generation is then bound by JSON, not deflate, and
 * dq does not look inside the bytes it downloads, so the transfer is the same as for level 6.
 * What reads the records (the preview's engine) asks for `gzipLevel` 6, the emulator's default,
 * since decompressing is then part of its work.
 */
export async function prepareResult(o: { mib: number; objects: number; cacheDir: string; gzipLevel?: number }): Promise<PreparedResult> {
  const rows = Math.ceil((o.mib * MiB) / BYTES_PER_ROW);
  return prepareJob({
    table: RESULT_TABLE,
    emulator: { rows, rowsPerObject: Math.ceil(rows / o.objects), gzipLevel: o.gzipLevel ?? 0, cacheDir: o.cacheDir },
    removeOnClose: o.cacheDir,
  });
}

/**
 * A complete jsonl snapshot job of `table` in an emulator of its own (no rate limits, no job
 * delay, the table's namespace only, a day's dedupe window), with its objects generated.
 * `close()` stops both and removes `removeOnClose`.
 */
export async function prepareJob(o: {
  table: readonly [string, string];
  emulator: Pick<EmulatorOptions, 'rows' | 'rowsPerObject' | 'gzipLevel' | 'cacheDir'>;
  removeOnClose: string;
}): Promise<PreparedResult> {
  const emulator = await startEmulator({ ...o.emulator, limits: false, jobDelayMs: 0, dedupeWindowSec: 86_400, namespaces: [o.table[0]] });
  const credentials = { clientId: emulator.clientId, clientSecret: emulator.clientSecret };
  const client = new DataQueryClient({ baseUrl: emulator.baseUrl, dataPrefix: emulator.dataPrefix, credentials: async () => credentials });
  const close = async (): Promise<void> => {
    await client.close();
    await emulator.close();
    await rm(o.removeOnClose, { recursive: true, force: true });
  };
  try {
    const job = await client.runJob(o.table[0], o.table[1], { format: RESULT_FORMAT });
    const objectIds = (job.objects ?? []).map((obj) => obj.id);
    const urls = await freshUrls(client, objectIds);
    // A HEAD answers once its object has been generated: this waits for all of them.
    const sizes = await Promise.all(urls.map(async (url) => Number((await fetch(url, { method: 'HEAD' })).headers.get('content-length'))));
    return {
      emulator,
      client,
      job,
      objectIds,
      bytes: sizes.reduce((a, b) => a + b, 0),
      dqEnv: loopbackEnv({
        DQ_BASE_URL: emulator.baseUrl,
        DQ_DATA_PREFIX: emulator.dataPrefix,
        DQ_CLIENT_ID: emulator.clientId,
        DQ_CLIENT_SECRET: emulator.clientSecret,
      }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export async function freshUrls(client: DataQueryClient, objectIds: string[]): Promise<string[]> {
  const answer = await client.createUrls(objectIds);
  return objectIds.map((id) => answer.urls[id].url);
}

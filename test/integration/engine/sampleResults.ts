// Result files for the engine tests, made the way users get them: a job run on the local
// emulator and downloaded by the shared client. Also reads JSONL results back independently
// of the engine, as the reference the engine's rows are compared with.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import type { Format, JsonSchema, Mode, SchemaEnvelope } from '../../../src/core/contract';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { EngineClient, type EngineOptions } from '../../../src/engine/engineClient';
import type { ResultColumn, ResultSource } from '../../../src/engine/engineProtocol';

export const HOST_SCRIPT = path.resolve(__dirname, '../../../src/engine/engineHost.js');

/** The schema of records keyed by an int64 `key.id`, with `value` holding these properties. */
export function keyedSchema(value: Record<string, JsonSchema>): SchemaEnvelope {
  return {
    version: 1,
    schema: {
      type: 'object',
      properties: { key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } }, value: { type: 'object', properties: value } },
    },
  };
}

/** One gzip JSONL result file in `folder` of `rows` records keyed 0, 1, …, their values made by `value`. */
export async function writeKeyedResult(folder: string, rows: number, value: (id: number) => Record<string, unknown>): Promise<string> {
  await fs.mkdir(folder, { recursive: true });
  const file = path.join(folder, 'part-1.jsonl.gz');
  const lines: string[] = [];
  for (let id = 0; id < rows; id++) lines.push(JSON.stringify({ meta: { action: 'U', ts: '2026-01-01T00:00:00Z' }, key: { id }, value: value(id) }));
  await fs.writeFile(file, gzipSync(`${lines.join('\n')}\n`, { level: 1 }));
  return file;
}

export type JsonRecord = { meta: Record<string, unknown>; key: Record<string, unknown>; value?: Record<string, unknown> };

export type DownloadedResult = Required<Pick<ResultSource, 'paths' | 'schema'>>;

export class SampleResults {
  private downloads = 0;
  private readonly downloaded = new Map<string, Promise<DownloadedResult>>();

  private constructor(
    readonly dir: string,
    private readonly emulator: RunningEmulator,
    private readonly client: DataQueryClient,
  ) {}

  static async start(): Promise<SampleResults> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-engine-'));
    const emulator = await startEmulator({ jobDelayMs: 0, limits: false });
    const client = new DataQueryClient({
      baseUrl: emulator.baseUrl,
      dataPrefix: emulator.dataPrefix,
      credentials: async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }),
      rateLimits: { createJob: 1000, getJob: 1000, getSchema: 1000, createUrls: 1000 },
    });
    return new SampleResults(dir, emulator, client);
  }

  /** Runs a job and downloads its files, once per request; `sinceDaysAgo` or `since` makes it incremental. */
  download(namespace: string, table: string, format: Format, o: { sinceDaysAgo?: number; since?: string; mode?: Mode } = {}): Promise<DownloadedResult> {
    const key = JSON.stringify([namespace, table, format, o.sinceDaysAgo, o.since, o.mode]);
    let download = this.downloaded.get(key);
    if (!download) this.downloaded.set(key, (download = this.runAndDownload(namespace, table, format, o)));
    return download;
  }

  private async runAndDownload(namespace: string, table: string, format: Format, o: { sinceDaysAgo?: number; since?: string; mode?: Mode }): Promise<DownloadedResult> {
    const since = o.sinceDaysAgo === undefined ? o.since : new Date(Date.now() - o.sinceDaysAgo * 86_400_000).toISOString();
    const job = await this.client.runJob(namespace, table, { format, since, mode: o.mode });
    const files = await this.client.downloadJob(job, { dir: path.join(this.dir, `job-${++this.downloads}`), format });
    const schema: SchemaEnvelope = await this.client.getSchema(namespace, table);
    return { paths: files.map((f) => f.path), schema };
  }

  engine(options: Partial<EngineOptions> = {}): EngineClient {
    return new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(this.dir, 'engine'), ...options });
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.emulator.close();
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}

export async function jsonlRecords(paths: string[]): Promise<JsonRecord[]> {
  const records: JsonRecord[] = [];
  for (const p of paths) {
    const text = gunzipSync(await fs.readFile(p)).toString('utf8');
    for (const line of text.split('\n')) if (line) records.push(JSON.parse(line) as JsonRecord);
  }
  return records;
}

/** The first line of a gzip CSV result: the service's own flat column names. */
export async function csvHeader(file: string): Promise<string[]> {
  return gunzipSync(await fs.readFile(file)).toString('utf8').split('\r\n')[0].split(',');
}

/** A record as a row of the given columns, in the engine's JSON-safe form. */
export function expectedRow(record: JsonRecord, columns: ResultColumn[]): unknown[] {
  return columns.map((c) => {
    let v: unknown = record;
    for (const step of c.name.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[step] : undefined;
    if (v === undefined || v === null) return null;
    return c.sqlType === 'BIGINT' ? String(v) : v;
  });
}

/** Engine rows with JSON columns parsed, to compare with records. */
export function comparable(rows: unknown[][], columns: ResultColumn[]): unknown[][] {
  return rows.map((row) => row.map((v, i) => (columns[i].sqlType === 'JSON' && typeof v === 'string' ? JSON.parse(v) : v)));
}

/** The export files an engine whose temp folder is `tempDir` is writing (in its work folders), with their sizes. */
export async function exportsBeingWritten(tempDir: string): Promise<{ path: string; size: number }[]> {
  const folders = (await fs.readdir(tempDir).catch(() => [] as string[])).filter((f) => f.startsWith('engine-'));
  const found = await Promise.all(
    folders.map(async (folder) => {
      const names = (await fs.readdir(path.join(tempDir, folder)).catch(() => [] as string[])).filter((n) => n.endsWith('.partial'));
      return Promise.all(names.map(async (n) => ({ path: path.join(tempDir, folder, n), size: (await fs.stat(path.join(tempDir, folder, n)).catch(() => ({ size: 0 }))).size })));
    }),
  );
  return found.flat();
}

/**
 * One gzip JSONL result file made of `records` in a fresh folder, and an engine to read it,
 * set up before the suite's tests and removed after them (call inside `describe`).
 */
export function craftedResult(prefix: string, records: () => string[]): { readonly file: string; readonly engine: EngineClient } {
  let dir = '';
  const made = { file: '', engine: undefined as unknown as EngineClient };
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
    made.file = path.join(dir, 'part-1.jsonl.gz');
    await fs.writeFile(made.file, gzipSync(records().join('\n') + '\n'));
    made.engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine') });
  });
  after(async () => {
    await made.engine?.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });
  return made;
}

/**
 * For a suite (call inside `describe`): the emulator's sample results and an engine over them,
 * started before its tests, handed to `take`, and stopped after them.
 */
export function sampleEngine(take: (results: SampleResults, engine: EngineClient) => void, options: Partial<EngineOptions> = {}): void {
  let results: SampleResults | undefined;
  let engine: EngineClient | undefined;
  before(async () => {
    results = await SampleResults.start();
    engine = results.engine(options);
    take(results, engine);
  });
  after(async () => {
    await engine?.dispose();
    await results?.close();
  });
}

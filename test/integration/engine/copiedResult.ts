// The result the copy tests read: several files, each of several DuckDB row groups, with many
// ties in the sorted column, and an engine whose log tells when a result's copy is complete.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SchemaEnvelope } from '../../../src/core/contract';
import type { Logger } from '../../../src/core/logger';
import type { EngineClient, EngineOptions } from '../../../src/engine/engineClient';
import type { ResultSource, View } from '../../../src/engine/engineProtocol';
import type { SampleResults } from './sampleResults';

/** rows of each file: the first and last span several row groups (122,880 rows each) */
export const FILE_ROWS = [260_000, 7, 150_000];
export const TOTAL = FILE_ROWS.reduce((a, b) => a + b, 0);
/** 0 to 999 with every tenth row null: about 420 rows share each value */
export const score = (id: number): number | null => (id % 10 === 3 ? null : (id * 7919) % 1000);
export const BY_SCORE: View = { sort: [{ column: 'value.score', descending: true }] };
export const COPIED = /result r\d+: \d+ rows copied/;

export const SCHEMA: SchemaEnvelope = {
  version: 1,
  schema: {
    type: 'object',
    properties: {
      key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } }, required: ['id'] },
      value: { type: 'object', properties: { score: { type: 'integer', format: 'int64' }, label: { type: 'string' } } },
      meta: { type: 'object', properties: { action: { type: 'string' }, ts: { type: 'string', format: 'date-time' } } },
    },
  },
};

/** The rows as the engine shows them: key.id, value.score, value.label, meta.action, meta.ts. */
export function row(id: number): unknown[] {
  const s = score(id);
  return [String(id), s === null ? null : String(s), `label ${id % 97}`, 'U', '2026-11-20T08:00:00Z'];
}

/** Ids in the order of the sort by score (descending, nulls last), ties in the result's order. */
export function sortedIds(): number[] {
  const ids = Array.from({ length: TOTAL }, (_, i) => i);
  const rank = (id: number): number => score(id) ?? -1;
  return ids.sort((a, b) => rank(b) - rank(a) || a - b);
}

/** Writes the result's files into `dir`; `label` names the rows' labels (a changed result). */
export async function writeResult(dir: string, label = 'label'): Promise<ResultSource> {
  await fs.mkdir(dir, { recursive: true });
  const paths: string[] = [];
  let id = 0;
  for (const [i, rows] of FILE_ROWS.entries()) {
    const lines: string[] = [];
    for (let r = 0; r < rows; r++, id++) {
      lines.push(JSON.stringify({ meta: { action: 'U', ts: '2026-11-20T08:00:00Z' }, key: { id }, value: { score: score(id), label: `${label} ${id % 97}` } }));
    }
    const file = path.join(dir, `part-${i}.jsonl.gz`);
    await fs.writeFile(file, gzipSync(`${lines.join('\n')}\n`));
    paths.push(file);
  }
  return { paths, schema: SCHEMA };
}

export interface LoggedEngine {
  engine: EngineClient;
  /** resolves when the first result's copy is complete, rejects when it failed */
  copied: () => Promise<void>;
  log: string[];
}

/** An engine whose log tells when a result's copy is complete (or has failed). */
export function engineWithLog(results: SampleResults, options: Partial<EngineOptions>): LoggedEngine {
  const log: string[] = [];
  let resolve: () => void = () => undefined;
  let reject: (err: Error) => void = () => undefined;
  const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  done.catch(() => undefined);
  const note = (message: string): void => {
    log.push(message);
    if (COPIED.test(message)) resolve();
    if (/stays read from its files/.test(message)) reject(new Error(message));
  };
  const logger: Logger = { debug: note, info: note, warn: note, error: note, trace: note };
  return { engine: results.engine({ logger, ...options }), copied: () => done, log };
}

/** Runs `test` with a fresh engine, disposed afterwards. */
export async function withEngine(results: SampleResults, options: Partial<EngineOptions>, test: (e: LoggedEngine) => Promise<void>): Promise<void> {
  const e = engineWithLog(results, options);
  try {
    await test(e);
  } finally {
    await e.engine.dispose();
  }
}

export async function idsOf(engine: EngineClient, handle: string, view: View, offset: number, limit: number): Promise<number[]> {
  return (await engine.page(handle, view, offset, limit)).rows.map((r) => Number(r[0]));
}

export const range = (from: number, to: number): number[] => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

// A thread that reads one gzip file to its end with gzipIndex.ts: its records, the windows of
// its restart points, or why it could not. Started by fileEnds.ts, one per file read, so that
// the engine's own thread stays free and two files inflate on two cores.

import { parentPort, workerData } from 'node:worker_threads';
import { GzipDamage, IndexUnsupported, indexGzipFile, type IndexedRead } from './gzipIndex';

/** What the thread answers. */
export type IndexAnswer =
  | { read: IndexedRead }
  | { damage: { message: string; code: string; records: number } }
  | { unsupported: string }
  | { failed: string };

function answer(): IndexAnswer {
  const { path, windows } = workerData as { path: string; windows: string };
  try {
    return { read: indexGzipFile(path, { windows }) };
  } catch (err) {
    if (err instanceof GzipDamage) return { damage: { message: err.message, code: err.code, records: err.records } };
    if (err instanceof IndexUnsupported) return { unsupported: err.message };
    return { failed: err instanceof Error ? err.message : String(err) };
  }
}

parentPort?.postMessage(answer());

// Tells a result object's format from its first bytes, for files whose job did not say
// (a job record carries no format). Gzip is looked through; names are never consulted.

import { constants, gunzipSync } from 'node:zlib';
import { isGzipMagic, type Format } from './contract';

/** What a Parquet file starts and ends with. */
export const PARQUET_MAGIC = Buffer.from('PAR1', 'latin1');

/** The format of an object from its leading bytes (a few KiB suffice), or undefined. */
export function sniffFormat(head: Uint8Array): Format | undefined {
  let bytes = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (isGzipMagic(bytes)) {
    try {
      bytes = gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH });
    } catch {
      return undefined;
    }
  }
  if (bytes.subarray(0, 4).equals(PARQUET_MAGIC)) return 'parquet';
  const text = bytes.subarray(0, 8192).toString('utf8').replace(/^\uFEFF/, '');
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) return 'jsonl';
  const newline = text.indexOf('\n');
  const firstLine = newline === -1 ? text : text.slice(0, newline);
  if (firstLine.includes('\t')) return 'tsv';
  if (firstLine.includes(',')) return 'csv';
  return undefined;
}

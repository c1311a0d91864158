// Reads a result file as text for an editor, gunzipping on the fly, when it is text and
// small enough: big or binary results (Parquet) are revealed instead of opened.

import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { isGzipMagic } from '../core/contract';

/** Larger results (after decompression) are revealed, not opened. */
export const OPEN_LIMIT_BYTES = 10 * 1024 * 1024;

/** The file's text, or undefined when it is binary or larger than `limit` once decompressed. */
export async function readResultText(file: string, limit = OPEN_LIMIT_BYTES): Promise<string | undefined> {
  const head = await firstBytes(file, 2);
  const source = createReadStream(file);
  const stream = isGzipMagic(head) ? source.pipe(createGunzip()) : source;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit || (chunks.length === 0 && looksBinary(chunk))) return undefined;
      chunks.push(chunk);
    }
  } finally {
    source.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function firstBytes(file: string, n: number): Promise<Buffer> {
  for await (const chunk of createReadStream(file, { start: 0, end: n - 1 })) return chunk as Buffer;
  return Buffer.alloc(0);
}

/** Parquet's magic, or a NUL byte early on: not for a text editor. */
function looksBinary(chunk: Buffer): boolean {
  return chunk.subarray(0, 4).toString('latin1') === 'PAR1' || chunk.subarray(0, 8192).includes(0);
}

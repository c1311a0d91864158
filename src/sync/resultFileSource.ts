// A result file opened for a load into a database server: its bytes as a stream, and whether
// it is gzip, known by its first two bytes (its magic), not by its name. One open, read from the
// start to the end, so a named pipe works as well as a file.

import { promises as fs } from 'node:fs';
import type { Readable } from 'node:stream';
import { isGzipMagic } from '../core/contract';

export async function openResultFile(file: string, highWaterMark?: number): Promise<{ gzip: boolean; source: Readable }> {
  const handle = await fs.open(file, 'r');
  const head = Buffer.alloc(2);
  let got = 0;
  try {
    while (got < 2) {
      const { bytesRead } = await handle.read(head, got, 2 - got, null);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
  } catch (err) {
    await handle.close();
    throw err;
  }
  const source = handle.createReadStream(highWaterMark ? { highWaterMark } : undefined);
  if (got > 0) source.unshift(head.subarray(0, got));
  return { gzip: isGzipMagic(head.subarray(0, got)), source };
}

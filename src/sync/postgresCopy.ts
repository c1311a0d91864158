// Streams one result object (gzip JSONL, or plain JSONL) into the staging table with
// `COPY ... FROM STDIN`, decompressing as it reads: nothing uncompressed touches the disk
// and memory holds a few chunks. Lines pass verbatim, except the escape `\u0000`, which
// PostgreSQL cannot store in jsonb or text: it is dropped from the string that holds it.
// An abort or a bad file ends the COPY with CopyFail, so the session can roll back.

import { promises as fs } from 'node:fs';
import { Transform, type TransformCallback, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { COPY_STAGE } from './postgresSql';

const NUL_ESCAPE = Buffer.from('\\u0000');
const NEWLINE = 0x0a;
/** `\u0000` preceded by an even number of backslashes (an odd one escapes the backslash). */
const NUL_IN_TEXT = /(?<!\\)((?:\\\\)*)\\u0000/g;

/** Drops `\u0000` escapes from JSON lines; works on whole lines, carrying a partial one. */
export class NulEscapeFilter extends Transform {
  private carry: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const end = data.lastIndexOf(NEWLINE) + 1;
    this.carry = data.subarray(end);
    if (end > 0) this.push(clean(data.subarray(0, end)));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.carry.length) this.push(clean(this.carry));
    this.carry = Buffer.alloc(0);
    done();
  }
}

function clean(lines: Buffer): Buffer {
  if (lines.indexOf(NUL_ESCAPE) < 0) return lines;
  return Buffer.from(lines.toString('utf8').replace(NUL_IN_TEXT, '$1'), 'utf8');
}

/**
 * The file's bytes with a look at its first two: gzip is known by its magic bytes, not its
 * name. One open, read from the start to the end, so a pipe works as well as a file.
 */
async function openSource(file: string): Promise<{ gzip: boolean; source: Readable }> {
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
  const source = handle.createReadStream();
  if (got > 0) source.unshift(head.subarray(0, got));
  return { gzip: got === 2 && head[0] === 0x1f && head[1] === 0x8b, source };
}

/** Copies one file's records into the staging table; returns how many lines it held. */
export async function copyFileToStage(client: Client, file: string, signal?: AbortSignal): Promise<number> {
  signal?.throwIfAborted();
  const { gzip, source } = await openSource(file);
  const copy = client.query(copyFrom(COPY_STAGE));
  const stages: NodeJS.ReadWriteStream[] = gzip ? [createGunzip(), new NulEscapeFilter()] : [new NulEscapeFilter()];
  // a failure anywhere destroys the COPY stream, which sends CopyFail; the session's next
  // statement (the rollback) waits in the driver's queue until the server has answered it
  await pipeline([source, ...stages, copy], { signal });
  return copy.rowCount;
}

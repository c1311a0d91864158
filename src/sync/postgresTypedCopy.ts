// Streams a load's result objects into typed columns with one `COPY ... FROM STDIN` (binary or
// text): each file is read and decompressed as for the jsonb staging copy (postgresCopy.ts), its
// lines checked and cleaned by the same filter, then each record written as a row of typed
// fields by a TypedRowEncoder (postgresRows.ts), one file after the other into the same COPY.
// Node reads and encodes while PostgreSQL parses and stores: the stream's backpressure keeps
// both at work, and one COPY for all the files never leaves either waiting for the other to
// finish a file. The rows COPY stored must be the records sent, or the load fails. A record
// the encoder hands back (NeedsGeneralLoad, NeedsTextRows, NeedsMerge), a bad file or an abort
// ends the COPY with CopyFail, so the session can roll back.

import * as path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DqError } from '../client/errors';
import type { TypedRowEncoder } from './postgresRows';
import { JsonEscapeFilter } from './jsonEscapes';
import { openResultFile } from './resultFileSource';

const NEWLINE = 0x0a;
/** Bytes decompressed at a time: fewer, larger chunks cost less per record than zlib's 16 KiB. */
const CHUNK_BYTES = 256 * 1024;

/** Whole lines in, COPY rows out; a line split between chunks is joined first (the filter bounds its length). */
class TypedRows extends Transform {
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(private readonly encoder: TypedRowEncoder) {
    super({ readableHighWaterMark: CHUNK_BYTES, writableHighWaterMark: CHUNK_BYTES });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      let from = 0;
      const last = chunk.lastIndexOf(NEWLINE);
      if (last === -1) {
        this.hold(chunk);
        done();
        return;
      }
      if (this.partialBytes > 0) {
        const first = chunk.indexOf(NEWLINE);
        const line = Buffer.concat([...this.partial, chunk.subarray(0, first + 1)], this.partialBytes + first + 1);
        this.partial = [];
        this.partialBytes = 0;
        this.encode(line, 0, line.length);
        from = first + 1;
      }
      if (last + 1 > from) this.encode(chunk, from, last + 1);
      this.hold(chunk.subarray(last + 1));
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      if (this.partialBytes > 0) {
        const line = Buffer.concat(this.partial, this.partialBytes);
        this.encode(line, 0, line.length);
      }
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  private encode(lines: Buffer, from: number, to: number): void {
    const rows = this.encoder.encodeLines(lines, from, to);
    if (rows.length > 0) this.push(rows);
  }

  private hold(part: Buffer): void {
    if (part.length === 0) return;
    this.partial.push(part);
    this.partialBytes += part.length;
  }
}

/** The rows of every file in turn, between the COPY stream's header and trailer. */
async function* rowsOf(files: readonly string[], table: string, encoder: TypedRowEncoder, onFile: (index: number) => void, signal?: AbortSignal): AsyncGenerator<Buffer> {
  const header = encoder.header();
  if (header.length > 0) yield header;
  for (const [i, file] of files.entries()) {
    const { gzip, source } = await openResultFile(file, CHUNK_BYTES);
    const rows = new TypedRows(encoder);
    const stages: NodeJS.ReadWriteStream[] = [new JsonEscapeFilter({ table, file }), rows];
    if (gzip) stages.unshift(createGunzip({ chunkSize: CHUNK_BYTES }));
    // a failure anywhere destroys `rows` too, which ends the loop below with it
    const read = pipeline([source, ...stages], { signal });
    read.catch(() => undefined);
    for await (const chunk of rows) yield chunk as Buffer;
    await read;
    onFile(i);
  }
  const trailer = encoder.trailer();
  if (trailer.length > 0) yield trailer;
}

/**
 * Copies the records of `files` with `copySql` (a `COPY ... FROM STDIN` of the encoder's
 * fields) for `table` (`canvas.users`, for messages); returns how many rows it stored.
 * `onFile` hears of each file read to its end.
 */
export async function copyFilesTyped(
  client: Client,
  files: readonly string[],
  table: string,
  copySql: string,
  encoder: TypedRowEncoder,
  onFile: (index: number) => void,
  signal?: AbortSignal,
): Promise<number> {
  signal?.throwIfAborted();
  const before = encoder.records;
  // a deeper queue than a Writable's 16 KiB, so a pause on either side does not stop the other
  const copy = client.query(copyFrom(copySql, { highWaterMark: 4 * CHUNK_BYTES }));
  // a failure anywhere destroys the COPY stream, which sends CopyFail; the session's next
  // statement (the rollback) waits in the driver's queue until the server has answered it
  await pipeline([Readable.from(rowsOf(files, table, encoder, onFile, signal), { objectMode: false }), copy], { signal });
  const sent = encoder.records - before;
  if (copy.rowCount !== sent) {
    throw new DqError('invalidResponse', `PostgreSQL stored ${copy.rowCount} rows from ${sent} records of ${files.length === 1 ? path.basename(files[0]) : `${files.length} result files`} of ${table}, where each record is one row.`, {
      hint: 'The table keeps its last complete sync. Sync it again; if it fails the same way, report the table to the provider.',
    });
  }
  return copy.rowCount;
}

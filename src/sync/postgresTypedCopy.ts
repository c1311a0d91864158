// Streams one result object into typed columns with `COPY ... FROM STDIN` (binary or text):
// the file is read and decompressed as for the jsonb staging copy (postgresCopy.ts), its lines
// checked and cleaned by the same filter, then each record written as a row of typed fields by
// a TypedRowEncoder (postgresRows.ts). Node reads and encodes while PostgreSQL parses and
// stores: the stream's backpressure keeps both at work. The rows COPY stored must be the
// records sent, or the file fails. A record the encoder hands back (NeedsGeneralLoad,
// NeedsMerge), a bad file or an abort ends the COPY with CopyFail, so the session can roll back.

import * as path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DqError } from '../client/errors';
import { openSource } from './postgresCopy';
import type { TypedRowEncoder } from './postgresRows';
import { JsonEscapeFilter } from './jsonEscapes';

const NEWLINE = 0x0a;
/** Bytes decompressed at a time: fewer, larger chunks cost less per record than zlib's 16 KiB. */
const CHUNK_BYTES = 256 * 1024;

/** Whole lines in, COPY rows out; a line split between chunks is joined first (the filter bounds its length). */
class TypedRows extends Transform {
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(private readonly encoder: TypedRowEncoder) {
    super({ readableHighWaterMark: CHUNK_BYTES, writableHighWaterMark: CHUNK_BYTES });
    const header = encoder.header();
    if (header.length > 0) this.push(header);
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
      const trailer = this.encoder.trailer();
      if (trailer.length > 0) this.push(trailer);
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

/**
 * Copies one file's records with `copySql` (a `COPY ... FROM STDIN` of the encoder's fields)
 * for `table` (`canvas.users`, for messages); returns how many rows it stored.
 */
export async function copyFileTyped(client: Client, file: string, table: string, copySql: string, encoder: TypedRowEncoder, signal?: AbortSignal): Promise<number> {
  signal?.throwIfAborted();
  const { gzip, source } = await openSource(file, CHUNK_BYTES);
  const copy = client.query(copyFrom(copySql));
  const before = encoder.records;
  const stages: NodeJS.ReadWriteStream[] = [new JsonEscapeFilter({ table, file }), new TypedRows(encoder)];
  if (gzip) stages.unshift(createGunzip({ chunkSize: CHUNK_BYTES }));
  await pipeline([source, ...stages, copy], { signal });
  const sent = encoder.records - before;
  if (copy.rowCount !== sent) {
    throw new DqError('invalidResponse', `PostgreSQL stored ${copy.rowCount} rows from ${sent} records of ${path.basename(file)}, a result file of ${table}, where each record is one row.`, {
      hint: 'The table keeps its last complete sync. Sync it again; if it fails the same way, report the table to the provider.',
    });
  }
  return copy.rowCount;
}

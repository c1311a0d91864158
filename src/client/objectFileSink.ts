// Where one result object's bytes go while it downloads: a temporary file, written in order,
// optionally gunzipped on the way, optionally hashed as written. It looks at the object's first two
// bytes to tell gzip (1f 8b) from anything else, whatever the name says. Bytes are copied on
// arrival into batches of 256 KiB, each hashed and written with one call while the next one
// fills, so reading the network and writing the disk overlap. The copy frees each network
// chunk at once: chunks die young in V8 instead of waiting in a queue for the disk, and the
// batches are reused, so memory stays flat whatever the object's size. A response body
// reaches the sink through a Writable whose backpressure holds the connection while the
// disk is behind. It can start over (when a server sends a different range than asked) and
// can be thrown away. File-system failures come out as `io` DqErrors naming the folder; a
// broken gzip stream as `invalidResponse`.

import { createHash, type Hash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import { isGzipMagic } from '../core/contract';
import { DqError } from './errors';
import { asLocalIoError } from './localIoError';

/** Bytes gathered before one write to the file (and one update of the hash). */
export const WRITE_BATCH_BYTES = 256 * 1024;
/** What a body's Writable holds before the connection is paused. */
const BODY_BUFFER_BYTES = 64 * 1024;
/** Batches a sink keeps for filling again: one is written while the other fills. */
const SPARE_BATCHES = 2;

export interface SinkResult {
  /** bytes of the object received (compressed size) */
  sourceBytes: number;
  /** bytes of the file on disk */
  fileBytes: number;
  /** when the sink hashes */
  sha256?: string;
  /** whether the object is gzip */
  sourceGzip: boolean;
  /** whether the file on disk is gzip */
  fileGzip: boolean;
}

export class ObjectFileSink {
  private handle?: FileHandle;
  private hash?: Hash;
  private head: Buffer[] = [];
  private headBytes = 0;
  private mode?: 'raw' | 'gunzip';
  private sourceWasGzip = false;
  private gunzip?: Gunzip;
  private gunzipError?: DqError;
  /** the batch being filled and how much of it is; filled batches not yet queued for the file */
  private batch?: Buffer;
  private batchBytes = 0;
  private filled: Buffer[] = [];
  /** batches whose write is done, to be filled again */
  private spare: Buffer[] = [];
  /** the chunks being taken: later chunks wait for them, so they stay in order */
  private taking: Promise<void> = Promise.resolve();
  /** the file writes, one after the other (a failure is kept until someone awaits it) */
  private writing: Promise<void> = Promise.resolve();
  private skip = 0;
  private sourceBytes = 0;
  private fileBytes = 0;
  /** bytes handed to this sink's Writables, skipped ones included: how fast the network delivers */
  private arrived = 0;
  private limit?: { bytes: number; error: () => DqError };

  constructor(
    readonly tempPath: string,
    private readonly decompress: boolean,
    private readonly hashed = false,
  ) {
    if (hashed) this.hash = createHash('sha256');
  }

  /** Bytes of the object received so far: where a resumed download continues. */
  get received(): number {
    return this.sourceBytes;
  }

  /** Bytes that have arrived from the network, skipped ones included. */
  get arrivedBytes(): number {
    return this.arrived;
  }

  /**
   * From now on the object may hold at most `bytes` bytes: a chunk that would take it further
   * fails with `error()` before anything of it is written.
   */
  limitTo(bytes: number, error: () => DqError): void {
    this.limit = { bytes, error };
  }

  /** Bytes still to be dropped from what arrives (see skipNext). */
  get skipping(): number {
    return this.skip;
  }

  async open(): Promise<void> {
    this.handle = await this.onDisk(fs.open(this.tempPath, 'wx'));
  }

  /** Drops the next `bytes` bytes that arrive: a host that ignored Range sends them again. */
  skipNext(bytes: number): void {
    this.skip = bytes;
  }

  /**
   * A Writable for one response body into this sink; `onBytes` is told after each group of
   * chunks is taken. A sink failure destroys it with that error.
   */
  writable(onBytes: () => void): Writable {
    const take = (chunks: Buffer[], done: (err?: Error | null) => void): void => {
      for (const chunk of chunks) this.arrived += chunk.length;
      this.write(chunks).then(() => {
        onBytes();
        done();
      }, done);
    };
    return new Writable({
      highWaterMark: BODY_BUFFER_BYTES,
      write: (chunk: Buffer, _encoding, done) => take([chunk], done),
      writev: (chunks, done) => take(chunks.map((c) => c.chunk as Buffer), done),
    });
  }

  /** Takes chunks of the object in order; resolves once they are copied into batches for the file. */
  write(chunks: Buffer[]): Promise<void> {
    const taken = this.taking.then(() => this.take(chunks));
    this.taking = taken.catch(() => undefined);
    return taken;
  }

  /** Resolves when every chunk handed over has been taken (or has failed). */
  idle(): Promise<void> {
    return this.taking;
  }

  private async take(chunks: Buffer[]): Promise<void> {
    for (const chunk of chunks) {
      const bytes = this.dropSkipped(chunk);
      if (bytes.length === 0) continue;
      if (this.limit && this.sourceBytes + bytes.length > this.limit.bytes) throw this.limit.error();
      this.sourceBytes += bytes.length;
      if (this.mode === undefined) {
        this.head.push(bytes);
        this.headBytes += bytes.length;
        if (this.headBytes < 2) continue;
        await this.decideFromHead();
        continue;
      }
      await this.push(bytes);
    }
  }

  /** Forgets everything received and empties the file. */
  async restart(): Promise<void> {
    await this.taking;
    this.dropGunzip();
    await this.writing.catch(() => undefined);
    this.writing = Promise.resolve();
    await this.onDisk(this.handle?.truncate(0));
    if (this.hashed) this.hash = createHash('sha256');
    this.head = [];
    this.headBytes = 0;
    this.mode = undefined;
    this.gunzipError = undefined;
    this.batch = undefined;
    this.batchBytes = 0;
    this.filled = [];
    this.skip = 0;
    this.sourceBytes = 0;
    this.fileBytes = 0;
  }

  /** Flushes everything and closes the file. */
  async finish(): Promise<SinkResult> {
    await this.taking;
    if (this.mode === undefined) await this.decideFromHead();
    if (this.gunzip) {
      const gz = this.gunzip;
      await new Promise<void>((resolve, reject) => {
        if (this.gunzipError) return reject(this.gunzipError);
        gz.once('end', resolve);
        gz.once('error', () => reject(this.gunzipError));
        gz.end();
      });
      this.gunzip = undefined;
    }
    if (this.gunzipError) throw this.gunzipError;
    await this.flush(true);
    await this.writing;
    await this.onDisk(this.handle?.sync().catch(unlessUnsupported));
    await this.onDisk(this.handle?.close());
    this.handle = undefined;
    return {
      sourceBytes: this.sourceBytes,
      fileBytes: this.fileBytes,
      sha256: this.hash?.digest('hex'),
      sourceGzip: this.sourceWasGzip,
      fileGzip: this.mode === 'raw' && this.sourceWasGzip,
    };
  }

  /** Closes and deletes the temporary file. */
  async discard(): Promise<void> {
    await this.taking;
    this.dropGunzip();
    await this.writing.catch(() => undefined);
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await fs.rm(this.tempPath, { force: true });
  }

  private dropSkipped(chunk: Buffer): Buffer {
    if (this.skip === 0) return chunk;
    const n = Math.min(this.skip, chunk.length);
    this.skip -= n;
    return chunk.subarray(n);
  }

  /** Chooses raw or gunzip from the first bytes, then passes them on. */
  private async decideFromHead(): Promise<void> {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.sourceWasGzip = isGzipMagic(head);
    if (this.sourceWasGzip && this.decompress) {
      this.mode = 'gunzip';
      const gz = createGunzip();
      gz.on('data', (out: Buffer) => this.toBatch(out));
      gz.on('error', (err: Error) => {
        this.gunzipError = new DqError('invalidResponse', `A result object that starts like gzip is not valid gzip (${err.message})`, {
          operation: 'download',
          hint: 'Download it without decompressing, or run the query again.',
        });
      });
      this.gunzip = gz;
    } else {
      this.mode = 'raw';
    }
    await this.push(head);
  }

  private async push(bytes: Buffer): Promise<void> {
    if (bytes.length === 0) return;
    if (this.mode === 'gunzip' && this.gunzip) {
      if (this.gunzipError) throw this.gunzipError;
      const gz = this.gunzip;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          gz.off('error', done);
          resolve();
        };
        gz.once('error', done);
        gz.write(bytes, done);
      });
      if (this.gunzipError) throw this.gunzipError;
    } else {
      this.toBatch(bytes);
    }
    if (this.filled.length > 0) await this.flush(false);
  }

  /** Copies bytes into the batch being filled; a full batch joins the filled ones. */
  private toBatch(bytes: Buffer): void {
    let from = 0;
    while (from < bytes.length) {
      const batch = (this.batch ??= this.spare.pop() ?? Buffer.allocUnsafeSlow(WRITE_BATCH_BYTES));
      const copied = bytes.copy(batch, this.batchBytes, from);
      from += copied;
      this.batchBytes += copied;
      if (this.batchBytes === batch.length) {
        this.filled.push(batch);
        this.batch = undefined;
        this.batchBytes = 0;
      }
    }
  }

  /**
   * Hashes (when asked) the filled batches (and the one being filled, when `all`), queues their write
   * behind the one under way and waits for that one only: one write is under way while the
   * next batch fills. Written batches go back to the spares.
   */
  private async flush(all: boolean): Promise<void> {
    const buffers = this.filled;
    this.filled = [];
    if (all && this.batch && this.batchBytes > 0) {
      buffers.push(this.batch.subarray(0, this.batchBytes));
      this.batch = undefined;
      this.batchBytes = 0;
    }
    if (buffers.length === 0) return;
    const handle = this.handle;
    if (!handle) throw new Error('the download file is not open');
    let bytes = 0;
    for (const b of buffers) {
      this.hash?.update(b);
      bytes += b.length;
    }
    const position = this.fileBytes; // explicit: after a restart the file starts again at 0
    this.fileBytes += bytes;
    const previous = this.writing;
    this.writing = previous
      .then(() => this.onDisk(writeFully(handle, buffers, position)))
      .then(() => {
        for (const b of buffers) if (b.length === WRITE_BATCH_BYTES && this.spare.length < SPARE_BATCHES) this.spare.push(b);
      });
    this.writing.catch(() => undefined); // kept for the next flush, finish, restart or discard
    await previous;
  }

  /** A file-system step whose failure becomes an `io` DqError naming the folder. */
  private async onDisk<T>(step: Promise<T> | undefined): Promise<T | undefined> {
    try {
      return await step;
    } catch (err) {
      throw asLocalIoError(err, path.dirname(this.tempPath), 'write a result file');
    }
  }

  private dropGunzip(): void {
    if (this.gunzip) {
      this.gunzip.removeAllListeners('data');
      this.gunzip.on('error', () => undefined);
      this.gunzip.destroy();
      this.gunzip = undefined;
    }
  }
}

/**
 * Some file systems (certain network and FUSE mounts) cannot sync a file at all: the bytes
 * are as safe as that file system makes them, so that is no failure. Any other sync failure
 * (an I/O error, a full disk or quota found only now) means the file may not hold what was written.
 */
function unlessUnsupported(err: unknown): void {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EINVAL' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') return;
  throw err;
}

/** Writes `buffers` at `position` with as few calls as the system allows, short writes included. */
async function writeFully(handle: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    const { bytesWritten } = await handle.writev(rest, position);
    if (bytesWritten === 0) throw new Error('the file system accepted no bytes');
    position += bytesWritten;
    rest = afterBytes(rest, bytesWritten);
  }
}

/** What is left of `buffers` after their first `bytes` bytes. */
function afterBytes(buffers: Buffer[], bytes: number): Buffer[] {
  let i = 0;
  let left = bytes;
  while (i < buffers.length && left >= buffers[i].length) left -= buffers[i++].length;
  const rest = buffers.slice(i);
  if (rest.length > 0 && left > 0) rest[0] = rest[0].subarray(left);
  return rest;
}

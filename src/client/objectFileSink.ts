// Where one result object's bytes go while it downloads: a temporary file, written in order,
// optionally gunzipped on the way, hashed as written. It looks at the object's first two
// bytes to tell gzip (1f 8b) from anything else, whatever the name says. It can start over
// (when a server sends a different range than asked) and can be thrown away. File-system
// failures come out as `io` DqErrors naming the folder; a broken gzip stream as
// `invalidResponse`.

import { createHash, type Hash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { createGunzip, type Gunzip } from 'node:zlib';
import { isGzipMagic } from '../core/contract';
import { DqError } from './errors';
import { asLocalIoError } from './localIoError';

export interface SinkResult {
  /** bytes of the object received (compressed size) */
  sourceBytes: number;
  /** bytes of the file on disk */
  fileBytes: number;
  sha256: string;
  /** whether the object is gzip */
  sourceGzip: boolean;
  /** whether the file on disk is gzip */
  fileGzip: boolean;
}

export class ObjectFileSink {
  private handle?: FileHandle;
  private hash: Hash = createHash('sha256');
  private head: Buffer[] = [];
  private headBytes = 0;
  private mode?: 'raw' | 'gunzip';
  private gunzip?: Gunzip;
  private gunzipError?: DqError;
  private pending: Promise<unknown> = Promise.resolve();
  private sourceBytes = 0;
  private fileBytes = 0;

  constructor(
    readonly tempPath: string,
    private readonly decompress: boolean,
  ) {}

  /** Bytes of the object received so far: where a resumed download continues. */
  get received(): number {
    return this.sourceBytes;
  }

  async open(): Promise<void> {
    this.handle = await this.onDisk(fs.open(this.tempPath, 'wx'));
  }

  async write(chunk: Buffer): Promise<void> {
    this.sourceBytes += chunk.length;
    if (this.mode === undefined) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
      if (this.headBytes < 2) return;
      const head = Buffer.concat(this.head);
      this.head = [];
      this.decide(head);
      await this.push(head);
      return;
    }
    await this.push(chunk);
  }

  /** Forgets everything received and empties the file. */
  async restart(): Promise<void> {
    this.dropGunzip();
    await this.pending.catch(() => undefined);
    this.pending = Promise.resolve();
    await this.onDisk(this.handle?.truncate(0));
    this.hash = createHash('sha256');
    this.head = [];
    this.headBytes = 0;
    this.mode = undefined;
    this.gunzipError = undefined;
    this.sourceBytes = 0;
    this.fileBytes = 0;
  }

  /** Flushes everything and closes the file. */
  async finish(): Promise<SinkResult> {
    if (this.mode === undefined) {
      const head = Buffer.concat(this.head);
      this.head = [];
      this.decide(head);
      await this.push(head);
    }
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
    await this.onDisk(this.pending);
    if (this.gunzipError) throw this.gunzipError;
    await this.handle?.sync().catch(() => undefined);
    await this.onDisk(this.handle?.close());
    this.handle = undefined;
    return {
      sourceBytes: this.sourceBytes,
      fileBytes: this.fileBytes,
      sha256: this.hash.digest('hex'),
      sourceGzip: this.mode === 'gunzip' || (this.mode === 'raw' && this.sourceWasGzip),
      fileGzip: this.mode === 'raw' && this.sourceWasGzip,
    };
  }

  /** Closes and deletes the temporary file. */
  async discard(): Promise<void> {
    this.dropGunzip();
    await this.pending.catch(() => undefined);
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
    await fs.rm(this.tempPath, { force: true });
  }

  private sourceWasGzip = false;

  private decide(head: Buffer): void {
    this.sourceWasGzip = isGzipMagic(head);
    if (this.sourceWasGzip && this.decompress) {
      this.mode = 'gunzip';
      const gz = createGunzip();
      gz.on('data', (out: Buffer) => this.toFile(out));
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
      this.toFile(bytes);
    }
    await this.onDisk(this.pending);
  }

  /** A file-system step whose failure becomes an `io` DqError naming the folder. */
  private async onDisk<T>(step: Promise<T> | undefined): Promise<T | undefined> {
    try {
      return await step;
    } catch (err) {
      throw asLocalIoError(err, path.dirname(this.tempPath), 'write a result file');
    }
  }

  private toFile(bytes: Buffer): void {
    const handle = this.handle;
    if (!handle) throw new Error('the download file is not open');
    this.hash.update(bytes);
    const position = this.fileBytes; // explicit: after a restart the file starts again at 0
    this.fileBytes += bytes.length;
    this.pending = this.pending.then(() => handle.write(bytes, 0, bytes.length, position));
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

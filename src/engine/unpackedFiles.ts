// Gzip-compressed Parquet files unpacked into the engine's work folder, which DuckDB cannot
// read compressed. Each version of a file is unpacked once however many results and console
// views read it (a job's two console views, its preview), and deleted as soon as none does.
// What a file unpacks to is untrusted: it must start and end as Parquet does (`PAR1`), and it
// may grow no more than UNPACK_RATIO times its packed size (plus a floor), so a small file that
// unpacks to gigabytes of something else stops early. A copy is written under a partial name
// and renamed once whole: no half-unpacked file is ever read under the final name.

import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { PARQUET_MAGIC } from '../core/formatSniffer';
import { formatBytes } from '../core/byteSize';
import { EngineError } from './engineErrors';
import { fileVersion } from './fileEnds';

/** A Parquet file unpacks to at most this many times its packed size, plus UNPACK_FLOOR_BYTES. */
export const UNPACK_RATIO = 200;
/** What any packed file may unpack to beyond the ratio (small files of repetitive columns pack well). */
export const UNPACK_FLOOR_BYTES = 64 * 1024 * 1024;

export interface UnpackLimits {
  ratio: number;
  floorBytes: number;
}

interface Unpacked {
  /** the compressed file and its version */
  key: string;
  /** the unpacked copy */
  path: string;
  users: number;
  ready: Promise<void>;
}

export class UnpackedFiles {
  private readonly byKey = new Map<string, Unpacked>();
  private readonly byPath = new Map<string, Unpacked>();
  private made = 0;

  constructor(
    private readonly dir: string,
    private readonly limits: UnpackLimits = { ratio: UNPACK_RATIO, floorBytes: UNPACK_FLOOR_BYTES },
  ) {}

  /** The unpacked copy of the gzip file at `path`, held until `release` lets go of it. */
  async take(path: string): Promise<string> {
    const key = `${path}\n${await fileVersion(path)}`;
    let file = this.byKey.get(key);
    if (!file) {
      const made: Unpacked = { key, path: join(this.dir, `unpacked-${++this.made}.parquet`), users: 0, ready: Promise.resolve() };
      made.ready = gunzipInto(path, made.path, this.limits);
      made.ready.catch(() => this.forget(made));
      this.byKey.set(key, made);
      this.byPath.set(made.path, made);
      file = made;
    }
    file.users++;
    try {
      await file.ready;
    } catch (err) {
      file.users--;
      throw err;
    }
    return file.path;
  }

  /** Lets go of copies `take` gave (each once per take); a copy no longer held is deleted. */
  async release(paths: readonly string[]): Promise<void> {
    const unheld: string[] = [];
    for (const path of paths) {
      const file = this.byPath.get(path);
      if (!file || --file.users > 0) continue;
      this.forget(file);
      unheld.push(file.path);
    }
    // a copy a query still reads may not go on some systems: the engine's folder goes when it stops
    await Promise.all(unheld.map((path) => rm(path, { force: true }).catch(() => undefined)));
  }

  private forget(file: Unpacked): void {
    if (this.byKey.get(file.key) === file) this.byKey.delete(file.key);
    if (this.byPath.get(file.path) === file) this.byPath.delete(file.path);
  }
}

/** Unpacks `path` into `target` (through `<target>.partial`), checking what comes out is Parquet of a believable size. */
async function gunzipInto(path: string, target: string, limits: UnpackLimits): Promise<void> {
  const partial = `${target}.partial`;
  const name = basename(path);
  const packed = (await stat(path).catch(() => ({ size: 0 }))).size;
  const check = new ParquetCheck(name, packed * limits.ratio + limits.floorBytes);
  try {
    await pipeline(createReadStream(path), createGunzip(), check, createWriteStream(partial));
    check.atEnd();
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true }).catch(() => undefined);
    if (err instanceof EngineError) throw err;
    throw new EngineError('corrupt', `${name} is a damaged gzip file. Download the job again.`);
  }
}

/**
 * Passes unpacked bytes on while they may be a Parquet file: `PAR1` first, no more than
 * `maxBytes` in all; `atEnd` then checks the closing `PAR1`.
 */
class ParquetCheck extends Transform {
  private bytes = 0;
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  constructor(
    private readonly name: string,
    private readonly maxBytes: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      done(
        new EngineError(
          'corrupt',
          `${this.name} unpacks to more than ${formatBytes(this.maxBytes)}, far more than a Parquet file of its size holds: it was not unpacked. Download the job again; if it still fails, the file is not a result of the service.`,
        ),
      );
      return;
    }
    if (this.head.length < PARQUET_MAGIC.length) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, PARQUET_MAGIC.length - this.head.length)]);
      if (this.head.length === PARQUET_MAGIC.length && !this.head.equals(PARQUET_MAGIC)) {
        done(this.notParquet());
        return;
      }
    }
    const last = chunk.length >= PARQUET_MAGIC.length ? chunk : Buffer.concat([this.tail, chunk]);
    this.tail = Buffer.from(last.subarray(-PARQUET_MAGIC.length));
    done(null, chunk);
  }

  /** Throws unless the bytes passed began and ended as a Parquet file does. */
  atEnd(): void {
    if (!this.head.equals(PARQUET_MAGIC) || !this.tail.equals(PARQUET_MAGIC) || this.bytes < 2 * PARQUET_MAGIC.length) throw this.notParquet();
  }

  private notParquet(): EngineError {
    return new EngineError('corrupt', `${this.name} does not unpack to a Parquet file (it lacks the PAR1 mark at its start or end): it was not unpacked. Download the job again.`);
  }
}

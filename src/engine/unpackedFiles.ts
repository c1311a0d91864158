// Gzip-compressed Parquet files unpacked into the engine's work folder, which DuckDB cannot
// read compressed. Each version of a file is unpacked once however many results and console
// views read it (a job's two console views, its preview), and deleted as soon as none does.

import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { EngineError } from './engineErrors';
import { fileVersion } from './fileEnds';

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

  constructor(private readonly dir: string) {}

  /** The unpacked copy of the gzip file at `path`, held until `release` lets go of it. */
  async take(path: string): Promise<string> {
    const key = `${path}\n${await fileVersion(path)}`;
    let file = this.byKey.get(key);
    if (!file) {
      const made: Unpacked = { key, path: join(this.dir, `unpacked-${++this.made}.parquet`), users: 0, ready: Promise.resolve() };
      made.ready = gunzipInto(path, made.path);
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

async function gunzipInto(path: string, target: string): Promise<void> {
  try {
    await pipeline(createReadStream(path), createGunzip(), createWriteStream(target));
  } catch {
    await rm(target, { force: true }).catch(() => undefined);
    throw new EngineError('corrupt', `${basename(path)} is a damaged gzip file. Download the job again.`);
  }
}

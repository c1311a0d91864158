// Result objects on disk. An object is generated once, on first need, as a stream into a file
// in a private temporary folder: gzip JSONL/CSV/TSV or Parquet. Serving from that file gives
// identical bytes every time, an exact Content-Length, Range support and a stable ETag, while
// memory stays flat however large the object is. The folder is removed on close.

import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Logger } from '../core/logger';
import type { Job, ObjectPart } from './jobEngine';
import { writeParquetFile } from './parquetWriter';
import { delimitedLine, headerLine, jsonlLine } from './recordFormats';
import type { ChangeHistory } from './sampleData/changeHistory';
import { flatColumns } from './sampleData/tableModel';
import { makeFolder } from '../core/makeFolder';

export interface StoredObject {
  path: string;
  size: number;
  etag: string;
  gzip: boolean;
}

const CHUNK_CHARS = 64 * 1024;
const MAX_GENERATING = 2;

export class ObjectStore {
  private readonly ready = new Map<string, Promise<StoredObject>>();
  private counter = 0;
  private generating = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly history: ChangeHistory,
    private readonly logger: Logger,
    private readonly gzipLevel: number,
  ) {}

  static async create(o: { history: ChangeHistory; logger: Logger; cacheDir?: string; gzipLevel?: number }): Promise<ObjectStore> {
    const level = o.gzipLevel ?? 6;
    if (!Number.isInteger(level) || level < 0 || level > 9) throw new Error(`gzipLevel must be 0 to 9, not ${level}.`);
    const parent = o.cacheDir ?? tmpdir();
    await makeFolder(parent);
    return new ObjectStore(await mkdtemp(join(parent, 'dq-emulator-')), o.history, o.logger, level);
  }

  /** Starts generating the object in the background (e.g. when its URL is handed out). */
  prepare(job: Job, part: ObjectPart): void {
    this.ensure(job, part).catch((err: unknown) =>
      this.logger.warn(`emulator: could not generate an object: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  /** The object's file, generated on first call; concurrent callers share one generation. */
  ensure(job: Job, part: ObjectPart): Promise<StoredObject> {
    let p = this.ready.get(part.id);
    if (!p) {
      p = this.generate(job, part);
      this.ready.set(part.id, p);
      p.catch(() => this.ready.delete(part.id));
    }
    return p;
  }

  /** Deletes the files of an expired job. */
  evictJob(job: Job): void {
    for (const part of job.objects) {
      const p = this.ready.get(part.id);
      this.ready.delete(part.id);
      p?.then((o) => rm(o.path, { force: true })).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.ready.values()]);
    this.ready.clear();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Passes records through, and stops generation promptly when the store closes. */
  private *stopOnClose<T>(items: Iterable<T>): Generator<T> {
    let n = 0;
    for (const item of items) {
      if ((++n & 1023) === 0 && this.closed) throw new Error('The emulator is closing.');
      yield item;
    }
  }

  /** At most MAX_GENERATING objects are generated at once; the rest wait their turn. */
  private async generate(job: Job, part: ObjectPart): Promise<StoredObject> {
    while (this.generating >= MAX_GENERATING) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.generating++;
    try {
      return await this.generateNow(job, part);
    } finally {
      this.generating--;
      this.waiting.shift()?.();
    }
  }

  private async generateNow(job: Job, part: ObjectPart): Promise<StoredObject> {
    if (this.closed) throw new Error('The emulator is closing.');
    const base = join(this.dir, `object-${++this.counter}`);
    const tmp = `${base}.partial`;
    const records = this.stopOnClose(this.history.records(job.table, job.range, part.from, part.to));
    const md5 = createHash('md5');
    if (job.format === 'parquet') {
      await writeParquetFile(tmp, flatColumns(job.table, job.mode), records);
      for await (const chunk of createReadStream(tmp)) md5.update(chunk as Buffer);
    } else {
      const format = job.format;
      const columns = format === 'jsonl' ? [] : flatColumns(job.table, job.mode);
      function* text(): Generator<string> {
        let buf = format === 'jsonl' ? '' : headerLine(columns, format);
        for (const r of records) {
          buf += format === 'jsonl' ? jsonlLine(r) : delimitedLine(r, columns, format);
          if (buf.length >= CHUNK_CHARS) {
            yield buf;
            buf = '';
          }
        }
        if (buf) yield buf;
      }
      const hash = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          md5.update(chunk);
          cb(null, chunk);
        },
      });
      await pipeline(Readable.from(text(), { objectMode: false }), createGzip({ level: this.gzipLevel }), hash, createWriteStream(tmp));
    }
    if (this.closed) throw new Error('The emulator is closing.');
    await rename(tmp, base);
    const { size } = await stat(base);
    return { path: base, size, etag: `"${md5.digest('hex')}"`, gzip: job.format !== 'parquet' };
  }
}

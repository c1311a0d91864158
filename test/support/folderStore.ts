// An ObjectStore over a local folder, for tests of the lake target: each object a file under
// `<dir>/objects/<key>`, written whole to `<dir>/tmp/` and renamed into place (a reader never
// sees half an object), its ETag the MD5 of its bytes as S3 gives for a single-part upload.
// Write conditions are honoured (an object's check and replacement take turns per key in this
// process) unless `enforcesConditions` is false, when they are accepted and ignored as some
// S3-compatible stores do. `faults` lets a test fail a write or an upload midway.

import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { DqError } from '../../src/client/errors';
import type { ObjectStore, PutOptions, StoredObject } from '../../src/sync/objectStore';

export interface FolderStoreFaults {
  /** called before each write (putBytes and uploadFile); throwing fails the write with nothing written */
  beforeWrite?: (key: string, kind: 'put' | 'upload') => void;
  /** called after a write has put the object in place, before the write resolves (another writer's turn) */
  afterWrite?: (key: string) => Promise<void>;
  /** called before a delete; throwing fails it with nothing deleted (a killed process deletes nothing) */
  beforeDelete?: (keys: string[]) => void;
}

export class FolderStore implements ObjectStore {
  readonly root: string;
  readonly enforcesConditions: boolean;
  readonly faults: FolderStoreFaults = {};
  /** every key written, in order */
  readonly writes: string[] = [];
  private readonly objects: string;
  private readonly tmp: string;
  private turns = new Map<string, Promise<unknown>>();

  constructor(readonly dir: string, options: { bucket?: string; enforcesConditions?: boolean } = {}) {
    this.root = `s3://${options.bucket ?? 'test-bucket'}`;
    this.enforcesConditions = options.enforcesConditions ?? true;
    this.objects = path.join(dir, 'objects');
    this.tmp = path.join(dir, 'tmp');
  }

  /** the file that holds an object */
  fileOf(key: string): string {
    if (key.split('/').some((s) => s === '..' || s === '.') || key.startsWith('/')) throw new Error(`unsafe key ${key}`);
    return path.join(this.objects, ...key.split('/'));
  }

  async getBytes(key: string): Promise<{ body: Buffer; etag?: string } | undefined> {
    try {
      const body = await fs.readFile(this.fileOf(key));
      return { body, etag: etagOf(body) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async getStream(key: string): Promise<Readable> {
    const file = this.fileOf(key);
    try {
      await fs.access(file);
    } catch {
      throw new DqError('notFound', `There is no object ${this.root}/${key}.`);
    }
    return createReadStream(file);
  }

  putBytes(key: string, body: Buffer | string, options: PutOptions = {}): Promise<{ etag?: string; conflict?: true }> {
    return this.inTurn(key, async () => {
      this.faults.beforeWrite?.(key, 'put');
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      const c = this.enforcesConditions ? options.condition : undefined;
      if (c) {
        const now = await this.getBytes(key);
        if ('ifAbsent' in c ? now !== undefined : now?.etag !== c.ifEtag) return { conflict: true as const };
      }
      await this.place(key, async (tmp) => fs.writeFile(tmp, bytes));
      await this.faults.afterWrite?.(key);
      return { etag: etagOf(bytes) };
    });
  }

  uploadFile(key: string, file: string, options: PutOptions = {}): Promise<{ etag?: string; size: number }> {
    return this.inTurn(key, async () => {
      this.faults.beforeWrite?.(key, 'upload');
      if (this.enforcesConditions && options.condition && 'ifAbsent' in options.condition && (await this.getBytes(key))) {
        throw new DqError('io', `The object ${this.root}/${key} exists already.`);
      }
      await this.place(key, (tmp) => fs.copyFile(file, tmp));
      await this.faults.afterWrite?.(key);
      const body = await fs.readFile(this.fileOf(key));
      return { etag: etagOf(body), size: body.length };
    });
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const found: StoredObject[] = [];
    const walk = async (dir: string, keyPrefix: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const key = `${keyPrefix}${e.name}`;
        if (e.isDirectory()) await walk(path.join(dir, e.name), `${key}/`);
        else if (key.startsWith(prefix)) {
          // an object deleted between the listing of its folder and this look is not listed
          const s = await fs.stat(path.join(dir, e.name)).catch(() => undefined);
          if (s) found.push({ key, size: s.size, lastModified: s.mtime });
        }
      }
    };
    await walk(this.objects, '');
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(keys: string[]): Promise<void> {
    this.faults.beforeDelete?.(keys);
    for (const key of keys) await fs.rm(this.fileOf(key), { force: true });
  }

  async close(): Promise<void> {}

  /** Writes via a temporary file renamed into place. */
  private async place(key: string, write: (tmp: string) => Promise<void>): Promise<void> {
    await fs.mkdir(this.tmp, { recursive: true });
    const tmp = path.join(this.tmp, randomBytes(8).toString('hex'));
    try {
      await write(tmp);
      const file = this.fileOf(key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.rename(tmp, file);
      this.writes.push(key);
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  private inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.turns.get(key) ?? Promise.resolve()).then(work);
    this.turns.set(key, turn.catch(() => undefined));
    return turn;
  }
}

function etagOf(body: Buffer): string {
  return `"${createHash('md5').update(body).digest('hex')}"`;
}

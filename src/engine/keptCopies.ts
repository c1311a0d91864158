// Copies of results kept between previews. A result's complete copy (resultStore.ts) moves to
// `<folder>/<key>.duckdb`, where the key names what was copied: each file's path, size and
// modification time, the format and the schema the files are read with. Opening the same
// files again, in this engine process or a later one, attaches that copy instead of reading
// the files, so sorts and far pages answer at once. A file that changed gets a new key, so a
// stale copy is never read; copies used least recently go first once all of them together
// pass the size budget.

import { createHash } from 'node:crypto';
import { readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { ResultSource } from './engineProtocol';
import { makeFolder } from '../core/makeFolder';

/** Bumped when the layout of a copy changes, so older copies are not read (2: files without a schema are read as text). */
const LAYOUT = 2;
const SUFFIX = '.duckdb';

export class KeptCopies {
  private budgetBytes: number;

  constructor(
    private readonly dir: string,
    budgetMb: number,
    private readonly log: (message: string) => void,
  ) {
    this.budgetBytes = Math.max(0, budgetMb) * 2 ** 20;
  }

  /** How much the copies may take together, in MiB (0 keeps none). */
  set budgetMb(mb: number) {
    this.budgetBytes = Math.max(0, mb) * 2 ** 20;
  }

  /** Whether copies are kept at all. */
  get enabled(): boolean {
    return this.budgetBytes > 0;
  }

  /** The key of a source's files as they are now; undefined when one cannot be read. */
  async keyOf(source: ResultSource): Promise<string | undefined> {
    try {
      const files = await Promise.all(source.paths.map(async (path) => {
        const s = await stat(path);
        return [path, s.size, s.mtimeMs];
      }));
      return createHash('sha256').update(JSON.stringify([LAYOUT, source.format ?? '', files, source.schema ?? null])).digest('hex').slice(0, 32);
    } catch {
      return undefined;
    }
  }

  /** The kept copy of `key`, marked as just used; undefined when there is none. */
  async find(key: string): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    const path = this.pathOf(key);
    try {
      const now = new Date();
      await utimes(path, now, now);
      return path;
    } catch {
      return undefined;
    }
  }

  /** Moves a complete copy from `from` to its kept place; undefined when it stays where it is. */
  async keep(from: string, key: string): Promise<string | undefined> {
    if (!this.enabled) return undefined;
    const path = this.pathOf(key);
    try {
      await makeFolder(this.dir);
      await rename(from, path);
      await rm(`${from}.wal`, { force: true });
      return path;
    } catch (err) {
      this.log(`a result's copy could not be kept in ${this.dir}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  /** Forgets a copy that cannot be read. */
  async discard(path: string): Promise<void> {
    await Promise.all([path, `${path}.wal`].map((f) => rm(f, { force: true })));
  }

  /** Deletes the least recently used copies, except those in `inUse`, until the rest fit the budget. */
  async trim(inUse: ReadonlySet<string>): Promise<void> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith(SUFFIX));
    } catch {
      return;
    }
    const copies = (
      await Promise.all(names.map(async (name) => {
        const path = join(this.dir, name);
        const s = await stat(path).catch(() => undefined);
        return s ? [{ path, bytes: s.size, used: s.mtimeMs }] : [];
      }))
    ).flat();
    let total = copies.reduce((sum, c) => sum + c.bytes, 0);
    for (const copy of copies.sort((a, b) => a.used - b.used)) {
      if (total <= this.budgetBytes) break;
      if (inUse.has(copy.path)) continue;
      await this.discard(copy.path).catch(() => undefined);
      total -= copy.bytes;
      this.log(`kept copy ${copy.path} removed: the kept copies passed ${Math.round(this.budgetBytes / 2 ** 20)} MiB`);
    }
  }

  private pathOf(key: string): string {
    return join(this.dir, `${key}${SUFFIX}`);
  }
}

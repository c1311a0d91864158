// dq's cache on disk: one JSON file per key in the user's cache folder ($XDG_CACHE_HOME/dq,
// else ~/.cache/dq; %LOCALAPPDATA%\dq\cache on Windows), written whole through a temporary file
// and a rename so a reader never sees half a file. Only table lists and schemas go there.
// A folder that cannot be written to is reported once, and the command goes on without it.

import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { isDqError } from '../client/errors';
import { asLocalIoError } from '../client/localIoError';
import type { CacheStorage } from '../core/schemaCache';
import { sanitizeFileName, shortHash } from '../core/paths';
import { makeFolder } from '../core/makeFolder';

export function cacheFolder(env: NodeJS.ProcessEnv): string {
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'dq');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'dq', 'cache');
  return path.join(env.HOME || os.homedir(), '.cache', 'dq');
}

/**
 * A cache folder that cannot be written to is no reason to fail: the value read from the
 * service is used all the same, and `onUnsaved` hears once why nothing could be kept.
 */
export class FileCacheStorage implements CacheStorage {
  private unsavedReported = false;

  constructor(
    private readonly folder: string,
    private readonly onUnsaved: (problem: string) => void = () => undefined,
  ) {}

  get<T>(key: string): T | undefined {
    try {
      return JSON.parse(readFileSync(this.fileOf(key), 'utf8')) as T;
    } catch {
      return undefined; // absent or unreadable: read from the service again
    }
  }

  /**
   * Writes in the background: while one write is under way, the schema cache gathers every
   * change made meanwhile into its next one, so reading many schemas writes the file a few
   * times rather than once per schema (each write is of the whole catalog).
   */
  async update(key: string, value: unknown): Promise<void> {
    const file = this.fileOf(key);
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      await makeFolder(this.folder, 0o700);
      await writeFile(temporary, JSON.stringify(value ?? null), { mode: 0o600 });
      await rename(temporary, file);
    } catch (err) {
      await rm(temporary, { force: true }).catch(() => undefined); // there may be no folder to leave it in
      this.unsaved(err);
    }
  }

  private unsaved(err: unknown): void {
    if (this.unsavedReported) return;
    this.unsavedReported = true;
    const io = asLocalIoError(err, this.folder, 'save the cache');
    const cause = isDqError(io) ? io.message : `Could not save the cache (folder ${this.folder}): ${err instanceof Error ? err.message : String(err)}`;
    this.onUnsaved(`${cause}; table lists and schemas are read from the service each time until it can be saved. Make the folder writable, or set XDG_CACHE_HOME to a folder you may write to.`);
  }

  private fileOf(key: string): string {
    return path.join(this.folder, `${sanitizeFileName(key, 60)}-${shortHash(key)}.json`);
  }
}

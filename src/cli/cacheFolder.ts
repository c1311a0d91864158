// dq's cache on disk: one JSON file per key in the user's cache folder ($XDG_CACHE_HOME/dq,
// else ~/.cache/dq; %LOCALAPPDATA%\dq\cache on Windows), written whole through a temporary file
// and a rename so a reader never sees half a file. Only table lists and schemas go there.

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CacheStorage } from '../core/schemaCache';
import { sanitizeFileName, shortHash } from '../core/paths';

export function cacheFolder(env: NodeJS.ProcessEnv): string {
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'dq');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'dq', 'cache');
  return path.join(env.HOME || os.homedir(), '.cache', 'dq');
}

export class FileCacheStorage implements CacheStorage {
  constructor(private readonly folder: string) {}

  get<T>(key: string): T | undefined {
    try {
      return JSON.parse(readFileSync(this.fileOf(key), 'utf8')) as T;
    } catch {
      return undefined; // absent or unreadable: read from the service again
    }
  }

  update(key: string, value: unknown): Promise<void> {
    mkdirSync(this.folder, { recursive: true, mode: 0o700 });
    const file = this.fileOf(key);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(value ?? null), { mode: 0o600 });
    renameSync(temporary, file);
    return Promise.resolve();
  }

  private fileOf(key: string): string {
    return path.join(this.folder, `${sanitizeFileName(key, 60)}-${shortHash(key)}.json`);
  }
}

// The `dataQuery.sync.target` setting: where Sync Table and Sync Namespace write. Empty means
// the local database (`sync.duckdb` in the extension's storage); a file path or `duckdb:PATH`
// names another DuckDB file; `postgresql://user@host:port/db` a PostgreSQL database, whose
// password comes from PGPASSWORD in VS Code's environment or from ~/.pgpass, never from
// settings. Pure: no `vscode` import, so plain tests can use it.

import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../../client/errors';

export const SYNC_TARGET_SETTING = 'dataQuery.sync.target';
export const LOCAL_DATABASE_FILE = 'sync.duckdb';

export type SyncTargetChoice =
  | {
      kind: 'duckdb';
      /** absolute path of the database file */
      path: string;
      /** the target as the sync host takes it */
      spec: string;
      /** how the target is shown: the file path */
      label: string;
      /** the setting was empty: the local database in the extension's storage */
      local: boolean;
    }
  | { kind: 'postgresql'; spec: string; label: string; local: false };

export interface TargetPlaces {
  /** the extension's global storage folder */
  globalStorage: string;
  /** the first workspace folder, where relative paths start; the global storage when none */
  workspaceFolder?: string;
  /** the home folder, for `~/` (default os.homedir()) */
  home?: string;
}

/** The target a setting value names, or a DqError (kind usage) that says how to fix the setting. */
export function parseSyncTarget(raw: unknown, places: TargetPlaces): SyncTargetChoice {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    const file = path.join(places.globalStorage, LOCAL_DATABASE_FILE);
    return { kind: 'duckdb', path: file, spec: file, label: file, local: true };
  }
  if (typeof raw !== 'string') {
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} must be text: a DuckDB file path, duckdb:PATH or a postgresql:// URL.`, {
      hint: 'Open your settings and fix it, or clear it to use the local database.',
    });
  }
  const value = raw.trim();
  if (/^postgres(ql)?:\/\//i.test(value)) return postgresTarget(value);
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value)) {
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} names a kind of database that cannot be synced to.`, {
      hint: 'Use a DuckDB file path (or duckdb:PATH) or a postgresql:// URL, or clear the setting to use the local database.',
    });
  }
  const filePath = value.replace(/^duckdb:/i, '');
  if (filePath === '') {
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} says duckdb: without a file.`, { hint: 'Write the path after duckdb:, or clear the setting to use the local database.' });
  }
  const absolute = resolvePath(filePath, places);
  return { kind: 'duckdb', path: absolute, spec: absolute, label: absolute, local: false };
}

function resolvePath(filePath: string, places: TargetPlaces): string {
  if (filePath === '~' || filePath.startsWith('~/') || filePath.startsWith('~\\')) return path.join(places.home ?? os.homedir(), filePath.slice(1));
  return path.resolve(places.workspaceFolder ?? places.globalStorage, filePath);
}

/** A PostgreSQL URL is checked without ever repeating it: a mistyped one may hold a password. */
function postgresTarget(value: string): SyncTargetChoice {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} is not a valid postgresql:// URL.`, {
      hint: 'Write it as postgresql://user@host:port/database (the password comes from PGPASSWORD or ~/.pgpass).',
    });
  }
  // `password`, and `sslpassword` (the passphrase of a client key)
  const queryPassword = [...url.searchParams.keys()].some((k) => /password/i.test(k));
  if (url.password !== '' || queryPassword) {
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} contains a password, and settings are no place for one.`, {
      hint: 'Remove the password from the URL and give it as PGPASSWORD in the environment VS Code starts with, or in ~/.pgpass.',
    });
  }
  if (!url.hostname) {
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} names no database server.`, { hint: 'Write it as postgresql://user@host:port/database.' });
  }
  const user = url.username ? `${url.username}@` : '';
  const label = `postgresql://${user}${url.host}${url.pathname}`;
  return { kind: 'postgresql', spec: value, label, local: false };
}

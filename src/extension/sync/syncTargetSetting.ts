// The `dataQuery.sync.target` setting: where Sync Table and Sync Namespace write. Empty means
// the local database (`sync.duckdb` in the extension's storage); a file path or `duckdb:PATH`
// names another DuckDB file; `postgresql://user@host:port/db` a PostgreSQL database, whose
// password comes from PGPASSWORD in VS Code's environment or from ~/.pgpass, never from
// settings; `mysql://user@host:port/db` (or `mariadb://`) a MySQL or MariaDB database, whose
// password comes from MYSQL_PWD or the [client] group of ~/.my.cnf; `s3://bucket/prefix` Parquet
// files in an object store, with the AWS credential chain of VS Code's environment (and its
// AWS_ENDPOINT_URL_S3 for an S3-compatible store). The value is read by the same parser as `dq sync --to` (which loads no target
// code); this adds what only a setting has: the local default, `~` for home (no shell expands
// it), no password, and messages that name the setting. Pure: no `vscode` import, so plain
// tests can use it.

import * as os from 'node:os';
import * as path from 'node:path';
import { DqError, isDqError } from '../../client/errors';
import { expandTargetHome } from '../../core/homeFolder';
import { MYSQL_SCHEME, readMysqlUrl } from '../../sync/mysqlUrl';
import { S3_FORM, S3_SCHEME } from '../../sync/s3Url';
import { parseTargetSpec, type TargetSpec, type TargetSpecProblem } from '../../sync/targetSpec';

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
  | { kind: 'postgresql'; spec: string; label: string; local: false }
  | { kind: 'mysql'; spec: string; label: string; local: false }
  | { kind: 'lake'; spec: string; label: string; local: false };

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
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} must be text: a DuckDB file path, duckdb:PATH, a postgresql://, a mysql:// or an s3:// URL.`, {
      hint: 'Open your settings and fix it, or clear it to use the local database.',
    });
  }
  const value = raw.trim();
  if (MYSQL_SCHEME.test(value)) refuseMysqlPassword(value);
  let spec: TargetSpec;
  try {
    // relative paths start in the workspace folder; `env` only names the default, and the value is not empty
    spec = parseTargetSpec(expandTargetHome(value, places.home ?? os.homedir()), { cwd: places.workspaceFolder ?? places.globalStorage, env: {} });
  } catch (err) {
    throw MYSQL_SCHEME.test(value) ? mysqlSettingError(err) : S3_SCHEME.test(value) ? s3SettingError(err) : settingError(err);
  }
  if (spec.kind === 'lake') return { kind: 'lake', spec: spec.url, label: spec.label, local: false };
  if (spec.kind === 'duckdb') return { kind: 'duckdb', path: spec.path, spec: spec.path, label: spec.label, local: false };
  if (spec.kind === 'mysql') return mysqlTarget(spec.url);
  return postgresTarget(spec.url);
}


/** The spec parser's refusals, worded for the setting; a PostgreSQL URL is never repeated, as a mistyped one may hold a password. */
const SETTING_PROBLEMS: Record<TargetSpecProblem, { message: string; hint: string }> = {
  invalidUrl: {
    message: `The setting ${SYNC_TARGET_SETTING} is not a valid postgresql:// URL.`,
    hint: 'Write it as postgresql://user@host:port/database (the password comes from PGPASSWORD or ~/.pgpass).',
  },
  noServer: { message: `The setting ${SYNC_TARGET_SETTING} names no database server.`, hint: 'Write it as postgresql://user@host:port/database.' },
  noDatabase: { message: `The setting ${SYNC_TARGET_SETTING} names no database.`, hint: 'Write it as postgresql://user@host:port/database.' },
  unknownKind: {
    message: `The setting ${SYNC_TARGET_SETTING} names a kind of database that cannot be synced to.`,
    hint: 'Use a DuckDB file path (or duckdb:PATH), a postgresql://, a mysql:// or an s3://bucket/prefix URL, or clear the setting to use the local database.',
  },
  noFile: { message: `The setting ${SYNC_TARGET_SETTING} says duckdb: without a file.`, hint: 'Write the path after duckdb:, or clear the setting to use the local database.' },
};

/** The MySQL URL's refusals, worded for the setting; the URL is never repeated. */
function mysqlSettingError(err: unknown): unknown {
  const problem = isDqError(err) ? (err.details?.problem as TargetSpecProblem | undefined) : undefined;
  if (problem === undefined) return err;
  const form = 'Write it as mysql://user@host:3306/database (the password comes from MYSQL_PWD or the [client] group of ~/.my.cnf).';
  const what = problem === 'noServer' ? 'names no database server' : problem === 'noDatabase' ? 'names no database' : 'is not a valid mysql:// URL';
  return new DqError('usage', `The setting ${SYNC_TARGET_SETTING} ${what}.`, { hint: isDqError(err) && problem === 'invalidUrl' && /parameter/.test(err.message) ? `${err.message} ${err.hint ?? ''}`.trim() : form });
}

/** The S3 URL's refusals name the setting; they never repeat credentials (an s3:// URL holding some is refused whole). */
function s3SettingError(err: unknown): unknown {
  if (!isDqError(err)) return err;
  return new DqError('usage', `The setting ${SYNC_TARGET_SETTING} is not a usable ${S3_FORM} URL: ${err.message}`, { hint: err.hint });
}

function settingError(err: unknown): unknown {
  const problem = isDqError(err) ? (err.details?.problem as TargetSpecProblem | undefined) : undefined;
  const worded = problem === undefined ? undefined : SETTING_PROBLEMS[problem];
  return worded ? new DqError('usage', worded.message, { hint: worded.hint }) : err;
}

/** A password has no place in settings (a URL that does not read as one is refused by the parser, without repeating it). */
function refuseMysqlPassword(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return;
  }
  if (url.password !== '' || [...url.searchParams.keys()].some((k) => /pass/i.test(k))) {
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} contains a password, and settings are no place for one.`, {
      hint: 'Remove the password from the URL and give it as MYSQL_PWD in the environment VS Code starts with, or in the [client] group of ~/.my.cnf.',
    });
  }
}

/** The label leaves out the query. */
function mysqlTarget(value: string): SyncTargetChoice {
  const url = new URL(value);
  const { scheme, user, database } = readMysqlUrl(value);
  return { kind: 'mysql', spec: value, label: `${scheme}://${user}@${url.host}/${database}`, local: false };
}

/** A password has no place in settings; the label leaves out the query. */
function postgresTarget(value: string): SyncTargetChoice {
  const url = new URL(value);
  // `password`, and `sslpassword` (the passphrase of a client key)
  const queryPassword = [...url.searchParams.keys()].some((k) => /password/i.test(k));
  if (url.password !== '' || queryPassword) {
    throw new DqError('usage', `The setting ${SYNC_TARGET_SETTING} contains a password, and settings are no place for one.`, {
      hint: 'Remove the password from the URL and give it as PGPASSWORD in the environment VS Code starts with, or in ~/.pgpass.',
    });
  }
  const user = url.username ? `${url.username}@` : '';
  const label = `postgresql://${user}${url.host}${url.pathname}`;
  return { kind: 'postgresql', spec: value, label, local: false };
}

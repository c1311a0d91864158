// What `--to` (or the editor's target setting) names: a DuckDB file (a path, or `duckdb:PATH`)
// or a PostgreSQL server (`postgresql://` / `postgres://` URL; any text starting `postgres:` is
// read as one). Empty means the local database in the user's data folder. The label shown to
// a person never contains a password. Each target's code is loaded only when a target is
// built, so DuckDB's native library and the PostgreSQL driver stay unloaded for the other, and
// code that only reads a spec (the editor's setting) stays free of both.

import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../client/errors';
import type { Clock } from '../core/clock';
import { maskUserInfo, type Logger } from '../core/logger';
import type { DuckdbTarget } from './duckdbTarget';
import type { PostgresTarget } from './postgresTarget';
import type { SyncTarget } from './syncTarget';

export type TargetSpec =
  | { kind: 'duckdb'; path: string; label: string }
  | { kind: 'postgres'; url: string; label: string; hasPassword: boolean };

/** What was wrong with a spec, in `details.problem` of the usage error, for callers that word it their own way. */
export type TargetSpecProblem = 'invalidUrl' | 'noServer' | 'unknownKind' | 'noFile';

function specError(problem: TargetSpecProblem, message: string, hint: string): DqError {
  return new DqError('usage', message, { hint, details: { problem } });
}

export interface TargetSpecContext {
  /** relative paths are taken from here */
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** `<XDG data home or ~/.local/share>/data-query/sync.duckdb` (`%LOCALAPPDATA%\data-query` on Windows). */
export function defaultDatabasePath(env: NodeJS.ProcessEnv): string {
  if (env.XDG_DATA_HOME) return path.join(env.XDG_DATA_HOME, 'data-query', 'sync.duckdb');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'data-query', 'sync.duckdb');
  return path.join(env.HOME || os.homedir(), '.local', 'share', 'data-query', 'sync.duckdb');
}

export function parseTargetSpec(text: string | undefined, context: TargetSpecContext): TargetSpec {
  const given = (text ?? '').trim();
  if (given === '') {
    const file = defaultDatabasePath(context.env);
    return { kind: 'duckdb', path: file, label: file };
  }
  if (POSTGRES_SCHEME.test(given)) {
    const url = readPostgresUrl(given);
    if (!url.hostname && !url.searchParams.get('host')) {
      throw specError('noServer', `The PostgreSQL target ${postgresUrlLabel(url)} names no server.`, `Write it as ${POSTGRES_FORM}.`);
    }
    const hasPassword = url.password !== '' || [...url.searchParams.keys()].some((k) => HIDDEN_PARAM.test(k));
    return { kind: 'postgres', url: given, label: postgresUrlLabel(url), hasPassword };
  }
  let file = given;
  if (/^duckdb:/i.test(file)) file = file.slice('duckdb:'.length);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file)) {
    throw specError('unknownKind', `Unknown sync target "${maskUserInfo(file).replace(/\/\/[^@/]*@/, '//***@')}".`, 'Give a DuckDB file path (or duckdb:PATH) or a postgresql:// URL.');
  }
  if (file === '') throw specError('noFile', 'duckdb: needs a file path after it.', 'Write it as duckdb:/path/to/sync.duckdb.');
  const resolved = path.resolve(context.cwd, file);
  return { kind: 'duckdb', path: resolved, label: resolved };
}

/** Any text that starts like a PostgreSQL URL is taken for one, so a mistyped URL never becomes a file name. */
const POSTGRES_SCHEME = /^postgres(ql)?:/i;
const POSTGRES_FORM = 'postgresql://user@host:5432/database';

/**
 * A PostgreSQL URL read for a target, or a usage error that never repeats it (it may hold a
 * password). Refused: no `//` after the scheme, and an `@` after the server part (in the path,
 * query or fragment): there it is the end of a password holding a `/`, `?` or `#` that was not
 * percent-encoded, and the URL parser would read part of the password as the port or path.
 */
export function readPostgresUrl(text: string): URL {
  const scheme = POSTGRES_SCHEME.exec(text);
  if (!scheme || !text.startsWith('//', scheme[0].length)) {
    throw specError('invalidUrl', 'A PostgreSQL target must start with postgresql:// (two slashes) followed by the server.', `Write it as ${POSTGRES_FORM}; for a DuckDB file of that name, write duckdb:PATH.`);
  }
  const afterSlashes = text.slice(scheme[0].length + 2);
  const serverEnd = afterSlashes.search(/[/?#]/);
  if (serverEnd >= 0 && afterSlashes.slice(serverEnd).includes('@')) {
    throw specError(
      'invalidUrl',
      'The PostgreSQL target URL cannot be read safely: an @ comes after the server name, as when the password holds a character such as / that is not percent-encoded.',
      'Percent-encode special characters in the password (/ as %2F, @ as %40, ? as %3F, # as %23), or leave the password out of the URL and give it in PGPASSWORD or the password file (~/.pgpass).',
    );
  }
  try {
    return new URL(text);
  } catch {
    throw specError('invalidUrl', 'The PostgreSQL target is not a valid URL.', `Write it as ${POSTGRES_FORM} (percent-encode special characters in the user name and password).`);
  }
}

/** Query parameters never shown: they may hold a password or a key. */
const HIDDEN_PARAM = /pass|secret|key|token/i;

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * A PostgreSQL URL as a person may see it: the user name, server, database and harmless
 * parameters; never the password (in the user part or the query) or the fragment.
 */
export function postgresUrlLabel(url: URL): string {
  // an @ past the server part ends a password that was read as the port and path (readPostgresUrl refuses these)
  if (`${url.pathname}${url.search}${url.hash}`.includes('@')) return `${url.protocol}//***`;
  const user = url.username ? `${decoded(url.username)}@` : '';
  const params = [...url.searchParams.entries()].filter(([name]) => !HIDDEN_PARAM.test(name));
  const query = params.length > 0 ? `?${params.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}${query}`;
}

export interface TargetDeps {
  logger: Logger;
  clock?: Clock;
  /** how long to wait for a table or file another sync holds */
  lockWaitMs?: number;
  /** only reads the meta table (sync status): creates and changes nothing, in a file or a server */
  readOnly?: boolean;
  /** where PostgreSQL's PGPASSWORD, PGPASSFILE, PGSSLMODE and HOME (for ~/.pgpass) are read (process.env by default) */
  env?: NodeJS.ProcessEnv;
}

/** Builds the target a spec names (not yet opened), loading that target's module now. */
export function createTarget(spec: TargetSpec, deps: TargetDeps): SyncTarget {
  if (spec.kind === 'duckdb') {
    const duckdb = require('./duckdbTarget') as { DuckdbTarget: typeof DuckdbTarget };
    return new duckdb.DuckdbTarget({ path: spec.path, logger: deps.logger, clock: deps.clock, lockWaitMs: deps.lockWaitMs, readOnly: deps.readOnly });
  }
  const postgres = require('./postgresTarget') as { PostgresTarget: typeof PostgresTarget };
  const homeDir = deps.env?.HOME || undefined;
  return new postgres.PostgresTarget({ url: spec.url, logger: deps.logger, clock: deps.clock, lockWaitMs: deps.lockWaitMs, env: deps.env, homeDir, readOnly: deps.readOnly });
}

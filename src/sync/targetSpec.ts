// What `--to` (or the editor's target setting) names: a DuckDB file (a path, or `duckdb:PATH`)
// or a PostgreSQL server (`postgresql://` / `postgres://` URL). Empty means the local database
// in the user's data folder. The label shown to a person never contains a password. Each
// target's code is loaded only when it is used, so DuckDB's native library and the PostgreSQL
// driver stay unloaded for the other.

import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../client/errors';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { DuckdbTarget } from './duckdbTarget';
import type { SyncTarget } from './syncTarget';

export type TargetSpec =
  | { kind: 'duckdb'; path: string; label: string }
  | { kind: 'postgres'; url: string; label: string; hasPassword: boolean };

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
  if (/^postgres(ql)?:\/\//i.test(given)) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new DqError('usage', 'The PostgreSQL target is not a valid URL.', { hint: 'Write it as postgresql://user@host:5432/database.' });
    }
    if (!url.hostname && !url.searchParams.get('host')) {
      throw new DqError('usage', `The PostgreSQL target ${postgresUrlLabel(url)} names no server.`, { hint: 'Write it as postgresql://user@host:5432/database.' });
    }
    const hasPassword = url.password !== '' || [...url.searchParams.keys()].some((k) => HIDDEN_PARAM.test(k));
    return { kind: 'postgres', url: given, label: postgresUrlLabel(url), hasPassword };
  }
  let file = given;
  if (/^duckdb:/i.test(file)) file = file.slice('duckdb:'.length);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file)) {
    throw new DqError('usage', `Unknown sync target "${file.replace(/\/\/[^@/]*@/, '//***@')}".`, {
      hint: 'Give a DuckDB file path (or duckdb:PATH) or a postgresql:// URL.',
    });
  }
  if (file === '') throw new DqError('usage', 'duckdb: needs a file path after it.', { hint: 'Write it as duckdb:/path/to/sync.duckdb.' });
  const resolved = path.resolve(context.cwd, file);
  return { kind: 'duckdb', path: resolved, label: resolved };
}

/** Query parameters never shown: they may hold a password or a key. */
const HIDDEN_PARAM = /pass|secret|key|token/i;

/** A PostgreSQL URL as a person may see it: no password, in the user part or the query. */
export function postgresUrlLabel(url: URL): string {
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  const params = [...url.searchParams.entries()].filter(([name]) => !HIDDEN_PARAM.test(name));
  const query = params.length > 0 ? `?${params.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}${query}`;
}

export interface TargetDeps {
  logger: Logger;
  clock?: Clock;
  /** how long to wait for a table or file another sync holds */
  lockWaitMs?: number;
  /** only reads the meta table (sync status) */
  readOnly?: boolean;
}

/** The PostgreSQL target's module, loaded only for a postgresql:// target. */
interface PostgresTargetModule {
  PostgresTarget: new (options: { url: string; logger: Logger; clock?: Clock; lockWaitMs?: number }) => SyncTarget;
}

/** Builds the target a spec names (not yet opened). */
export function createTarget(spec: TargetSpec, deps: TargetDeps): SyncTarget {
  if (spec.kind === 'duckdb') {
    return new DuckdbTarget({ path: spec.path, logger: deps.logger, clock: deps.clock, lockWaitMs: deps.lockWaitMs, readOnly: deps.readOnly });
  }
  const { PostgresTarget } = require('./postgresTarget') as PostgresTargetModule;
  return new PostgresTarget({ url: spec.url, logger: deps.logger, clock: deps.clock, lockWaitMs: deps.lockWaitMs });
}

// What `--to` (or the editor's target setting) names: a DuckDB file (a path, or `duckdb:PATH`),
// a PostgreSQL server (`postgresql://` / `postgres://` URL; any text starting `postgres:` is
// read as one), a MySQL or MariaDB server (`mysql://` / `mariadb://`, likewise) or Parquet files in an
// object store (`s3://bucket/prefix`, likewise). Empty means the local database in the user's data folder. The label shown to
// a person never contains a password. Each target's code is loaded only when a target is
// built, so DuckDB's native library and the PostgreSQL driver stay unloaded for the other, and
// code that only reads a spec (the editor's setting) stays free of both. A new kind of target
// is a kind in `TargetSpec`, a case in `parseTargetSpec` and one in `createTarget`.

import * as os from 'node:os';
import * as path from 'node:path';
import type { Clock } from '../core/clock';
import { maskUserInfo, type Logger } from '../core/logger';
import type { DuckdbTarget } from './duckdbTarget';
import type { LakeTarget } from './lakeTarget';
import type { MysqlTarget } from './mysqlTarget';
import { MYSQL_SCHEME, mysqlUrlHasPassword, readMysqlUrl } from './mysqlUrl';
import type { PostgresTarget } from './postgresTarget';
import { HIDDEN_PARAM, POSTGRES_FORM, POSTGRES_SCHEME, postgresUrlLabel, readPostgresUrl } from './postgresUrl';
import type { openS3Store } from './s3Store';
import { readS3Url, S3_SCHEME } from './s3Url';
import type { SyncTarget } from './syncTarget';
import { specError } from './targetSpecError';

export type { TargetSpecProblem } from './targetSpecError';

export type TargetSpec =
  | { kind: 'duckdb'; path: string; label: string }
  | { kind: 'postgres'; url: string; label: string; hasPassword: boolean }
  | { kind: 'mysql'; url: string; label: string; hasPassword: boolean }
  | { kind: 'lake'; url: string; bucket: string; prefix: string; label: string };

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
  if (POSTGRES_SCHEME.test(given)) return postgresSpec(given);
  if (MYSQL_SCHEME.test(given)) return { kind: 'mysql', url: given, label: readMysqlUrl(given).label, hasPassword: mysqlUrlHasPassword(given) };
  if (S3_SCHEME.test(given)) {
    const { url, bucket, prefix, label } = readS3Url(given);
    return { kind: 'lake', url, bucket, prefix, label };
  }
  return duckdbSpec(given, context);
}

function postgresSpec(given: string): TargetSpec {
  const url = readPostgresUrl(given);
  if (!url.hostname && !url.searchParams.get('host')) {
    throw specError('noServer', `The PostgreSQL target ${postgresUrlLabel(url)} names no server.`, `Write it as ${POSTGRES_FORM}.`);
  }
  const hasPassword = url.password !== '' || [...url.searchParams.keys()].some((k) => HIDDEN_PARAM.test(k));
  return { kind: 'postgres', url: given, label: postgresUrlLabel(url), hasPassword };
}

/** A file path, or `duckdb:PATH`; any other URL is a kind of target there is none of. */
function duckdbSpec(given: string, context: TargetSpecContext): TargetSpec {
  let file = given;
  if (/^duckdb:/i.test(file)) file = file.slice('duckdb:'.length);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file)) {
    throw specError('unknownKind', `Unknown sync target "${maskUserInfo(file).replace(/\/\/[^@/]*@/, '//***@')}".`, 'Give a DuckDB file path (or duckdb:PATH), a postgresql:// URL, a mysql:// URL or an s3://bucket/prefix URL.');
  }
  if (file === '') throw specError('noFile', 'duckdb: needs a file path after it.', 'Write it as duckdb:/path/to/sync.duckdb.');
  const resolved = path.resolve(context.cwd, file);
  return { kind: 'duckdb', path: resolved, label: resolved };
}

export interface TargetDeps {
  logger: Logger;
  clock?: Clock;
  /** how long to wait for a table or file another sync holds */
  lockWaitMs?: number;
  /** only reads the meta table (sync status): creates and changes nothing, in a file or a server */
  readOnly?: boolean;
  /** where PostgreSQL's PGPASSWORD, PGPASSFILE, PGSSLMODE, MySQL's MYSQL_PWD, and HOME (for ~/.pgpass and ~/.my.cnf) are read (process.env by default) */
  env?: NodeJS.ProcessEnv;
  /** the sync's work folder (the lake target writes its Parquet files there on their way up) */
  workDir?: string;
  /** the object-store target's settings (`--s3-endpoint`, `--retain-files`, `--compact`, `--allow-insecure-http`); AWS_* are read from `env` */
  lake?: { endpoint?: string; retainHours?: number; compact?: boolean; allowInsecureHttp?: boolean };
}

/** Builds the target a spec names (not yet opened), loading that target's module now. */
export function createTarget(spec: TargetSpec, deps: TargetDeps): SyncTarget {
  const { logger, clock, lockWaitMs, readOnly } = deps;
  switch (spec.kind) {
    case 'duckdb': {
      const duckdb = require('./duckdbTarget') as { DuckdbTarget: typeof DuckdbTarget };
      return new duckdb.DuckdbTarget({ path: spec.path, logger, clock, lockWaitMs, readOnly });
    }
    case 'postgres': {
      const postgres = require('./postgresTarget') as { PostgresTarget: typeof PostgresTarget };
      return new postgres.PostgresTarget({ url: spec.url, logger, clock, lockWaitMs, env: deps.env, homeDir: deps.env?.HOME || undefined, readOnly });
    }
    case 'mysql': {
      const mysql = require('./mysqlTarget') as { MysqlTarget: typeof MysqlTarget };
      return new mysql.MysqlTarget({ url: spec.url, logger, clock, lockWaitMs, env: deps.env, homeDir: deps.env?.HOME || undefined, readOnly });
    }
    case 'lake': {
      const lake = require('./lakeTarget') as { LakeTarget: typeof LakeTarget };
      const env = deps.env ?? process.env;
      const { endpoint, retainHours, compact, allowInsecureHttp } = deps.lake ?? {};
      // the AWS SDK is loaded when the target opens its store, by a lake sync only
      const openStore = () =>
        (require('./s3Store') as { openS3Store: typeof openS3Store }).openS3Store({
          bucket: spec.bucket,
          endpoint,
          env,
          logger,
          allowInsecureHttp,
          // sync status writes nothing, not even the probe of conditional writes
          enforcesConditions: readOnly ? false : undefined,
          probePrefix: spec.prefix,
        });
      return new lake.LakeTarget({ url: spec.url, bucket: spec.bucket, prefix: spec.prefix, label: spec.label, openStore, logger, clock, lockWaitMs, readOnly, retainHours, compact, workDir: deps.workDir });
    }
    default:
      return unknownKind(spec);
  }
}

/** Every kind has its case above: a kind added to `TargetSpec` without one fails to compile here. */
function unknownKind(spec: never): never {
  throw new Error(`no sync target of kind ${(spec as { kind: string }).kind}`);
}

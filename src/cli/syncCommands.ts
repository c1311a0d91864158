// dq sync and dq sync-status: keep service tables current in a database (a DuckDB file by
// default, PostgreSQL, or MySQL and MariaDB) or as Parquet files in an object store (s3://), and list what the database's meta table says was synced. Progress
// goes to stderr (as text, or as JSON lines with --log-format json: syncEvents.ts), one summary
// line per table (or JSON) to stdout. The exit code is 0 when every table synced; when one table
// was asked for and it failed, its failure's code, as dq query would give it; of several tables,
// 10 when some did not sync and 11 when none did. The rate limits arranged with the provider
// (--rate-limits, DQ_RATE_LIMITS) pace the sync's client.

import { DqError, type ErrorKind } from '../client/errors';
import { formatBytes } from '../core/byteSize';
import { formatDuration } from '../core/durationText';
import { DEFAULT_RATE_LIMITS, OPERATIONS, type Operation } from '../core/contract';
import { runSync } from '../sync/syncRunner';
import type { SyncProgress, TableSyncReport } from '../sync/syncReport';
import { sourceIdentity } from '../sync/syncSource';
import type { SyncState } from '../sync/syncTarget';
import { createTarget, parseTargetSpec, type TargetDeps, type TargetSpec } from '../sync/targetSpec';
import type { OptionSpec } from './argParser';
import { UsageError } from './argParser';
import type { CommandContext, CommandSpec } from './commandSpec';
import { printJson, withClient } from './dataCommands';
import { EXIT, exitCodeFor } from './exitCodes';
import { progressWanted, stderrLogger } from './globalOptions';
import { parseDateTime, requireName } from './inputValidation';
import { useJsonLog } from './jsonLog';
import { ProgressReporter } from './progressReporter';
import { LOG_FORMAT_OPTION, logFormatOf, SyncEventLog } from './syncEvents';
import { DDL_OPTION, printLakeDdl } from './syncStatusDdl';
import { printLines } from './terminalLine';
import { expandTargetHome, userPath } from './userPaths';

const TO_OPTION: OptionSpec = {
  name: 'to',
  kind: 'string',
  env: 'DQ_SYNC_TARGET',
  valueName: 'TARGET',
  nonEmpty: true,
  description:
    'a DuckDB file (or duckdb:PATH), a postgresql://user@host/db or a mysql://user@host/db URL, or s3://bucket/prefix for Parquet files in an object store (default: sync.duckdb in the data folder, ~/.local/share/data-query); ' +
    'a server on another machine is reached over TLS with its certificate checked unless the URL says another sslmode (or PGSSLMODE does), for MySQL ssl-mode: ' +
    'require (REQUIRED) encrypts without checking, disable (DISABLED) sends everything unencrypted',
};

const LOCK_WAIT_OPTION: OptionSpec = {
  name: 'lock-wait',
  kind: 'number',
  valueName: 'SEC',
  description: 'how long to wait for a database or table another sync holds (default 30)',
};

/** The object-store target's options (s3://bucket/prefix); AWS_* of the environment give the credentials and region. */
const LAKE_OPTIONS: OptionSpec[] = [
  {
    name: 's3-endpoint',
    kind: 'string',
    valueName: 'URL',
    nonEmpty: true,
    description: 'an S3-compatible store\'s endpoint, https://host[:port], addressed path-style (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS S3 itself)',
  },
  { name: 'retain-files', kind: 'number', valueName: 'HOURS', description: 'keep the files an s3:// sync leaves out of the manifest this long, 0 to 8760, for queries that started before (default 24)' },
  { name: 'compact', kind: 'boolean', description: 'rewrite the files of each table an s3:// sync touches into few large ones' },
];

/** sync-status takes no global options: --allow-insecure-http (or DQ_ALLOW_INSECURE_HTTP) is its own there, for an S3 endpoint. */
const ALLOW_INSECURE_OPTION: OptionSpec = { name: 'allow-insecure-http', kind: 'boolean', description: 'permit plain http:// to an S3 endpoint that is not this machine (or set DQ_ALLOW_INSECURE_HTTP=1)' };

type RateLimits = Partial<Record<Operation, number>>;

const RATE_LIMITS_OPTION: OptionSpec = {
  name: 'rate-limits',
  kind: 'string',
  env: 'DQ_RATE_LIMITS',
  valueName: 'LIMITS',
  description:
    'calls a minute per operation, when higher limits were arranged with the provider: createJob=20,listTables=20 or {"createJob":20,"listTables":20} ' +
    `(operations and defaults: ${OPERATIONS.map((op) => `${op} ${DEFAULT_RATE_LIMITS[op]}`).join(', ')})`,
};

export const syncCommand: CommandSpec & { sync(ctx: CommandContext, events?: SyncEventLog): Promise<number> } = {
  name: 'sync',
  usage:
    'dq sync <namespace> <table>... | --all [--to TARGET] [--resnapshot] [--until T] [--concurrency N] [--work-dir DIR] [--lock-wait SEC] [--rate-limits LIMITS] [--log-format text|json] [--s3-endpoint URL] [--retain-files HOURS] [--compact]',
  summary: 'keep tables current in a database: a snapshot the first time, then the changes since the last sync',
  options: [
    TO_OPTION,
    { name: 'all', kind: 'boolean', description: 'sync every table of the namespace' },
    { name: 'resnapshot', kind: 'boolean', description: 'take a fresh snapshot, replacing the tables (after a schema change that needs it)' },
    { name: 'until', kind: 'string', valueName: 'T', description: 'sync up to T instead of the latest data, for reproducible runs' },
    { name: 'concurrency', kind: 'number', valueName: 'N', description: 'tables synced at once, 1 to 16 (default 4)' },
    { name: 'work-dir', kind: 'string', valueName: 'DIR', nonEmpty: true, description: 'where a job\'s files wait, compressed, until they are applied (default: the system\'s temporary folder)' },
    LOCK_WAIT_OPTION,
    RATE_LIMITS_OPTION,
    LOG_FORMAT_OPTION,
    ...LAKE_OPTIONS,
  ],
  async run(ctx) {
    if (logFormatOf(ctx.args.options['log-format']) === 'text') return this.sync(ctx);
    // every line on stderr a JSON object from here on, a failure of the whole run too
    const events = new SyncEventLog(ctx.io.stderr, String(ctx.args.positionals[0] ?? ''));
    const release = useJsonLog(ctx.io.stderr, events.log);
    try {
      return await this.sync(ctx, events);
    } catch (err) {
      return events.failure(err, ctx.io);
    } finally {
      release();
    }
  },
  /** The sync, with progress as text lines, or as JSON lines when `events` is given. */
  async sync(ctx, events) {
    const started = Date.now();
    const [ns, ...names] = ctx.args.positionals;
    if (ns === undefined) throw new UsageError(`missing <namespace>; usage: ${this.usage}`);
    const namespace = requireName(ns, 'namespace');
    const o = ctx.args.options;
    const all = o.all === true;
    if (all && names.length > 0) throw new UsageError('name tables or give --all, not both');
    if (!all && names.length === 0) throw new UsageError(`name the tables to sync, or give --all; usage: ${this.usage}`);
    const tables = all ? 'all' : names.map((t) => requireName(t, 'table'));
    const until = parseDateTime(o.until, '--until');
    const concurrency = whole(o.concurrency, '--concurrency', 1, 16);
    const spec = targetSpecOf(ctx);
    const lockWaitMs = lockWait(ctx);
    const rateLimits = rateLimitsOf(ctx);
    const logger = stderrLogger(ctx.io);
    if (spec.kind === 'postgres' && spec.hasPassword) {
      logger.warn('the password in the target URL is visible to other users of this machine; prefer PGPASSWORD or ~/.pgpass');
    }
    if (spec.kind === 'mysql' && spec.hasPassword) {
      logger.warn('the password in the target URL is visible to other users of this machine; prefer MYSQL_PWD or the [client] group of ~/.my.cnf');
    }
    const lake = lakeOptionsOf(ctx, spec);
    const workDir = o['work-dir'] === undefined ? undefined : userPath(String(o['work-dir']), ctx.io);
    const progress = new ProgressReporter(ctx.io.stderr, !events && progressWanted(o, ctx.io));
    const target = createTarget(spec, { logger, lockWaitMs, env: ctx.io.env, lake, workDir });
    const reports = await withClient(
      ctx,
      async (client) => {
        await target.open(ctx.io.interrupt);
        try {
          return await runSync({
            client,
            target,
            // the client ID's tag tells apart two accounts on one gateway (never the ID itself)
            source: sourceIdentity({ baseUrl: client.baseUrl, dataPrefix: client.dataPrefix, scope: o.scope as string | undefined, clientId: o['client-id'] as string | undefined }),
            namespace,
            tables,
            resnapshot: o.resnapshot === true,
            until,
            concurrency,
            workDir,
            signal: ctx.io.interrupt,
            onProgress: (p) => {
              if (events) return events.progress(p);
              const text = progressText(p);
              if (text) progress.message(text);
            },
            logger,
          });
        } finally {
          progress.done();
          await target.close();
        }
      },
      rateLimits,
    );
    const notSynced = reports.filter((r) => r.outcome === 'failed' || r.outcome === 'cancelled');
    if (o.json) {
      printJson(ctx, { target: target.label, tables: reports });
      // stdout is for the program reading the JSON; a person reading a cron log learns why here
      // (in JSON lines, each failed table's line said it)
      if (!events) printLines(ctx.io.stderr, notSynced.map((r) => `dq: ${r.namespace}.${r.table}: ${r.outcome === 'failed' ? failureText(r) : 'cancelled'}`));
    } else {
      printLines(ctx.io.stdout, formatReports(reports));
    }
    if (events) events.summary(reports, target.label, Math.round((Date.now() - started) / 100) / 10);
    else if (notSynced.length > 0) printLines(ctx.io.stderr, [`dq: ${notSynced.length} of ${reports.length} tables did not sync; ${target.label} keeps their last complete sync.`]);
    return exitCodeOf(reports);
  },
};

export const syncStatusCommand: CommandSpec = {
  name: 'sync-status',
  usage: 'dq sync-status [--to TARGET] [--s3-endpoint URL] [--allow-insecure-http] [--json] | dq sync-status --to s3://BUCKET/PREFIX --ddl athena|trino|spark|duckdb [<namespace> [<table>...]] [--json]',
  summary: 'list the tables synced to a database: the point each reached, rows, schema version, last run, the service they came from',
  options: [
    TO_OPTION,
    LOCK_WAIT_OPTION,
    LAKE_OPTIONS[0],
    ALLOW_INSECURE_OPTION,
    { name: 'json', kind: 'boolean', description: 'machine-readable output on stdout' },
    DDL_OPTION,
    { name: 'help', kind: 'boolean', description: 'show help' },
  ],
  ownOptionsOnly: true,
  async run(ctx) {
    if (ctx.args.options.ddl !== undefined) {
      return printLakeDdl(ctx, () => {
        const spec = targetSpecOf(ctx);
        return createTarget(spec, { logger: stderrLogger(ctx.io), lockWaitMs: lockWait(ctx), readOnly: true, env: ctx.io.env, lake: lakeOptionsOf(ctx, spec) });
      });
    }
    if (ctx.args.positionals.length > 0) throw new UsageError(`unexpected argument "${ctx.args.positionals[0]}"; usage: ${this.usage}`);
    const spec = targetSpecOf(ctx);
    const target = createTarget(spec, { logger: stderrLogger(ctx.io), lockWaitMs: lockWait(ctx), readOnly: true, env: ctx.io.env, lake: lakeOptionsOf(ctx, spec) });
    let states: SyncState[];
    await target.open(ctx.io.interrupt);
    try {
      states = await target.listStates();
    } finally {
      await target.close();
    }
    // a row from before sources were recorded has none until its next sync: null in JSON
    const rows = states.map(({ schema: _schema, source, ...rest }) => ({ ...rest, source: source ?? null }));
    if (ctx.args.options.json) {
      printJson(ctx, { target: target.label, tables: rows });
    } else if (rows.length === 0) {
      printLines(ctx.io.stderr, [`dq: no table has been synced to ${target.label} yet.`]);
    } else {
      printLines(
        ctx.io.stdout,
        columns(
          rows.map((s) => [
            `${s.namespace}.${s.table}`,
            s.point,
            `${s.rows.toLocaleString('en-US')} rows`,
            `schema v${s.schemaVersion}`,
            `ran ${s.ranAt}`,
            s.source === null ? 'source not recorded yet' : `from ${s.source}`,
          ]),
        ),
      );
    }
    return EXIT.ok;
  },
};

function targetSpecOf(ctx: CommandContext): TargetSpec {
  // sync-status takes no global options, so the environment is read here for it; set but
  // empty counts as unset, as for every variable dq reads
  const given = (ctx.args.options.to as string | undefined) ?? (ctx.io.env.DQ_SYNC_TARGET || undefined);
  // a leading `~` of a file path is the home folder (no shell expands `--to=~/s.duckdb`)
  return parseTargetSpec(given === undefined ? undefined : expandTargetHome(given, ctx.io.env), { cwd: ctx.io.cwd, env: ctx.io.env });
}

/** --s3-endpoint, --retain-files and --compact, for an s3:// target only; --allow-insecure-http reaches its store. */
function lakeOptionsOf(ctx: CommandContext, spec: TargetSpec): TargetDeps['lake'] {
  const o = ctx.args.options;
  if (spec.kind !== 'lake') {
    const given = ['s3-endpoint', 'retain-files', 'compact'].find((name) => o[name] !== undefined && o[name] !== false);
    if (given) throw new UsageError(`--${given} is for an s3://bucket/prefix target, and the target is ${spec.label}`);
    return undefined;
  }
  const hours = o['retain-files'];
  if (hours !== undefined && (typeof hours !== 'number' || !Number.isFinite(hours) || hours < 0 || hours > 8760)) {
    throw new UsageError(`--retain-files must be a number of hours from 0 to 8760 (got ${String(hours)})`);
  }
  return {
    endpoint: o['s3-endpoint'] === undefined ? undefined : String(o['s3-endpoint']),
    retainHours: hours as number | undefined,
    compact: o.compact === true,
    // sync-status reads no environment through its options: DQ_ALLOW_INSECURE_HTTP is read here for it
    allowInsecureHttp: o['allow-insecure-http'] === true || (o['allow-insecure-http'] === undefined && /^(1|true|yes|on)$/i.test(ctx.io.env.DQ_ALLOW_INSECURE_HTTP ?? '')),
  };
}

function lockWait(ctx: CommandContext): number | undefined {
  const seconds = ctx.args.options['lock-wait'];
  if (seconds === undefined) return undefined;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0 || seconds > 86_400) {
    throw new UsageError(`--lock-wait must be a number of seconds from 0 to 86400 (got ${String(seconds)})`);
  }
  return seconds * 1000;
}

/**
 * The rate limits of --rate-limits (or DQ_RATE_LIMITS): `createJob=20,listTables=20`, or the
 * JSON object the editor's dataQuery.rateLimits setting holds. Undefined when not given.
 */
export function parseRateLimits(text: string, option = '--rate-limits'): RateLimits | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const known = `${OPERATIONS.slice(0, -1).join(', ')} or ${OPERATIONS[OPERATIONS.length - 1]}`;
  const form = 'write it as createJob=20,listTables=20 or {"createJob":20,"listTables":20}';
  let entries: [string, unknown][];
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new UsageError(`${option} is not valid JSON; ${form}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${option} must be an object of calls a minute per operation; ${form}`);
    entries = Object.entries(parsed);
  } else {
    entries = trimmed.split(',').map((part) => {
      const m = /^\s*([A-Za-z]+)\s*=\s*(\S*)\s*$/.exec(part);
      if (!m) throw new UsageError(`${option}: cannot read "${part.trim()}"; ${form}`);
      return [m[1], /^\d+$/.test(m[2]) ? Number(m[2]) : m[2]];
    });
  }
  const limits: RateLimits = {};
  for (const [name, value] of entries) {
    if (!(OPERATIONS as readonly string[]).includes(name)) throw new UsageError(`${option}: unknown operation "${name}"; the operations are ${known}`);
    const op = name as Operation;
    if (limits[op] !== undefined) throw new UsageError(`${option}: ${op} is given twice`);
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new UsageError(`${option}: ${op} must be a whole number of calls a minute, at least 1 (got ${JSON.stringify(value)})`);
    }
    limits[op] = value;
  }
  return Object.keys(limits).length > 0 ? limits : undefined;
}

function rateLimitsOf(ctx: CommandContext): RateLimits | undefined {
  const value = ctx.args.options['rate-limits'];
  if (value === undefined) return undefined;
  return parseRateLimits(String(value), ctx.args.given.has('rate-limits') ? '--rate-limits' : 'DQ_RATE_LIMITS');
}

function whole(value: unknown, option: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${option} must be a whole number from ${min} to ${max} (got ${String(value)})`);
  return n;
}

/** One progress line for a stage worth telling; undefined for the rest. */
export function progressText(p: SyncProgress, now = Date.now()): string | undefined {
  const name = `${p.namespace}.${p.table}`;
  switch (p.stage) {
    case 'queued':
      return p.startsAt === undefined ? undefined : `${name}: queued, starts in ${formatDuration(p.startsAt - now)}`;
    case 'querying':
      return `${name}: querying`;
    case 'downloading':
      return `${name}: downloading ${formatBytes(p.bytes ?? 0)}`;
    case 'applying':
      return `${name}: applying`;
    case 'done':
      return p.report ? `${name}: ${p.report.outcome}` : undefined;
  }
}

function formatReports(reports: TableSyncReport[]): string[] {
  return columns(
    reports.map((r) => {
      const name = `${r.namespace}.${r.table}`;
      if (r.outcome === 'failed' && r.error) return [name, 'failed', failureText(r)];
      if (r.outcome === 'cancelled') return [name, 'cancelled', r.point ? `kept at ${r.point}` : 'nothing synced yet'];
      return [
        name,
        r.outcome,
        r.kind ?? '',
        `${r.upserted.toLocaleString('en-US')} upserted`,
        `${r.deleted.toLocaleString('en-US')} deleted`,
        r.rows === undefined ? '' : `${r.rows.toLocaleString('en-US')} rows`,
        r.point ? `at ${r.point}` : '',
        `${r.seconds.toFixed(1)} s`,
      ];
    }),
  );
}

/** Why a table did not sync and what to do: its error's kind, message, hint and uuid. */
function failureText(r: TableSyncReport): string {
  if (!r.error) return 'failed';
  const advice = [r.error.message, r.error.hint, r.error.uuid ? `(uuid ${r.error.uuid})` : ''].filter(Boolean).join(' ');
  return `${r.error.kind}: ${advice}`;
}

/** Rows of cells as aligned columns; a row's last cell is never padded. */
function columns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.slice(0, -1).forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]) : cell)).join('  ').trimEnd());
}

/**
 * 0 when every table synced or had nothing new; 130 when the run was interrupted. Otherwise, of
 * one table, its failure's code as dq query gives it; of several, 10 when some did not sync
 * (the others did) and 11 when not one did.
 */
export function exitCodeOf(reports: readonly TableSyncReport[]): number {
  if (reports.some((r) => r.outcome === 'cancelled')) return EXIT.interrupted;
  const failed = reports.filter((r) => r.outcome === 'failed');
  if (failed.length === 0) return EXIT.ok;
  if (reports.length === 1) return exitCodeFor(new DqError((failed[0].error?.kind ?? 'server') as ErrorKind, failed[0].error?.message ?? '')) ?? EXIT.service;
  return failed.length === reports.length ? EXIT.allTablesFailed : EXIT.someTablesFailed;
}

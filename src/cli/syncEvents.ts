// `dq sync --log-format json`: what the sync does, as one JSON object per line on stderr, for
// the log system a cron job's output goes to. Every line has `time` (ISO, UTC) and `level`;
// a table's lines have `table` (namespace.table) and `stage`:
//   wait      held back by the create-job limit: `startsAt`, `waitSeconds`
//   job       its query job is being made and run
//   download  its files are downloading: `bytes` so far, `job` (at most one line per table every 5 s)
//   apply     its files are being applied to the target: `bytes`, `job`
//   done      synced or unchanged: `outcome`, `mode` (snapshot or changes), `rows`, `upserted`,
//             `deleted`, `point`, `schemaVersion`, `seconds`, `job`
//   failed    `error` {kind, message, hint, uuid, reason}, `needsResnapshot`, `rows` and `point` kept,
//             `seconds`, `job` when one was made (level error)
//   cancelled stopped by Ctrl-C or SIGTERM: `point` kept, `seconds` (level warn)
// and at the end one `summary` line: `target`, `tables`, `synced`, `unchanged`, `failed`,
// `cancelled`, `message`. Warnings (and, with DQ_DEBUG=1, the rest of the log) are lines with a
// `message`, and `table` where they speak of one. A failure of the whole run (the namespace
// cannot be listed, the target cannot be opened) is a `failed` line without `table`.

import { DqError, isCancelled } from '../client/errors';
import { redact } from '../core/logger';
import { SchemaError } from '../core/schema';
import type { SyncProgress, TableSyncReport } from '../sync/syncReport';
import { UsageError, type OptionSpec } from './argParser';
import { forCommandLine } from './cliHints';
import type { CliIo } from './cliIo';
import { EXIT, exitCodeFor } from './exitCodes';
import { JsonLog } from './jsonLog';
import { isOutputClosed } from './outputStreams';

export type LogFormat = 'text' | 'json';

export const LOG_FORMAT_OPTION: OptionSpec = {
  name: 'log-format',
  kind: 'string',
  valueName: 'FORMAT',
  description: 'what stderr gets: text lines for a person (default), or json: one JSON object per line for a log system (time, level, table, stage, rows, seconds, error)',
};

/** The --log-format value, or a usage error naming the two there are. */
export function logFormatOf(value: unknown): LogFormat {
  if (value === undefined || value === 'text' || value === 'json') return value ?? 'text';
  throw new UsageError(`--log-format must be text or json (got ${JSON.stringify(value)})`);
}

/** Download lines of a table are at most this far apart. */
const DOWNLOAD_EVERY_MS = 5000;

export class SyncEventLog {
  readonly log: JsonLog;
  private readonly lastDownload = new Map<string, number>();
  private readonly bytes = new Map<string, number>();
  private readonly jobs = new Map<string, string>();

  constructor(
    out: CliIo['stderr'],
    private readonly namespace: string,
    private readonly now: () => number = Date.now,
  ) {
    this.log = new JsonLog(out, now, namespace);
  }

  progress(p: SyncProgress): void {
    const table = `${p.namespace}.${p.table}`;
    if (p.job) this.jobs.set(p.table, p.job);
    if (p.bytes !== undefined) this.bytes.set(p.table, p.bytes);
    const job = this.jobs.get(p.table);
    switch (p.stage) {
      case 'queued':
        // every table is queued at the start; only a wait for the limit is worth a line
        if (p.startsAt === undefined) return;
        this.log.write({ level: 'info', table, stage: 'wait', startsAt: new Date(p.startsAt).toISOString(), waitSeconds: Math.max(0, Math.ceil((p.startsAt - this.now()) / 1000)) });
        return;
      case 'querying':
        this.log.write({ level: 'info', table, stage: 'job' });
        return;
      case 'downloading': {
        const now = this.now();
        if (now - (this.lastDownload.get(p.table) ?? -Infinity) < DOWNLOAD_EVERY_MS) return;
        this.lastDownload.set(p.table, now);
        this.log.write({ level: 'info', table, stage: 'download', bytes: p.bytes ?? 0, job });
        return;
      }
      case 'applying':
        this.log.write({ level: 'info', table, stage: 'apply', bytes: this.bytes.get(p.table), job });
        return;
      case 'done':
        if (p.report) this.report(p.report, job);
        return;
    }
  }

  private report(r: TableSyncReport, job: string | undefined): void {
    const table = `${r.namespace}.${r.table}`;
    if (r.outcome === 'failed') {
      const error = r.error && { kind: r.error.kind, message: redact(r.error.message), hint: r.error.hint && redact(r.error.hint), uuid: r.error.uuid, reason: r.error.reason };
      this.log.write({ level: 'error', table, stage: 'failed', error, needsResnapshot: r.needsResnapshot, rows: r.rows, point: r.point, seconds: r.seconds, job });
    } else if (r.outcome === 'cancelled') {
      this.log.write({ level: 'warn', table, stage: 'cancelled', rows: r.rows, point: r.point, seconds: r.seconds, job });
    } else {
      this.log.write({
        level: 'info',
        table,
        stage: 'done',
        outcome: r.outcome,
        mode: r.kind,
        rows: r.rows,
        upserted: r.upserted,
        deleted: r.deleted,
        point: r.point,
        schemaVersion: r.schemaVersion,
        seconds: r.seconds,
        job,
      });
    }
  }

  /** The last line: how many tables ended how, and where. */
  summary(reports: readonly TableSyncReport[], target: string, seconds: number): void {
    const count = (outcome: TableSyncReport['outcome']): number => reports.filter((r) => r.outcome === outcome).length;
    const notSynced = count('failed') + count('cancelled');
    const message =
      notSynced > 0
        ? `${notSynced} of ${reports.length} tables did not sync; ${target} keeps their last complete sync.`
        : `${reports.length} of ${reports.length} tables synced to ${target}.`;
    this.log.write({
      level: count('failed') > 0 ? 'error' : notSynced > 0 ? 'warn' : 'info',
      stage: 'summary',
      namespace: this.namespace,
      target,
      tables: reports.length,
      synced: count('synced'),
      unchanged: count('unchanged'),
      failed: count('failed'),
      cancelled: count('cancelled'),
      seconds,
      message,
    });
  }

  /**
   * A failure of the whole run as a `failed` line (or a `cancelled` one), and the exit code dq
   * gives it in text mode; nothing when nobody reads the output any more.
   */
  failure(thrown: unknown, io: CliIo): number {
    if (isCancelled(thrown) || io.interrupt.aborted) {
      if (!isOutputClosed(io.interrupt.reason)) this.log.write({ level: 'warn', stage: 'cancelled', message: 'The sync was cancelled; the target keeps the last complete sync of every table.' });
      return EXIT.interrupted;
    }
    if (thrown instanceof UsageError) {
      this.log.write({ level: 'error', stage: 'failed', error: { kind: 'usage', message: redact(thrown.message) } });
      return EXIT.usage;
    }
    const err = thrown instanceof SchemaError ? new DqError(thrown.kind, thrown.message) : thrown;
    const stack = io.env.DQ_DEBUG === '1' && err instanceof Error && err.stack ? redact(err.stack) : undefined;
    if (err instanceof DqError) {
      const e = forCommandLine(err);
      const error = { kind: e.kind, message: redact(e.message), hint: e.hint && redact(e.hint), uuid: e.uuid, status: e.status, type: e.type, stack };
      this.log.write({ level: 'error', stage: 'failed', error });
      return exitCodeFor(err);
    }
    const raw = err as NodeJS.ErrnoException;
    const what = raw && typeof raw.code === 'string' && raw.syscall ? `cannot ${raw.syscall} ${raw.path ?? ''}`.trim() + ` (${raw.code})` : String(raw?.message ?? err);
    this.log.write({ level: 'error', stage: 'failed', error: { kind: 'internal', message: redact(what), hint: 'Set DQ_DEBUG=1 for details.', stack } });
    return EXIT.service;
  }
}

// The words the editor uses for syncs: the stage of each table in the progress notification,
// the summary at the end, and the mark of a synced table in the explorer. Pure functions of
// progress events, reports and the time, so every place says the same thing.

import { formatBytes } from '../../core/byteSize';
import { formatAge, formatDuration } from '../../core/durationText';
import { formatPoint } from '../../jobs/statusTexts';
import type { SyncProgress, TableSyncReport } from '../../sync/syncReport';

/** What a table's mark in the tree is made from: its meta-table row. */
export interface SyncedTableState {
  point: string;
  rows: number;
  schemaVersion?: number;
  /** when the run finished (ISO) */
  ranAt?: string;
  /** the service the rows came from, as the meta table records it */
  source?: string;
}

const MAX_TABLES_SHOWN = 2;
const MAX_FAILURES_SHOWN = 3;

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** `queued, starts in 23 s`, `downloading 12 MiB of 40 MiB`, `applying`, `synced: 1,234 rows` */
export function stageText(p: SyncProgress, now: number): string {
  switch (p.stage) {
    case 'queued':
      return p.startsAt !== undefined && p.startsAt > now ? `queued, starts in ${formatDuration(p.startsAt - now)}` : 'queued';
    case 'querying':
      return 'query running at the service';
    case 'downloading':
      if (p.bytes === undefined) return 'downloading';
      return p.totalBytes ? `downloading ${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)}` : `downloading ${formatBytes(p.bytes)}`;
    case 'applying':
      return 'applying';
    case 'done':
      return p.report ? outcomeText(p.report) : 'done';
  }
}

/** `canvas.users: downloading 12 MiB` */
export function progressLine(p: SyncProgress, now: number): string {
  return `${p.namespace}.${p.table}: ${stageText(p, now)}`;
}

/** The one line of a progress notification: how many tables are done, and the stage of those that are not. */
export function runMessage(progress: readonly SyncProgress[], now: number): string {
  const done = progress.filter((p) => p.stage === 'done');
  const active = progress.filter((p) => p.stage !== 'done');
  const parts: string[] = [];
  if (progress.length > 1) parts.push(`${done.length} of ${progress.length} done`);
  parts.push(...active.slice(0, MAX_TABLES_SHOWN).map((p) => progressLine(p, now)));
  if (active.length > MAX_TABLES_SHOWN) parts.push(`${active.length - MAX_TABLES_SHOWN} more waiting`);
  if (active.length === 0 && done.length === 1) parts.push(progressLine(done[0], now));
  return parts.join(' · ');
}

/** What one run did to one table. */
export function outcomeText(r: TableSyncReport): string {
  switch (r.outcome) {
    case 'synced': {
      const rows = r.rows === undefined ? '' : `, ${plural(r.rows, 'row')} now`;
      return r.kind === 'snapshot' ? `loaded a snapshot${rows}` : `${count(r.upserted)} upserted, ${count(r.deleted)} deleted${rows}`;
    }
    case 'unchanged':
      return 'unchanged';
    case 'cancelled':
      return 'cancelled, left as it was';
    case 'failed':
      return `failed: ${failureReason(r)}`;
  }
}

/** A failed table's reason as a person acts on it: the message, what to do, the uuid for support. */
export function failureReason(r: TableSyncReport): string {
  const e = r.error;
  if (!e) return r.needsResnapshot ? 'it needs a fresh snapshot' : 'no reason was given';
  return [e.message.replace(/\.?$/, '.'), e.hint, e.uuid ? `(uuid ${e.uuid})` : undefined].filter(Boolean).join(' ');
}

/**
 * The notification at the end of a run: `5 tables to /data/sync.duckdb: 3 synced, 1 unchanged,
 * 1 failed. canvas.quizzes failed: ...`; a single table says its rows and point instead.
 */
export function summaryText(reports: readonly TableSyncReport[], targetLabel: string): string {
  if (reports.length === 0) return `there was no table to sync to ${targetLabel}.`;
  if (reports.length === 1) {
    const r = reports[0];
    const point = r.point && r.outcome !== 'failed' && r.outcome !== 'cancelled' ? `, data as of ${formatPoint(r.point)}` : '';
    return `${r.namespace}.${r.table} to ${targetLabel}: ${outcomeText(r)}${point}.`.replace(/\.\.$/, '.');
  }
  const counts = (['synced', 'unchanged', 'failed', 'cancelled'] as const)
    .map((outcome) => ({ outcome, n: reports.filter((r) => r.outcome === outcome).length }))
    .filter((c) => c.n > 0)
    .map((c) => `${count(c.n)} ${c.outcome}`);
  const failed = reports.filter((r) => r.outcome === 'failed');
  const reasons = failed.slice(0, MAX_FAILURES_SHOWN).map((r) => `${r.namespace}.${r.table} failed: ${failureReason(r)}`);
  if (failed.length > MAX_FAILURES_SHOWN) reasons.push(`${failed.length - MAX_FAILURES_SHOWN} more failed (see the log).`);
  return [`${reports.length} tables to ${targetLabel}: ${counts.join(', ')}.`, ...reasons].join(' ');
}

/** `synced 2026-11-24 08:00, 1,234 rows`: the explorer's description of a synced table. */
export function syncedMarkText(state: SyncedTableState): string {
  return `synced ${formatPoint(state.point).replace(/ UTC$/, '')}, ${plural(state.rows, 'row')}`;
}

/** The tooltip paragraph of a synced table. */
export function syncedTooltipText(state: SyncedTableState, targetLabel: string, now: number): string {
  const facts = [`Synced to ${targetLabel}${state.source ? ` from ${state.source}` : ''}: data as of ${formatPoint(state.point)}, ${plural(state.rows, 'row')}`];
  if (state.schemaVersion !== undefined) facts.push(`schema version ${state.schemaVersion}`);
  const ranAt = state.ranAt ? Date.parse(state.ranAt) : NaN;
  if (!Number.isNaN(ranAt)) facts.push(`last run ${formatAge(ranAt, now)}`);
  return `${facts.join(', ')}.`;
}

// The words the Jobs view, the status bar and notifications use for jobs and rate budgets.
// Pure functions of an entry and the current time, so every view says the same thing.

import type { BudgetSnapshot } from '../client/types';
import type { Operation } from '../core/contract';
import { dataPoint, isActive, tableName, type JobEntry, type JobFailure, type QueueWait } from './jobEntry';
import { formatBytes } from '../core/byteSize';
import { formatAge, formatDuration } from '../core/durationText';
import { markdownCode, markdownInline } from '../core/markdownText';

const OPERATION_NAMES: Record<Operation, string> = {
  listTables: 'list tables',
  getSchema: 'table schema',
  createJob: 'create job',
  getJob: 'job status',
  createUrls: 'download links',
};

/** `2026-11-20 08:00 UTC` from an ISO time. */
export function formatPoint(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `queued: rate limit, starts in 23 s` */
export function queueText(wait: QueueWait, now: number): string {
  const why = { limit: 'rate limit', paused: 'the service asked to wait', expiring: 'an identical job expires first' }[wait.reason];
  return `queued: ${why}, starts in ${formatDuration(wait.until - now)}`;
}

/** The state in a few words, with the limiter's wait or the download's progress. */
export function stateText(entry: JobEntry, now: number): string {
  if (entry.queue && entry.queue.until > now && isActive(entry)) {
    return entry.state === 'queued' ? queueText(entry.queue, now) : `${entry.state}, ${queueText(entry.queue, now)}`;
  }
  if (entry.statusTrouble && isActive(entry)) return `${entry.state}, status checks failing, still trying`;
  switch (entry.state) {
    case 'downloading': {
      const p = entry.progress;
      return p ? `downloading ${p.doneFiles} of ${p.totalFiles} files, ${formatBytes(p.bytes)}` : 'downloading';
    }
    case 'complete':
      return entry.download && entry.files.length === 0 && entry.failure ? 'complete, not downloaded' : 'complete';
    case 'failed':
      return entry.failure?.type ? `failed: ${entry.failure.type}` : 'failed';
    default:
      return entry.state;
  }
}

/** `snapshot` or `changes since 2026-11-20 08:00 UTC` */
export function rangeText(entry: JobEntry): string {
  const since = entry.request.since;
  if (!since) return 'snapshot';
  const until = entry.until ?? entry.request.until;
  return `changes since ${formatPoint(since)}${until ? ` to ${formatPoint(until)}` : ''}`;
}

/** One line beside the job in the Jobs view. */
export function jobDescription(entry: JobEntry, now: number): string {
  const point = dataPoint(entry);
  const parts = [entry.request.format, entry.request.since ? 'incremental' : 'snapshot', stateText(entry, now), formatAge(entry.createdAt, now)];
  if (point) parts.push(`data at ${formatPoint(point)}`);
  return parts.join(' · ');
}

/** Markdown tooltip of a job: what was asked, the job id, the failure with its uuid, the files. */
export function jobTooltip(entry: JobEntry, now: number): string {
  const lines = [
    `**${markdownInline(tableName(entry))}** on ${markdownInline(entry.connection)}`,
    '',
    markdownInline(`${entry.request.format}, ${rangeText(entry)}${entry.request.mode ? `, ${entry.request.mode}` : ''}`),
    '',
    `State: ${markdownInline(stateText(entry, now))} (started ${formatAge(entry.createdAt, now)})`,
  ];
  if (entry.jobId) lines.push('', `Job id: ${markdownCode(entry.jobId)}`);
  const point = dataPoint(entry);
  if (point) lines.push('', markdownInline(`Data as of ${formatPoint(point)}`));
  if (entry.expiresAt) lines.push('', markdownInline(`Results kept until ${formatPoint(entry.expiresAt)}`));
  if (entry.statusTrouble && isActive(entry)) {
    lines.push('', `The last status check failed: ${markdownInline(failureText(entry.statusTrouble))} The job goes on at the service; checking again.`);
  }
  const f = entry.failure;
  if (f) {
    const facts = [f.type, f.status === undefined ? undefined : `HTTP ${f.status}`].filter(Boolean).join(', ');
    lines.push('', `**${markdownInline(facts || f.kind)}**: ${markdownInline(f.message)}`);
    if (f.uuid) lines.push('', `Support uuid: ${markdownCode(f.uuid)}`);
    if (f.hint) lines.push('', markdownInline(f.hint));
  }
  if (entry.files.length > 0) {
    lines.push('', `Files (${entry.files.length}):`, '');
    for (const file of entry.files) lines.push(`- ${markdownInline(baseName(file.path))} (${formatBytes(file.bytes)})`);
  }
  return lines.join('\n');
}

/** The one sentence a failure is told in, everywhere: what happened, what to do, the uuid. */
export function failureText(f: JobFailure): string {
  const status = [f.type, f.status === undefined ? undefined : `HTTP ${f.status}`].filter(Boolean).join(', ');
  return [f.message.replace(/\.?$/, '.'), f.hint, status ? `(${status}${f.uuid ? `, uuid ${f.uuid}` : ''})` : f.uuid ? `(uuid ${f.uuid})` : undefined]
    .filter(Boolean)
    .join(' ');
}

/** `create job: 3 of 5 left, next in 12 s` */
export function budgetText(b: BudgetSnapshot): string {
  let text = `${OPERATION_NAMES[b.operation] ?? b.operation}: ${b.remaining} of ${b.limit} left`;
  if (b.remaining === 0 && b.resetInMs > 0) text += `, next in ${formatDuration(b.resetInMs)}`;
  if (b.pausedForMs > 0) text += `, paused by the service for ${formatDuration(b.pausedForMs)}`;
  return text;
}

export interface StatusBarView {
  text: string;
  /** false when there is nothing worth showing */
  visible: boolean;
}

/** `$(sync~spin) 2 jobs, 1 queued` while jobs run; the last result for a moment; then quiet. */
export function statusBarView(entries: readonly JobEntry[], lastResult: JobEntry | undefined): StatusBarView {
  const active = entries.filter(isActive);
  const queued = active.filter((e) => e.state === 'queued').length;
  const running = active.length - queued;
  if (running > 0) {
    return { text: `$(sync~spin) ${plural(running, 'job')}${queued > 0 ? `, ${queued} queued` : ''}`, visible: true };
  }
  if (queued > 0) return { text: `$(watch) ${queued} queued`, visible: true };
  if (lastResult) {
    // a complete job whose download failed or was stopped has no files to show for it
    const icon = lastResult.state !== 'complete' ? '$(error)' : lastResult.failure ? '$(warning)' : '$(check)';
    return { text: `${icon} ${tableName(lastResult)}`, visible: true };
  }
  return { text: '$(database)', visible: entries.length > 0 };
}

export interface ConnectionBudgets {
  connection: string;
  budgets: BudgetSnapshot[];
}

/** Markdown: the running jobs with state and elapsed time, then each connection's budget. */
export function statusBarTooltip(entries: readonly JobEntry[], budgets: readonly ConnectionBudgets[], now: number): string {
  const active = entries.filter(isActive);
  const lines = ['**Data Query**', ''];
  if (active.length === 0) lines.push('No jobs running.');
  for (const e of active) {
    lines.push(`- ${markdownInline(tableName(e))} (${markdownInline(e.connection)}): ${markdownInline(stateText(e, now))}, ${formatDuration(now - e.createdAt)}`);
  }
  for (const c of budgets) {
    // shared: what every window and dq with these credentials has left on this machine
    const whose = c.budgets.some((b) => b.shared) ? 'on this machine' : 'of this window';
    lines.push('', `**${markdownInline(c.connection)}** budget ${whose}, per minute:`, '');
    for (const b of c.budgets) lines.push(`- ${budgetText(b)}`);
  }
  lines.push('', 'Click to show the Jobs view.');
  return lines.join('\n');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}

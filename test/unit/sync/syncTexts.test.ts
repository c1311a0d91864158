import * as assert from 'node:assert/strict';
import { outcomeText, runMessage, stageText, summaryText, syncedMarkText, syncedTooltipText } from '../../../src/extension/sync/syncTexts';
import type { SyncProgress, TableSyncReport } from '../../../src/sync/syncReport';

const NOW = Date.parse('2026-11-24T09:00:00Z');
const MIB = 1024 * 1024;

function progress(table: string, stage: SyncProgress['stage'], more: Partial<SyncProgress> = {}): SyncProgress {
  return { namespace: 'canvas', table, stage, ...more };
}

function report(table: string, outcome: TableSyncReport['outcome'], more: Partial<TableSyncReport> = {}): TableSyncReport {
  return { namespace: 'canvas', table, outcome, upserted: 0, deleted: 0, seconds: 1, ...more };
}

describe('sync texts', () => {
  it('says the stage of each table: queued with its wait, the job, bytes downloaded, applying', () => {
    assert.equal(stageText(progress('users', 'queued', { startsAt: NOW + 22_400 }), NOW), 'queued, starts in 23 s');
    assert.equal(stageText(progress('users', 'queued', { startsAt: NOW - 1 }), NOW), 'queued');
    assert.equal(stageText(progress('users', 'querying'), NOW), 'query running at the service');
    assert.equal(stageText(progress('users', 'downloading', { bytes: 12 * MIB }), NOW), 'downloading 12 MiB');
    assert.equal(stageText(progress('users', 'downloading', { bytes: 3.5 * MIB, totalBytes: 40 * MIB }), NOW), 'downloading 3.5 MiB of 40 MiB');
    assert.equal(stageText(progress('users', 'applying'), NOW), 'applying');
  });

  it('puts a namespace\'s run in one line: tables done, the stages of two, how many more wait', () => {
    const run = [
      progress('accounts', 'done', { report: report('accounts', 'synced') }),
      progress('users', 'queued', { startsAt: NOW + 23_000 }),
      progress('courses', 'downloading', { bytes: 12 * MIB }),
      progress('enrollments', 'queued'),
      progress('quizzes', 'queued'),
    ];
    assert.equal(runMessage(run, NOW), '1 of 5 done · canvas.users: queued, starts in 23 s · canvas.courses: downloading 12 MiB · 2 more waiting');
    assert.equal(runMessage([progress('users', 'applying')], NOW), 'canvas.users: applying');
  });

  it('says what a run did to a table', () => {
    assert.equal(outcomeText(report('users', 'synced', { kind: 'snapshot', upserted: 1234, rows: 1234 })), 'loaded a snapshot, 1,234 rows now');
    assert.equal(outcomeText(report('users', 'synced', { kind: 'changes', upserted: 12, deleted: 3, rows: 1243 })), '12 upserted, 3 deleted, 1,243 rows now');
    assert.equal(outcomeText(report('users', 'unchanged')), 'unchanged');
    assert.equal(outcomeText(report('users', 'cancelled')), 'cancelled, left as it was');
    const failed = report('users', 'failed', { error: { kind: 'jobFailed', message: 'The job failed', hint: 'Run it again later.', uuid: 'u-42' } });
    assert.equal(outcomeText(failed), 'failed: The job failed. Run it again later. (uuid u-42)');
  });

  it('sums up a run: one table with its rows and point, several with counts and each failure\'s reason', () => {
    const one = report('users', 'synced', { kind: 'snapshot', upserted: 5, rows: 5, point: '2026-11-24T08:00:00Z' });
    assert.equal(summaryText([one], '/data/sync.duckdb'), 'canvas.users to /data/sync.duckdb: loaded a snapshot, 5 rows now, data as of 2026-11-24 08:00 UTC.');
    const stale = report('quizzes', 'failed', { needsResnapshot: true, error: { kind: 'snapshotRequired', message: 'The schema changed: column "title" was removed', hint: 'Choose Resnapshot.' } });
    const text = summaryText([one, report('courses', 'unchanged'), stale], '/data/sync.duckdb');
    assert.equal(text, '3 tables to /data/sync.duckdb: 1 synced, 1 unchanged, 1 failed. canvas.quizzes failed: The schema changed: column "title" was removed. Choose Resnapshot.');
    assert.equal(summaryText([], 'x'), 'there was no table to sync to x.');
  });

  it('marks a synced table with its point and rows, and says more in the tooltip', () => {
    const state = { point: '2026-11-24T08:00:00Z', rows: 1234, schemaVersion: 3, ranAt: '2026-11-24T08:55:00Z' };
    assert.equal(syncedMarkText(state), 'synced 2026-11-24 08:00, 1,234 rows');
    assert.equal(syncedMarkText({ point: '2026-11-24T08:00:00Z', rows: 1 }), 'synced 2026-11-24 08:00, 1 row');
    assert.equal(syncedTooltipText(state, '/data/sync.duckdb', NOW), 'Synced to /data/sync.duckdb: data as of 2026-11-24 08:00 UTC, 1,234 rows, schema version 3, last run 5 min ago.');
    assert.equal(
      syncedTooltipText({ ...state, source: 'https://api.example.com/dap' }, '/data/sync.duckdb', NOW),
      'Synced to /data/sync.duckdb from https://api.example.com/dap: data as of 2026-11-24 08:00 UTC, 1,234 rows, schema version 3, last run 5 min ago.',
      'the service the rows came from',
    );
  });
});

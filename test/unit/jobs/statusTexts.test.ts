import * as assert from 'node:assert/strict';
import type { JobEntry } from '../../../src/jobs/jobEntry';
import { budgetText, failureText, jobDescription, jobTooltip, queueText, statusBarTooltip, statusBarView } from '../../../src/jobs/statusTexts';

const NOW = Date.parse('2026-11-20T09:00:00Z');

function entry(patch: Partial<JobEntry> = {}): JobEntry {
  return {
    key: 'k',
    connection: 'Sample data',
    namespace: 'canvas',
    table: 'users',
    request: { format: 'csv' },
    state: 'running',
    createdAt: NOW - 5 * 60_000,
    updatedAt: NOW,
    download: true,
    files: [],
    ...patch,
  };
}

describe('status texts', () => {
  it('says how long a query held back by the rate limit waits', () => {
    assert.equal(queueText({ operation: 'createJob', reason: 'limit', until: NOW + 22_400 }, NOW), 'queued: rate limit, starts in 23 s');
    const queued = entry({ state: 'queued', queue: { operation: 'createJob', reason: 'paused', until: NOW + 120_000 } });
    assert.match(jobDescription(queued, NOW), /queued: the service asked to wait, starts in 2 min/);
    assert.equal(queueText({ operation: 'createJob', reason: 'expiring', until: NOW + 22_000 }, NOW), 'queued: an identical job expires first, starts in 22 s');
  });

  it('describes a finished job with its format, kind, age and data freshness', () => {
    const done = entry({ state: 'complete', at: '2026-11-20T08:00:00Z' });
    assert.equal(jobDescription(done, NOW), 'csv · snapshot · complete · 5 min ago · data at 2026-11-20 08:00 UTC');
    const incremental = entry({ request: { format: 'jsonl', since: '2026-11-19T08:00:00Z' }, state: 'downloading', progress: { bytes: 3 * 1024 * 1024, doneFiles: 1, totalFiles: 4 } });
    assert.equal(jobDescription(incremental, NOW), 'jsonl · incremental · downloading 1 of 4 files, 3.0 MiB · 5 min ago');
  });

  it('puts the server\'s error type and uuid of a failed job in its tooltip', () => {
    const failed = entry({ state: 'failed', jobId: 'job-7', failure: { kind: 'jobFailed', message: 'Job job-7 failed: disk', type: 'JobFailed', uuid: 'u-123', hint: 'Run it again.' } });
    const tip = jobTooltip(failed, NOW);
    assert.match(tip, /Job id: `job-7`/);
    assert.match(tip, /\*\*JobFailed\*\*/);
    assert.match(tip, /Support uuid: `u-123`/);
    assert.match(jobDescription(failed, NOW), /failed: JobFailed/);
  });

  it('shows a spinner and the count while jobs run, queued ones counted apart, then the last result', () => {
    const running = [entry({ key: 'a' }), entry({ key: 'b', state: 'downloading' }), entry({ key: 'c', state: 'queued' }), entry({ key: 'd', state: 'complete' })];
    assert.deepEqual(statusBarView(running, undefined), { text: '$(sync~spin) 2 jobs, 1 queued', visible: true });
    assert.deepEqual(statusBarView([entry({ state: 'queued' })], undefined), { text: '$(watch) 1 queued', visible: true });
    const done = entry({ state: 'complete' });
    assert.deepEqual(statusBarView([done], done), { text: '$(check) canvas.users', visible: true });
    // the query completed but its files never arrived: no check mark for it
    const notDownloaded = entry({ state: 'complete', download: true, files: [], failure: { kind: 'io', message: 'The disk is full.' } });
    assert.deepEqual(statusBarView([notDownloaded], notDownloaded), { text: '$(warning) canvas.users', visible: true });
    assert.equal(statusBarView([], undefined).visible, false);
  });

  it('lists running jobs and the remaining budget per connection in the status bar tooltip', () => {
    const budget = { operation: 'createJob' as const, limit: 5, remaining: 0, resetInMs: 11_200, pausedForMs: 0 };
    assert.equal(budgetText(budget), 'create job: 0 of 5 left, next in 12 s');
    assert.equal(budgetText({ ...budget, remaining: 3 }), 'create job: 3 of 5 left');
    const tip = statusBarTooltip([entry()], [{ connection: 'Sample data', budgets: [budget] }], NOW);
    assert.match(tip, /canvas\.users \(Sample data\): running, 5 min/);
    assert.match(tip, /create job: 0 of 5 left, next in 12 s/);
    assert.match(tip, /\*\*Sample data\*\* budget of this window, per minute:/, 'a budget this window counts alone says so');
    const shared = statusBarTooltip([entry()], [{ connection: 'Sample data', budgets: [{ ...budget, remaining: 3, shared: true }] }], NOW);
    assert.match(shared, /\*\*Sample data\*\* budget on this machine, per minute:\n\n- create job: 3 of 5 left\n/, 'the machine\'s budget, shared by every window and dq');
  });

  it('tells a failure in one sentence with the next step and the uuid for support', () => {
    const text = failureText({ kind: 'snapshotRequired', message: 'since is older than the retained history', hint: 'Run a snapshot instead.', status: 400, type: 'SnapshotRequired', uuid: 'u-9' });
    assert.equal(text, 'since is older than the retained history. Run a snapshot instead. (SnapshotRequired, HTTP 400, uuid u-9)');
  });
});

describe('job tooltips with hostile text from the service', () => {
  const hostile = entry({
    state: 'failed',
    jobId: 'job`\n\n# Injected heading',
    failure: {
      kind: 'jobFailed',
      type: '**Urgent** [Open](command:workbench.action.terminal.new) <img src=x onerror=alert(1)>',
      message: 'failed\n\n- [Fix it](https://evil.example/steal)\n===\x1b]52;c;ZQ==\x07 \u202eexe.txt',
      uuid: 'u`-1\n\n# Uuid heading',
    },
  });
  const tip = jobTooltip(hostile, NOW);

  it('makes no link, heading, list, emphasis or HTML out of the error type, message, job id or uuid', () => {
    assert.doesNotMatch(tip, /(^|[^\\])\[(Open|Fix it)\]/, 'no link can form: its brackets are escaped');
    assert.doesNotMatch(tip, /(^|[^\\])</, 'no HTML tag can start');
    assert.doesNotMatch(tip, /(^|[^\\])\*\*Urgent/, 'the type cannot turn on emphasis of its own');
    assert.ok(!tip.split('\n').some((line) => /^\s*(#|- \[|===)/.test(line)), `no line of the service's text starts a block:\n${tip}`);
    assert.match(tip, /\*\*\\\*\\\*Urgent\\\*\\\* \\\[Open\\\]\(command:workbench\.action\.terminal\.new\) \\<img src=x onerror=alert\(1\)\\>\*\*/);
  });

  it('shows line breaks and control characters as escapes, and keeps ids inside their code spans', () => {
    assert.doesNotMatch(tip, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/, 'no raw control character');
    assert.match(tip, /\\\\x1b\\\]52;c;ZQ==\\\\x07/);
    assert.match(tip, /\\\\u202eexe\.txt/);
    assert.match(tip, /Job id: `job'\\n\\n# Injected heading`/);
    assert.match(tip, /Support uuid: `u'-1\\n\\n# Uuid heading`/);
  });
});

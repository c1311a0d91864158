// One rate budget for every process on the machine that uses the same credentials: real dq
// processes and a client in this process, against one emulator that enforces the service's
// limit (5 job creations a minute), share one state folder. Together they create more jobs
// than one minute allows, draw no 429 and never start more than 5 in any minute. A process
// killed while it holds the ledger's lock does not stop the others. These tests wait on the
// service's real minute.

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { LEDGER_LOCK_STALE_MS } from '../../../src/client/rateLedger';
import { rateLedgerFile } from '../../../src/client/rateLedgerFolder';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { RequestLogEntry } from '../../../src/emulator/requestLog';
import { busiestWindow } from '../../support/rateWindows';

const MAIN = path.resolve(__dirname, '../../../src/cli/main.js');
const MINUTE = 60_000;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Date.now() when it ended */
  endedAt: number;
}

function dqProcess(argv: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, [MAIN, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Finished>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr, endedAt: Date.now() })));
  return { child, done };
}

function createJobs(log: RequestLogEntry[]): RequestLogEntry[] {
  return log.filter((e) => e.operation === 'createJob');
}

describe('one rate budget for every process on the machine', function () {
  this.timeout(180_000);
  let emu: RunningEmulator;
  let tmp: string;
  let state: string;
  let env: NodeJS.ProcessEnv;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    // the service's limits, enforced: 5 job creations a minute per credential
    emu = await startEmulator({ jobDelayMs: 200 });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-shared-budget-'));
    state = path.join(tmp, 'state');
    env = {
      PATH: process.env.PATH,
      HOME: tmp,
      TMPDIR: tmp,
      DQ_STATE_DIR: state,
      DQ_BASE_URL: emu.baseUrl,
      DQ_DATA_PREFIX: emu.dataPrefix,
      DQ_CLIENT_ID: emu.clientId,
      DQ_CLIENT_SECRET: emu.clientSecret,
    };
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await emu.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('two dq syncs and a client in this process create 9 jobs: no 429, never more than 5 in a minute', async () => {
    const started = Date.now();
    const syncA = dqProcess(['sync', 'canvas', 'accounts', 'users', 'courses', '--to', path.join(tmp, 'a.duckdb'), '--json'], env);
    const syncB = dqProcess(['sync', 'canvas', 'enrollments', 'assignments', 'submissions', '--to', path.join(tmp, 'b.duckdb'), '--json'], env);
    children.push(syncA.child, syncB.child);
    const client = new DataQueryClient({
      baseUrl: emu.baseUrl,
      dataPrefix: emu.dataPrefix,
      credentials: async () => ({ clientId: emu.clientId, clientSecret: emu.clientSecret }),
      sharedBudgetFolder: state,
    });
    let shared: boolean | undefined;
    try {
      const editorJobs = Promise.all(
        [
          ['canvas', 'quizzes'],
          ['catalog', 'products'],
          ['catalog', 'orders'],
        ].map(([namespace, table]) => client.runJob(namespace, table, { format: 'jsonl' })),
      );
      const [jobs, a, b] = await Promise.all([editorJobs, syncA.done, syncB.done]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(b.code, 0, b.stderr);
      assert.deepEqual(jobs.map((j) => j.status), ['complete', 'complete', 'complete']);
      shared = client.budgets().find((s) => s.operation === 'createJob')?.shared;
    } finally {
      await client.close();
    }
    const log = emu.requestLog.entries();
    const refused = log.filter((e) => e.status === 429);
    assert.deepEqual(refused.map((e) => `${e.operation} at +${e.time - started} ms`), [], 'the service never had to refuse a call');
    const created = createJobs(log);
    assert.equal(created.length, 9);
    assert.ok(created.every((e) => e.status === 200 || e.status === 202));
    assert.equal(busiestWindow(created.map((e) => e.time), MINUTE), 5, 'the machine kept to the limit in every minute');
    assert.equal(shared, true, 'the client\'s status shows the machine\'s budget');
  });

  it('a state folder that cannot be made (under /proc) gives one warning, and the query runs counting alone', async function () {
    if (!existsSync('/proc/self')) this.skip();
    // a level that cannot be made although its parent exists: Node's recursive mkdir loops there for ever
    const query = dqProcess(['query', 'canvas', 'accounts', '--no-download', '--json'], { ...env, DQ_STATE_DIR: '/proc/dq-no-such/state' });
    children.push(query.child);
    const killer = setTimeout(() => query.child.kill('SIGKILL'), 30_000);
    const run = await query.done.finally(() => clearTimeout(killer));
    assert.equal(run.code, 0, `dq ended (${run.code}) instead of finishing its query: ${run.stderr}`);
    const warnings = run.stderr.split('\n').filter((line) => /Cannot keep the shared rate budget/.test(line));
    assert.equal(warnings.length, 1, run.stderr);
    assert.match(warnings[0], /\/proc\/dq-no-such\/state .*counts its own calls alone.*DQ_STATE_DIR/);
    assert.equal(createJobs(emu.requestLog.entries()).length, 1);
  });

  it('a process killed while it holds the ledger\'s lock does not stop the others', async () => {
    const ledger = rateLedgerFile(state, emu.baseUrl, emu.clientId);
    await fs.mkdir(state, { recursive: true });
    // another process takes the lock and keeps it fresh, as a live holder does, until it is killed
    const holderScript = `
      const lockfile = require(${JSON.stringify(require.resolve('proper-lockfile'))});
      lockfile.lock(${JSON.stringify(ledger)}, { realpath: false, stale: ${LEDGER_LOCK_STALE_MS}, update: 1000 })
        .then(() => { process.stdout.write('locked\\n'); setInterval(() => undefined, 1000); });`;
    const holder = spawn(process.execPath, ['-e', holderScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(holder);
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: holder.stdout! }).once('line', () => resolve());
      holder.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before locking`)));
    });
    assert.ok(existsSync(`${ledger}.lock`));

    const queries = ['accounts', 'users'].map((table) => dqProcess(['query', 'canvas', table, '--no-download', '--json'], env));
    children.push(...queries.map((q) => q.child));
    await new Promise((r) => setTimeout(r, 2_000));
    assert.deepEqual(createJobs(emu.requestLog.entries()), [], 'nobody goes past a lock its live holder keeps');
    const killedAt = Date.now();
    holder.kill('SIGKILL');

    const finished = await Promise.all(queries.map((q) => q.done));
    for (const run of finished) {
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.endedAt - killedAt < LEDGER_LOCK_STALE_MS + 6_000, `done ${run.endedAt - killedAt} ms after the kill`);
      assert.doesNotMatch(run.stderr, /stayed locked|counts its own calls alone/, 'the stale lock was taken over, not given up on');
    }
    assert.equal(createJobs(emu.requestLog.entries()).length, 2);
    const written = JSON.parse(readFileSync(ledger, 'utf8')) as { operations: { createJob: { starts: unknown[] } } };
    assert.equal(written.operations.createJob.starts.length, 2, 'both starts are in the ledger for every other process');
    assert.ok(!existsSync(`${ledger}.lock`), 'and no lock is left behind');
  });
});

// The machine-wide rate budget as two processes see it: two limiters, each with its own ledger
// object (as in two processes), on one folder and account, with a fake clock for the budget's
// times. The ledger's file and lock are real; only the clock is not.

import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isDqError } from '../../../src/client/errors';
import { OperationLimiter, type RateSlot } from '../../../src/client/operationLimiter';
import { RateLedger } from '../../../src/client/rateLedger';
import { rateLedgerFile, rateLedgerFolder } from '../../../src/client/rateLedgerFolder';
import { DEFAULT_RATE_LIMITS } from '../../../src/core/contract';
import { FakeClock, flushMicrotasks } from '../../support/fakeClock';
import { busiestWindow, seededRandom } from '../../support/rateWindows';
import { tryMountTmpfs, unmount } from '../../support/tmpfsMount';
import { MemoryLogger } from './clientFixture';

const WINDOW = 60_000;
const BASE = 'https://api.example.edu';
const CLIENT = 'client-id-for-ledger-tests';

interface Proc {
  ledger: RateLedger;
  limiter: OperationLimiter;
  logger: MemoryLogger;
}

/** One process's view: its own ledger object and limiter over the shared folder. */
/** Every ledger of the test under way: their writes end before its folder is removed. */
const ledgers: RateLedger[] = [];

function proc(clock: FakeClock, folder: string, createJob = 2, extra: { lockWaitMs?: number } = {}): Proc {
  const logger = new MemoryLogger();
  const ledger = new RateLedger({ folder, baseUrl: BASE, clientId: async () => CLIENT, clock, logger, ...extra });
  ledgers.push(ledger);
  const limiter = new OperationLimiter({ limits: { ...DEFAULT_RATE_LIMITS, createJob }, windowMs: WINDOW, maxPauseMs: 120_000, clock, logger, shared: ledger });
  return { ledger, limiter, logger };
}

const PENDING = Symbol('pending');

/** The promise's value once it settles within `ms` of real time (I/O may be in flight), or PENDING. */
async function within<T>(promise: Promise<T>, ms = 3_000): Promise<T | typeof PENDING> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof PENDING>((resolve) => (timer = setTimeout(() => resolve(PENDING), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits (real time) until `check` holds: the other side's I/O has run. */
async function until(check: () => boolean, what: string, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Takes a slot and reports its answer at once (the call's answer came back now). */
async function startAndAnswer(p: Proc): Promise<RateSlot> {
  const slot = await p.limiter.acquire('createJob');
  slot.answered();
  await p.ledger.idle();
  return slot;
}

/** Lets every process's ledger I/O finish, so that no time passes while a decision is in flight. */
async function settle(...procs: Proc[]): Promise<void> {
  for (let quiet = 0; quiet < 3; ) {
    await flushMicrotasks();
    const busy = procs.some((p) => (p.ledger as unknown as { flushing?: unknown }).flushing !== undefined);
    await Promise.all(procs.map((p) => p.ledger.idle()));
    quiet = busy ? 0 : quiet + 1;
  }
}

function warnings(p: Proc): string[] {
  return p.logger.lines.filter((l) => l.startsWith('warn '));
}

describe('the machine-wide rate ledger', function () {
  this.timeout(20_000);
  let folder: string;
  let clock: FakeClock;

  beforeEach(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'dq-ledger-'));
    clock = new FakeClock();
  });
  afterEach(async () => {
    // an answer's record is written after the call that gave it returned
    for (const ledger of ledgers.splice(0)) await ledger.idle().catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  });

  it('two processes share one window: the second waits for the first start to age out, then goes', async () => {
    const a = proc(clock, folder);
    const b = proc(clock, folder);
    const t0 = clock.now();
    await startAndAnswer(a);
    await clock.advance(10_000);
    await startAndAnswer(a);
    const queued: { waitMs: number; reason: string }[] = [];
    const third = b.limiter.acquire('createJob', { onQueued: (w) => queued.push(w) });
    await until(() => clock.nextAt() === t0 + WINDOW, 'the second process sleeps until the first start leaves the window');
    assert.deepEqual(queued, [{ waitMs: 50_000, reason: 'limit' }], 'told how long it will wait, from the machine\'s starts');
    await clock.advance(49_999);
    assert.equal(await within(third, 200), PENDING, 'still inside the window of the first start');
    await clock.advance(1);
    assert.notEqual(await within(third), PENDING, 'starts as the first start leaves the window');
    assert.equal(warnings(a).length + warnings(b).length, 0);
  });

  it('never lets two processes together start more than N in any window over a randomized run of bursts', async () => {
    const procs = [proc(clock, folder, 3), proc(clock, folder, 3)];
    const random = seededRandom(7);
    const starts: number[] = [];
    const calls: Promise<void>[] = [];
    for (let step = 0; step < 60; step++) {
      for (const p of procs) {
        const arrivals = Math.floor(random() * 3);
        for (let k = 0; k < arrivals; k++) {
          calls.push(
            p.limiter.acquire('createJob', { priority: random() < 0.3 ? 'background' : 'user' }).then((slot) => {
              starts.push(clock.now());
              slot.answered();
            }),
          );
        }
      }
      await settle(...procs);
      await clock.advance(Math.floor(random() * 9_000));
      await settle(...procs);
    }
    for (let i = 0; i < 200 && starts.length < calls.length; i++) {
      await settle(...procs);
      const next = clock.nextAt();
      if (next !== undefined) await clock.advance(next - clock.now());
    }
    await Promise.all(calls);
    assert.ok(calls.length > 40, 'the run made more calls than its windows allow');
    assert.equal(starts.length, calls.length, 'every call eventually started');
    assert.equal(busiestWindow(starts, WINDOW), 3);
    assert.equal(warnings(procs[0]).length + warnings(procs[1]).length, 0);
  });

  it('calls made one after another, each once the last was answered, all start at once', async () => {
    const a = proc(clock, folder, 5);
    let started = 0;
    const oneAfterAnother = async (): Promise<void> => {
      for (let i = 0; i < 5; i++) {
        // the next call is made in the same turn as the last one's start is handed over
        (await a.limiter.acquire('createJob')).answered();
        started++;
      }
    };
    assert.notEqual(await within(oneAfterAnother()), PENDING, `only ${started} of 5 calls started`);
  });

  it('a full window answers with the time of the next slot, and a start counts from its answer', async () => {
    const { ledger } = proc(clock, folder);
    const t0 = clock.now();
    const first = await ledger.tryStart('createJob', 2, WINDOW);
    assert.equal(first?.granted, true);
    await clock.advance(10_000);
    assert.equal((await ledger.tryStart('createJob', 2, WINDOW))?.granted, true);
    await clock.advance(5_000);
    assert.deepEqual(await ledger.tryStart('createJob', 2, WINDOW), { granted: false, retryAt: t0 + WINDOW, pausedUntil: 0, starts: [t0, t0 + 10_000] });
    // the first call's answer came back at t0 + 15 s: the server counted it no later than that
    if (first?.granted) ledger.answered('createJob', first.ids[0], WINDOW);
    await ledger.idle();
    assert.deepEqual(await ledger.tryStart('createJob', 2, WINDOW), { granted: false, retryAt: t0 + 10_000 + WINDOW, pausedUntil: 0, starts: [t0 + 10_000, t0 + 15_000] });
    await clock.advance(10_000 + WINDOW - 15_000);
    assert.equal((await ledger.tryStart('createJob', 2, WINDOW))?.granted, true);
  });

  it('shares a 429\'s pause: another process waits it out, told why', async () => {
    const a = proc(clock, folder, 5);
    const b = proc(clock, folder, 5);
    const t0 = clock.now();
    a.limiter.pause('createJob', 30_000);
    await a.ledger.idle();
    const queued: { waitMs: number; reason: string }[] = [];
    const call = b.limiter.acquire('createJob', { onQueued: (w) => queued.push(w) });
    await until(() => clock.nextAt() === t0 + 30_000, 'the other process sleeps until the pause ends');
    assert.deepEqual(queued, [{ waitMs: 30_000, reason: 'paused' }]);
    assert.ok(b.logger.lines.some((l) => /^info createJob: paused for 30 s by a 429 another process received/.test(l)), b.logger.lines.join('\n'));
    assert.equal(b.limiter.snapshot().find((s) => s.operation === 'createJob')?.pausedForMs, 30_000, 'the status shows the pause');
    await clock.advance(29_999);
    assert.equal(await within(call, 200), PENDING);
    await clock.advance(1);
    assert.notEqual(await within(call), PENDING);
  });

  it('a pause longer than a call may wait fails the other process\'s calls at once, unsent', async () => {
    const a = proc(clock, folder, 5);
    const b = proc(clock, folder, 5);
    a.limiter.pause('createJob', 10 * 60_000);
    await a.ledger.idle();
    const outcome = await within(b.limiter.acquire('createJob').then(() => 'started', (err: unknown) => err));
    assert.ok(isDqError(outcome) && outcome.kind === 'rateLimited', String(outcome));
  });

  it('a start given back (the call never left) frees the slot for every process', async () => {
    const a = proc(clock, folder, 1);
    const b = proc(clock, folder, 1);
    const slot = await a.limiter.acquire('createJob');
    slot.release();
    await a.ledger.idle();
    assert.notEqual(await within(b.limiter.acquire('createJob')), PENDING);
  });

  it('the status shows the machine\'s budget, marked as shared', async () => {
    const a = proc(clock, folder, 5);
    const b = proc(clock, folder, 5);
    await startAndAnswer(a);
    await startAndAnswer(a);
    await startAndAnswer(b);
    const createJob = b.limiter.snapshot().find((s) => s.operation === 'createJob');
    assert.deepEqual(createJob, { operation: 'createJob', limit: 5, remaining: 2, resetInMs: 0, pausedForMs: 0, shared: true });
  });

  it('names the file by a hash: neither the client ID nor the base URL can be read from its name or content', async () => {
    const a = proc(clock, folder);
    await startAndAnswer(a);
    const names = readdirSync(folder);
    assert.deepEqual(names, [path.basename(rateLedgerFile(folder, BASE, CLIENT))]);
    assert.match(names[0], /^rate-ledger-[0-9a-f]{32}\.json$/);
    const text = readFileSync(path.join(folder, names[0]), 'utf8');
    assert.ok(!text.includes(CLIENT) && !text.includes('example.edu'));
    assert.equal(rateLedgerFile(folder, 'HTTPS://API.example.edu:443/', CLIENT), rateLedgerFile(folder, BASE, CLIENT), 'one file for every spelling of the same service');
    assert.notEqual(rateLedgerFile(folder, BASE, 'another-client'), rateLedgerFile(folder, BASE, CLIENT));
  });

  it('removes the ledgers of accounts unused for a day, and nothing else', async () => {
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    const old = rateLedgerFile(folder, 'http://127.0.0.1:40001', 'emu-old');
    const recent = rateLedgerFile(folder, 'http://127.0.0.1:40002', 'emu-recent');
    const leftovers = [old, `${old}.lock`, path.join(folder, `.${path.basename(old)}.123-ab.tmp`)];
    writeFileSync(old, '{}');
    mkdirSync(`${old}.lock`);
    writeFileSync(leftovers[2], '{}');
    writeFileSync(recent, '{}');
    const unrelated = path.join(folder, 'canvas-tables-0123456789.json');
    writeFileSync(unrelated, '[]');
    for (const file of [...leftovers, unrelated]) utimesSync(file, twoDaysAgo, twoDaysAgo);
    await startAndAnswer(proc(clock, folder));
    await until(() => leftovers.every((f) => !existsSync(f)), 'the unused ledger is gone');
    assert.ok(existsSync(recent), 'a ledger used within the day stays');
    assert.ok(existsSync(unrelated), 'other files of the folder (the table cache) stay');
    assert.ok(existsSync(rateLedgerFile(folder, BASE, CLIENT)));
  });

  describe('a ledger that cannot be trusted is replaced by a fresh one, with one warning', () => {
    const cases: [string, string | (() => void)][] = [
      ['not JSON', '{"version":1,"operations":{"createJob":{"starts":[{"at":1'],
      ['the wrong shape', JSON.stringify({ version: 1, operations: { createJob: { starts: 'many' } } })],
      ['another version', JSON.stringify({ version: 7, operations: {} })],
      ['starts in the future', JSON.stringify({ version: 1, operations: { createJob: { starts: [{ at: 4e15, id: 'x' }, { at: 4e15, id: 'y' }] } } })],
      ['a pause of years', JSON.stringify({ version: 1, operations: { createJob: { starts: [], pausedUntil: 4e15 } } })],
      ['huge (a valid ledger padded past a megabyte)', `${JSON.stringify({ version: 1, operations: {} })}${' '.repeat(2 * 1024 * 1024)}`],
      ['a folder in its place', ''],
    ];
    for (const [what, content] of cases) {
      it(`${what}`, async () => {
        const file = rateLedgerFile(folder, BASE, CLIENT);
        if (what === 'a folder in its place') mkdirSync(path.join(file, 'inside'), { recursive: true });
        else writeFileSync(file, content as string);
        const a = proc(clock, folder);
        assert.notEqual(await within(a.limiter.acquire('createJob')), PENDING, 'the call goes');
        assert.notEqual(await within(a.limiter.acquire('createJob')), PENDING, 'and so does the next: the bad starts were dropped');
        await a.ledger.idle();
        assert.equal(warnings(a).length, 1, a.logger.lines.join('\n'));
        assert.match(warnings(a)[0], /could not be used \(.+\); it was replaced by a fresh one/);
        const written = JSON.parse(readFileSync(file, 'utf8')) as { operations: { createJob: { starts: unknown[] } } };
        assert.equal(written.operations.createJob.starts.length, 2, 'the fresh ledger counts from here on');
        assert.equal(a.ledger.countingAlone, false);
        // spoiled again: replaced again, without another warning
        writeFileSync(file, 'garbage');
        await clock.advance(WINDOW);
        assert.notEqual(await within(a.limiter.acquire('createJob')), PENDING);
        assert.equal(warnings(a).length, 1);
      });
    }
  });

  describe('a folder that cannot be written: one warning, then the process counts alone', () => {
    async function countsAlone(a: Proc): Promise<void> {
      const t0 = clock.now();
      await startAndAnswer(a);
      await startAndAnswer(a);
      const third = a.limiter.acquire('createJob');
      await until(() => clock.nextAt() === t0 + WINDOW, 'the process waits on its own count');
      await clock.advance(WINDOW);
      assert.notEqual(await within(third), PENDING);
      assert.equal(a.ledger.countingAlone, true);
      assert.equal(warnings(a).length, 1, a.logger.lines.join('\n'));
      assert.match(warnings(a)[0], /^warn Cannot keep the shared rate budget in .+; this process now counts its own calls alone, .+ set DQ_STATE_DIR to a folder you may write to\.$/);
      assert.equal(a.limiter.snapshot().find((s) => s.operation === 'createJob')?.shared, undefined, 'the status no longer claims the machine\'s budget');
    }

    it('a read-only mount', async function () {
      const mount = path.join(folder, 'ro');
      const reason = await tryMountTmpfs(mount, { sizeKiB: 64, readOnly: true });
      if (reason) {
        console.log(`      skipped: ${reason}`);
        this.skip();
      }
      try {
        await countsAlone(proc(clock, path.join(mount, 'dq')));
        await countsAlone(proc(clock, mount));
      } finally {
        unmount(mount);
      }
    });

    it('a file where the folder should be', async () => {
      const blocker = path.join(folder, 'not-a-folder');
      writeFileSync(blocker, '');
      await countsAlone(proc(clock, path.join(blocker, 'dq')));
    });
  });

  it('a lock another holder keeps past the bound lets that call count alone, once warned; the next call shares again', async () => {
    const lockfile = await import('proper-lockfile');
    const file = rateLedgerFile(folder, BASE, CLIENT);
    const a = proc(clock, folder, 2, { lockWaitMs: 300 });
    await startAndAnswer(a); // makes the folder and the file
    const unlock = await lockfile.lock(file, { realpath: false, stale: 6_000, update: 1_000 });
    try {
      const started = Date.now();
      assert.notEqual(await within(a.limiter.acquire('createJob')), PENDING);
      assert.ok(Date.now() - started >= 250, 'it waited for the lock first');
      assert.equal(warnings(a).length, 1);
      assert.match(warnings(a)[0], /stayed locked for over 0\.3 s; this call was counted by this process alone/);
    } finally {
      await unlock();
    }
    assert.equal(a.ledger.countingAlone, false);
    await clock.advance(WINDOW);
    await startAndAnswer(a);
    const written = JSON.parse(readFileSync(file, 'utf8')) as { operations: { createJob: { starts: unknown[] } } };
    assert.equal(written.operations.createJob.starts.length, 1, 'the ledger is used again');
  });
});

describe('where the rate ledger lives', () => {
  it('DQ_STATE_DIR, else the runtime folder, else the cache folder; never the temporary folder', () => {
    assert.equal(rateLedgerFolder({ DQ_STATE_DIR: '/srv/dq-state', XDG_RUNTIME_DIR: '/run/user/1000' }), '/srv/dq-state');
    assert.equal(rateLedgerFolder({ XDG_RUNTIME_DIR: '/run/user/1000', XDG_CACHE_HOME: '/c' }), '/run/user/1000/dq');
    assert.equal(rateLedgerFolder({ XDG_CACHE_HOME: '/home/ann/.cache-x', HOME: '/home/ann' }), '/home/ann/.cache-x/dq');
    assert.equal(rateLedgerFolder({ HOME: '/home/ann' }, 'linux'), '/home/ann/.cache/dq');
    assert.equal(rateLedgerFolder({ XDG_RUNTIME_DIR: 'relative/run', HOME: '/home/ann' }, 'linux'), '/home/ann/.cache/dq', 'a relative XDG folder is ignored');
  });
});

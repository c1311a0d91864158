// The one retry loop (runWithRetries) on a fake clock: what it waits, when it stops, what a
// pause gate changes, and the downloader's budget by bytes gained.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DqError, isDqError } from '../../../src/client/errors';
import { ProgressBudget } from '../../../src/client/progressBudget';
import { DEFAULT_RETRY_POLICY, runWithRetries, type AttemptResult, type RetryFailure, type RetryPolicy, type RetryRun } from '../../../src/client/retryPolicy';
import { FakeClock } from '../../support/fakeClock';

const policy: RetryPolicy = { maxRetries: 3, baseMs: 100, maxMs: 10_000, maxWaitMs: 60_000, random: () => 0.5 };
const serverError = (status = 503): RetryFailure => ({ error: new DqError('server', `HTTP ${status}`, { status }), status });

/** An attempt that answers from `script` in turn (the last one again once it runs out), counting its calls. */
function scripted<T>(script: AttemptResult<T>[]): { attempt: (retries: number) => Promise<AttemptResult<T>>; calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    attempt: async (retries) => {
      calls.push(retries);
      return script[Math.min(calls.length - 1, script.length - 1)];
    },
  };
}

function runOn(clock: FakeClock, extra: Partial<RetryRun> = {}): RetryRun {
  return { policy, clock, operation: 'getSchema', ...extra };
}

describe('runWithRetries', () => {
  it('waits full-jitter backoff between failures, on the clock, and returns the first result', async () => {
    const clock = new FakeClock();
    const { attempt, calls } = scripted<string>([{ failed: serverError() }, { failed: serverError() }, { done: 'ok' }]);
    assert.equal(await clock.run(runWithRetries(runOn(clock), attempt)), 'ok');
    assert.deepEqual(calls, [0, 1, 2], 'each attempt is told the retries spent');
    assert.deepEqual(clock.sleeps, [50, 100], 'half of 100 ms, then of 200 ms');
  });

  it('gives up with the last failure once maxRetries retries are spent', async () => {
    const clock = new FakeClock();
    const { attempt, calls } = scripted<string>([{ failed: serverError(502) }]);
    const err = await clock.run(runWithRetries(runOn(clock), attempt)).catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.message === 'HTTP 502');
    assert.equal(calls.length, policy.maxRetries + 1);
  });

  it('goes again at once, without a wait or a retry spent, when an attempt asks to', async () => {
    const clock = new FakeClock();
    const { attempt, calls } = scripted<string>([{ again: true }, { again: true }, { done: 'ok' }]);
    assert.equal(await clock.run(runWithRetries(runOn(clock), attempt)), 'ok');
    assert.deepEqual(calls, [0, 0, 0]);
    assert.deepEqual(clock.sleeps, []);
  });

  it('waits what Retry-After says instead of its own backoff', async () => {
    const clock = new FakeClock();
    const { attempt } = scripted<string>([{ failed: { ...serverError(), retryAfter: '7' } }, { done: 'ok' }]);
    await clock.run(runWithRetries(runOn(clock), attempt));
    assert.deepEqual(clock.sleeps, [7_000]);
  });

  it('a Retry-After beyond the longest wait fails at once as rateLimited, naming the operation', async () => {
    const clock = new FakeClock();
    const { attempt, calls } = scripted<string>([{ failed: { ...serverError(429), retryAfter: '600' } }]);
    const err = await clock.run(runWithRetries(runOn(clock), attempt)).catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.kind === 'rateLimited', String(err));
    assert.match(err.message, /getSchema to wait 600 s/);
    assert.equal(calls.length, 1);
  });

  it('a 429 closes the pause gate and does not wait itself; the gate holds even on the last attempt', async () => {
    const clock = new FakeClock();
    const paused: number[] = [];
    const { attempt, calls } = scripted<string>([{ failed: { ...serverError(429), retryAfter: '5' } }]);
    const err = await clock.run(runWithRetries(runOn(clock, { pause: (ms) => paused.push(ms) }), attempt)).catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.status === 429);
    assert.equal(calls.length, policy.maxRetries + 1);
    assert.deepEqual(paused, [5_000, 5_000, 5_000, 5_000], 'the last 429 closes the gate too');
    assert.deepEqual(clock.sleeps, [], 'the gate does the waiting');
  });

  it('without a gate, a call with no retry left gives up with its own failure, not with the wait', async () => {
    const clock = new FakeClock();
    const { attempt } = scripted<string>([{ failed: serverError() }, { failed: { ...serverError(), retryAfter: '600' } }]);
    const err = await clock.run(runWithRetries(runOn(clock, { policy: { ...policy, maxRetries: 1 } }), attempt)).catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.kind === 'server', String(err));
  });

  it('a cancel during a wait ends the call with the run’s cancelled error, and no further attempt', async () => {
    const clock = new FakeClock();
    const abort = new AbortController();
    const { attempt, calls } = scripted<string>([{ failed: serverError() }]);
    const running = runWithRetries(runOn(clock, { signal: abort.signal, cancelled: () => new DqError('cancelled', 'stopped') }), attempt);
    const outcome = running.catch((e: unknown) => e);
    await clock.advance(0);
    abort.abort();
    const err = await outcome;
    assert.ok(isDqError(err) && err.kind === 'cancelled' && err.message === 'stopped');
    assert.equal(calls.length, 1);
  });

  it('tells onRetry of each retry, counting from 1, before its wait', async () => {
    const clock = new FakeClock();
    const told: string[] = [];
    const { attempt } = scripted<string>([{ failed: serverError() }, { failed: serverError() }, { done: 'ok' }]);
    await clock.run(runWithRetries(runOn(clock, { onRetry: ({ retry, maxRetries, delayMs }) => told.push(`${retry}/${maxRetries} ${delayMs}`) }), attempt));
    assert.deepEqual(told, ['1/3 50', '2/3 100']);
  });
});

describe('ProgressBudget (the downloader’s strategy)', () => {
  it('a new highest byte refills the budget, so an object that keeps progressing is never given up', async () => {
    const clock = new FakeClock();
    const budget = new ProgressBudget(policy.maxRetries);
    let bytes = 0;
    const attempts = 10;
    const done = await clock.run(
      runWithRetries(runOn(clock, { budget }), async () => {
        bytes += 100;
        budget.progressed(bytes);
        return bytes >= attempts * 100 ? { done: bytes } : { failed: serverError() };
      }),
    );
    assert.equal(done, 1000);
    assert.ok(clock.sleeps.every((ms) => ms === 50), 'each retry backs off from the first step again');
  });

  it('attempts without progress spend it; the same bytes again are no progress', async () => {
    const clock = new FakeClock();
    const budget = new ProgressBudget(policy.maxRetries);
    let calls = 0;
    const err = await clock
      .run(
        runWithRetries(runOn(clock, { budget }), async () => {
          calls++;
          budget.progressed(calls === 1 ? 0 : 100);
          return { failed: serverError() };
        }),
      )
      .catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(calls, policy.maxRetries + 2, 'the second attempt gained bytes and refilled the budget; the ones after did not');
  });

  it('progress does not refill the attempts found too slow', async () => {
    const clock = new FakeClock();
    const budget = new ProgressBudget(policy.maxRetries);
    let bytes = 0;
    let calls = 0;
    const err = await clock
      .run(
        runWithRetries(runOn(clock, { budget }), async () => {
          calls++;
          budget.progressed((bytes += 10));
          return { failed: { error: new DqError('network', 'too slow'), slow: true } };
        }),
      )
      .catch((e: unknown) => e);
    assert.ok(isDqError(err) && err.message === 'too slow');
    assert.equal(calls, policy.maxRetries + 1);
  });

  it('counts refused links in a row, and a new byte starts them afresh', () => {
    const budget = new ProgressBudget(policy.maxRetries);
    assert.deepEqual([budget.refused(), budget.refused()], [1, 2]);
    budget.progressed(1);
    assert.equal(budget.refused(), 1);
  });
});

describe('retry policies', () => {
  it('are written only in retryPolicy.ts: no retry count or backoff as a literal elsewhere in src/', () => {
    const src = path.resolve(__dirname, '../../../../src');
    const literal = /\b(maxRetries|baseMs|maxMs|maxWaitMs)\s*:\s*[\d_]+\b|\b(maxRetries|retryBaseMs|retryMaxMs|maxRetryWaitMs)'\s*,\s*[\d_]+\b/;
    const files = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    const found = files(src)
      .filter((file) => path.basename(file) !== 'retryPolicy.ts')
      .flatMap((file) =>
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .map((line, i) => ({ line, at: `${path.relative(src, file)}:${i + 1}` }))
          .filter(({ line }) => literal.test(line)),
      );
    assert.deepEqual(found, [], found.map((f) => `${f.at}: ${f.line.trim()}`).join('\n'));
    assert.equal(DEFAULT_RETRY_POLICY.maxRetries, 4, 'the documented default');
  });
});

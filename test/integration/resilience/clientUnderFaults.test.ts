// The shared client against the emulator when the service misbehaves: what a user gets is
// complete, correct files or a clear error, never a silent partial result.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { DqError } from '../../../src/client/errors';
import type { Clock } from '../../../src/core/clock';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/emulator';
import { FakeClock } from '../../support/fakeClock';

/**
 * Frozen wall time, so two emulators with one seed produce identical objects; the waits between
 * tries are a fake clock's, passed at once by `waits.run` instead of slept.
 */
function frozenClock(): { clock: Clock; waits: FakeClock } {
  const waits = new FakeClock();
  return { clock: { now: () => Date.parse('2026-11-20T12:00:00Z'), sleep: (ms, s) => waits.sleep(ms, s) }, waits };
}

function clientFor(emu: RunningEmulator, extra: Partial<ConstructorParameters<typeof DataQueryClient>[0]> = {}): DataQueryClient {
  return new DataQueryClient({
    baseUrl: emu.baseUrl,
    dataPrefix: emu.dataPrefix,
    credentials: async () => ({ clientId: emu.clientId, clientSecret: emu.clientSecret }),
    retryBaseMs: 20,
    retryMaxMs: 200,
    defaultRetryAfterMs: 200,
    maxRetries: 8,
    ...extra,
  });
}

async function downloadAll(options: EmulatorOptions, dir: string): Promise<{ sums: string[]; emu: RunningEmulator }> {
  const { clock, waits } = frozenClock();
  const emu = await startEmulator({ seed: 11, clock, jobDelayMs: 0, limits: false, rows: 30_000, rowsPerObject: 10_000, gzipLevel: 1, ...options });
  // The client shares the frozen clock, or the emulator's tokens and jobs would look expired.
  const client = clientFor(emu, { clock });
  try {
    // real transfers take many of the clock's steps: the test's timeout bounds them, not the steps
    const job = await waits.run(client.runJob('canvas_logs', 'web_logs', { format: 'jsonl' }), 1_000_000);
    assert.ok((job.objects ?? []).length >= 3, 'the result spans several objects');
    const files = await waits.run(client.downloadJob(job, { dir, format: 'jsonl', concurrency: 3, sha256: true }), 1_000_000);
    // Job and object ids are random, so names differ between runs in their hash; compare the
    // part number, the size and the content hash.
    const sums = files.map((f) => `${path.basename(f.path).slice(0, 10)} ${f.bytes} ${f.sha256}`).sort();
    return { sums, emu };
  } finally {
    await client.close();
  }
}

describe('client under faults (emulator)', function () {
  this.timeout(60_000);
  let tmp: string;
  before(async () => (tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-faults-'))));
  after(() => fs.rm(tmp, { recursive: true, force: true }));

  it('downloads byte-identical files through dropped connections, truncated bodies, 5xx and 504', async () => {
    const clean = await downloadAll({}, path.join(tmp, 'clean'));
    await clean.emu.close();
    const faulty = await downloadAll({ faults: 'drop=0.3,truncate=0.3,5xx=0.15,504=0.1,seed=5' }, path.join(tmp, 'faulty'));
    try {
      assert.deepEqual(faulty.sums, clean.sums);
      const log = faulty.emu.requestLog.entries();
      assert.ok(log.some((e) => e.status >= 500), 'faults really happened on the API');
      const objectGets = log.filter((e) => e.host === 'object');
      assert.ok(objectGets.length > clean.sums.length, 'some object downloads had to resume or restart');
      assert.ok(objectGets.some((e) => e.status === 206), 'a dropped download resumed with a Range request');
      const left = await fs.readdir(path.join(tmp, 'faulty'));
      assert.equal(left.length, clean.sums.length, `only the final files remain: ${left.join(', ')}`);
      assert.ok(left.every((name) => name.endsWith('.jsonl.gz')));
    } finally {
      await faulty.emu.close();
    }
  });

  it('never sends a credential to the object host', async () => {
    const emu = await startEmulator({ jobDelayMs: 0, limits: false });
    const client = clientFor(emu);
    try {
      const job = await client.runJob('canvas', 'courses', { format: 'csv' });
      await client.downloadJob(job, { dir: path.join(tmp, 'creds'), format: 'csv' });
      const objectRequests = emu.requestLog.entries().filter((e) => e.host === 'object');
      assert.ok(objectRequests.length > 0);
      assert.ok(objectRequests.every((e) => !e.credentialOnObjectUrl && e.auth === 'none'));
      const dataCalls = emu.requestLog.entries().filter((e) => e.host === 'gateway' && e.operation !== 'token');
      assert.ok(dataCalls.every((e) => e.auth === 'authorization'), 'data calls use the Authorization header, not the legacy one');
    } finally {
      await client.close();
      await emu.close();
    }
  });

  it('refreshes the token once when the gateway rejects it, then reports an auth error without retrying', async () => {
    const emu = await startEmulator({ limits: false, faults: 'tokenReject=1' });
    const client = clientFor(emu, { maxRetries: 2 });
    try {
      const err = await client.listTables('canvas').then(
        () => assert.fail('expected an auth error'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof DqError);
      assert.equal(err.kind, 'auth');
      const log = emu.requestLog.entries();
      assert.equal(log.filter((e) => e.operation === 'token').length, 2, 'one login, one forced refresh');
      assert.equal(log.filter((e) => e.operation === 'listTables').length, 2, 'first try and one after the refresh, no retries');
    } finally {
      await client.close();
      await emu.close();
    }
  });

  it('rides out 429 storms and keeps its own pace within the server\'s limit', async () => {
    // One fake clock drives the server's windows and storms and the client's waits. The
    // client keeps its default limits: the contract's 5 listings a minute.
    const limit = 5;
    const minute = 60_000;
    const clock = new FakeClock();
    const emu = await startEmulator({ clock, limits: { listTables: limit }, limitWindowSec: minute / 1000, faults: 'storm=0.3,seed=3' });
    const client = clientFor(emu, { clock, retryBaseMs: 500, retryMaxMs: 30_000, defaultRetryAfterMs: 30_000 });
    try {
      const listAll = async (priority: 'user' | 'background') => {
        for (const ns of emu.namespaces) assert.ok((await client.listTables(ns, { priority })).length > 0);
      };
      await clock.run(listAll('user'));
      await clock.run(listAll('background'));
      const listings = emu.requestLog.entries().filter((e) => e.operation === 'listTables');
      assert.ok(listings.some((e) => e.status === 429), 'a storm happened');
      assert.ok(listings.length > limit, 'more listings were asked for than one window allows');
      for (const { time } of listings) {
        const inWindow = listings.filter((e) => e.time >= time && e.time < time + minute).length;
        assert.ok(inWindow <= limit, `${inWindow} listings reached the server within one minute`);
      }
    } finally {
      await client.close();
      await emu.close();
    }
  });
});

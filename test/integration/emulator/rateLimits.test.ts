import * as assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { ManualClock, api, tokenFor } from '../../support/emulatorHarness';

describe('emulator: rate limits', () => {
  let emu: RunningEmulator;
  let clock: ManualClock;

  afterEach(() => emu?.close());

  it('refuses the sixth table listing in a minute with Retry-After, while get-job keeps working', async () => {
    clock = new ManualClock();
    emu = await startEmulator({ clock, jobDelayMs: 0 });
    const token = await tokenFor(emu);
    const job = await api(emu, token, 'POST', '/query/canvas/table/users/data', { format: 'jsonl' });
    for (let i = 0; i < 5; i++) {
      assert.equal((await api(emu, token, 'GET', '/query/canvas/table')).status, 200);
      clock.advance(10_000);
    }
    const refused = await api(emu, token, 'GET', '/query/canvas/table');
    assert.equal(refused.status, 429);
    assert.equal(refused.json.error.type, 'RateLimitExceeded');
    assert.ok(refused.json.error.uuid);
    // The first listing was 50 s ago: it leaves the window in 10 s.
    assert.equal(refused.headers.get('retry-after'), '10');
    assert.equal((await api(emu, token, 'GET', `/job/${job.json.id}`)).status, 200);
    assert.equal((await api(emu, token, 'GET', '/query/canvas/table/users/schema')).status, 200);
    // Token requests are not limited by these.
    await tokenFor(emu);
    clock.advance(10_000);
    assert.equal((await api(emu, token, 'GET', '/query/canvas/table')).status, 200);
  });

  it('omits Retry-After when configured so', async () => {
    clock = new ManualClock();
    emu = await startEmulator({ clock, retryAfter: false, limits: { listTables: 1 } });
    const token = await tokenFor(emu);
    assert.equal((await api(emu, token, 'GET', '/query/canvas/table')).status, 200);
    const refused = await api(emu, token, 'GET', '/query/canvas/table');
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), null);
  });

  it('counts per credential, and honours custom limits and windows', async () => {
    clock = new ManualClock();
    emu = await startEmulator({
      clock,
      limits: { getSchema: 2 },
      limitWindowSec: 10,
      extraCredentials: [{ clientId: 'other', clientSecret: 'other-secret' }],
    });
    const a = await tokenFor(emu);
    const b = await tokenFor(emu, 'other', 'other-secret');
    const schema = (t: string) => api(emu, t, 'GET', '/query/canvas/table/users/schema');
    assert.equal((await schema(a)).status, 200);
    assert.equal((await schema(a)).status, 200);
    assert.equal((await schema(a)).status, 429);
    assert.equal((await schema(b)).status, 200);
    clock.advance(10_001);
    assert.equal((await schema(a)).status, 200);
  });

  it('has no limits when limits is false', async () => {
    clock = new ManualClock();
    emu = await startEmulator({ clock, limits: false });
    const token = await tokenFor(emu);
    for (let i = 0; i < 8; i++) assert.equal((await api(emu, token, 'GET', '/query/canvas/table')).status, 200);
  });
});

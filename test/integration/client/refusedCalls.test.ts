// What the shared client reports when the emulator refuses a call over real HTTP: a token it
// will not accept even fresh, a `since` after the newest data or older than the history,
// and a base URL or data prefix that leads nowhere. One fake clock drives both sides, so a
// client that waited would show it in the clock, not in the test's running time.

import * as assert from 'node:assert/strict';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { startEmulator } from '../../../src/emulator/emulator';
import { FakeClock } from '../../support/fakeClock';
import { emulatorOnClock, failure, type ClockedEmulator } from '../../support/emulatorOnClock';

const setUp = emulatorOnClock;


describe('refused calls (emulator over HTTP)', function () {
  this.timeout(30_000);
  let setup: ClockedEmulator | undefined;

  afterEach(async () => {
    await setup?.client.close();
    await setup?.emu.close();
    setup = undefined;
  });

  it('credentials whose tokens are never accepted: the 401 after the forced refresh fails at once as auth, spending no more rate budget', async () => {
    // The emulator keeps the contract's limits (5 listings and 5 job creations a minute) and
    // the client its defaults (4 retries): retrying the 401 would reach a sixth call.
    setup = await setUp({ faults: 'tokenReject=1' });
    const { clock, emu, client } = setup;
    const started = clock.now();
    const count = (operation: string): number => emu.requestLog.entries().filter((e) => e.operation === operation).length;

    const listing = await failure(clock, client.listTables('canvas'));
    assert.equal(listing.kind, 'auth');
    assert.equal(listing.status, 401);
    assert.equal(listing.operation, 'listTables');
    assert.match(listing.hint ?? '', /did not accept the token it had just issued.*client ID and secret/);
    assert.equal(count('listTables'), 2, 'the first try and one after the refresh');
    assert.equal(count('token'), 2, 'one sign-in and one forced refresh');

    const creating = await failure(clock, client.createJob('canvas', 'accounts', { format: 'jsonl' }));
    assert.equal(creating.kind, 'auth');
    assert.equal(creating.operation, 'createJob');
    assert.equal(count('createJob'), 2, 'the first try and one after the refresh');
    assert.equal(count('token'), 3, 'the refused token was replaced once more, no further sign-ins');

    assert.equal(clock.now(), started, 'nothing waited: no backoff, no rate-limit pause');
  });

  it('a since after the newest data is OutOfRange: wait or use an earlier since, not a snapshot', async () => {
    setup = await setUp();
    const { clock, emu, client } = setup;
    const since = new Date(clock.now() + 86_400_000).toISOString();
    const err = await failure(clock, client.createJob('canvas', 'accounts', { format: 'jsonl', since }));
    assert.equal(err.kind, 'validation');
    assert.equal(err.status, 400);
    assert.equal(err.type, 'OutOfRange');
    assert.ok(err.uuid, 'the uuid support asks for');
    const latest = err.details?.until;
    assert.equal(typeof latest, 'string');
    assert.ok(Date.parse(latest as string) < Date.parse(since));
    assert.match(err.hint ?? '', new RegExp(`no data after the requested since yet \\(the latest committed change is at ${latest as string}\\)`));
    assert.match(err.hint ?? '', /Wait for new data .* or use an earlier since/);
    assert.doesNotMatch(err.hint ?? '', /snapshot/i);
    assert.equal(emu.requestLog.entries().filter((e) => e.operation === 'createJob').length, 1, 'a refused range is not retried');
  });

  it('a since older than the history is SnapshotRequired, with the earliest allowed since', async () => {
    setup = await setUp();
    const { clock, client } = setup;
    const err = await failure(clock, client.createJob('canvas', 'accounts', { format: 'jsonl', since: '2000-01-01T00:00:00Z' }));
    assert.equal(err.kind, 'snapshotRequired');
    assert.equal(err.type, 'SnapshotRequired');
    const earliest = err.details?.since;
    assert.equal(typeof earliest, 'string');
    assert.match(err.hint ?? '', new RegExp(`Run a full snapshot \\(omit since\\)\\. The earliest allowed since is ${earliest as string}`));
  });

  it('a base URL with an extra path: the sign-in 404 says to check the base URL', async () => {
    const clock = new FakeClock();
    const emu = await startEmulator({ clock });
    setup = {
      clock,
      emu,
      client: new DataQueryClient({
        baseUrl: `${emu.baseUrl}/${emu.dataPrefix}`,
        dataPrefix: emu.dataPrefix,
        credentials: async () => ({ clientId: emu.clientId, clientSecret: emu.clientSecret }),
        clock,
      }),
    };
    const err = await failure(clock, setup.client.listTables('canvas'));
    assert.equal(err.kind, 'notFound');
    assert.equal(err.operation, 'login');
    assert.match(err.hint ?? '', /Check the base URL: it must be the service's gateway address alone/);
    assert.doesNotMatch(err.hint ?? '', /namespace|table/);
    const log = emu.requestLog.entries();
    assert.deepEqual(
      log.map((e) => `${e.method} ${e.path} ${e.status}`),
      [`POST /${emu.dataPrefix}/ids/auth/login 404`],
      'one sign-in attempt and no data call',
    );
  });

  it('a wrong data prefix: the 404 on a data call mentions the base URL and data prefix', async () => {
    setup = await setUp({}, { dataPrefix: 'api' });
    const { clock, client } = setup;
    const err = await failure(clock, client.listTables('canvas'));
    assert.equal(err.kind, 'notFound');
    assert.equal(err.operation, 'listTables');
    assert.match(err.hint ?? '', /check the base URL and data prefix of the connection/);
  });
});

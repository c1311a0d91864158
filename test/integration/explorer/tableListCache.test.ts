// The explorer's table listings against an emulator, with time on a fake clock: a listing
// the client's limiter holds back says until when, reports every second while it waits
// (the tree's countdown) and once when it ends, also when it fails; a failed one is kept for
// the tree to show until a retry clears it; clearing a listing cancels it.

import * as assert from 'node:assert/strict';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isCancelled, isDqError } from '../../../src/client/errors';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { TableListCache, type TableListing } from '../../../src/extension/explorer/tableListCache';
import { FakeClock, flushMicrotasks } from '../../support/fakeClock';
import { requestsOf } from '../../support/requestCounts';

const LIST_TABLES_PER_MINUTE = 5;

describe('Table listings held back by the rate limit', () => {
  let clock: FakeClock;
  let emulator: RunningEmulator;
  let client: DataQueryClient;
  let cache: TableListCache;
  let listing: TableListing | undefined;
  /** per report of a change: whether the listing had ended */
  let reports: boolean[];

  const list = (namespace = 'canvas'): TableListing =>
    cache.get('Emulator', namespace, ({ signal, onQueued }) => client.listTables(namespace, { signal, onQueued }));

  /** Uses up the minute's listings, then starts one more (of `namespace`). */
  async function listOneTooMany(namespace = 'canvas'): Promise<TableListing> {
    for (let i = 0; i < LIST_TABLES_PER_MINUTE; i++) {
      await clock.run(list().tables);
      cache.clear();
    }
    listing = list(namespace);
    await listing.ready;
    return listing;
  }

  beforeEach(async () => {
    clock = new FakeClock();
    emulator = await startEmulator({ port: 0, clock });
    client = new DataQueryClient({
      baseUrl: emulator.baseUrl,
      dataPrefix: emulator.dataPrefix,
      credentials: async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }),
      clock,
    });
    listing = undefined;
    reports = [];
    cache = new TableListCache(() => reports.push(listing?.settled === true), clock);
  });

  afterEach(async () => {
    cache.clear();
    await client.close();
    await emulator.close();
  });

  it('say until when they wait, report every second while waiting and once when they end', async () => {
    const listing = await listOneTooMany();
    assert.deepEqual(listing.waiting, { reason: 'limit', until: clock.now() + 60_000 });
    assert.equal(listing.settled, false);
    await clock.advance(1_000);
    await clock.advance(1_000);
    assert.deepEqual(reports, [false, false], 'one report a second');

    const tables = await clock.run(listing.tables);
    await flushMicrotasks();
    assert.ok(tables.length > 0);
    assert.equal(listing.waiting, undefined);
    assert.ok(reports.filter((ended) => !ended).length >= 59, 'a report each second of the minute');
    assert.equal(reports.at(-1), true, 'and one when it ended');
    const reported = reports.length;
    await clock.advance(10_000);
    assert.equal(reports.length, reported, 'no reports after the end');
  });

  it('report when a listing that waited fails, and keep the failure for the tree until a retry clears it', async () => {
    const listing = await listOneTooMany('nosuch');
    assert.equal(listing.waiting?.reason, 'limit');
    await assert.rejects(clock.run(listing.tables), (err: unknown) => isDqError(err) && err.kind === 'notFound');
    await flushMicrotasks();
    assert.equal(reports.at(-1), true, 'a report once it failed, so the tree stops showing the wait');
    assert.equal(listing.waiting, undefined);
    assert.equal(listing.failed, true);
    assert.equal(requestsOf(emulator, 'listTables'), LIST_TABLES_PER_MINUTE + 1);

    cache.forgetSettled('Emulator', 'nosuch');
    assert.equal(list('nosuch'), listing, 'the redraw after that report finds the failure, and lists nothing again');
    cache.clear('Emulator', 'nosuch');
    const retried = list('nosuch');
    assert.notEqual(retried, listing, 'a retry lists again');
    assert.equal(retried.failed, false);
  });

  it('are cancelled when cleared, and stop reporting', async () => {
    const listing = await listOneTooMany();
    cache.clear('Emulator');
    await assert.rejects(listing.tables, (err: unknown) => isCancelled(err));
    await clock.advance(60_000);
    assert.deepEqual(reports, []);
    assert.equal(requestsOf(emulator, 'listTables'), LIST_TABLES_PER_MINUTE, 'the held-back listing was never sent');
  });
});

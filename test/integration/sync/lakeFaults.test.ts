// A lake table through the faults a sync meets: a run killed between its data files and its
// state, or between its state and manifest (a write that fails stands for the kill), an upload
// that fails midway, a full work folder, two syncs of one table (the lock object, on a store
// that enforces write conditions and on one that ignores them); then what is kept and merged:
// retired files deleted once the grace period has passed (on a fake clock), small files
// compacted past the threshold or when asked. After each, the manifest lists only files that
// are there, the table equals the emulator's snapshot at the point its state records, and no
// object is left that the state does not account for.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isoUtc } from '../../../src/core/isoTime';
import { targetTableOf } from '../../../src/sync/syncColumns';
import { manifestText, type LakeTuning } from '../../../src/sync/lakeLayout';
import type { LakeTargetOptions } from '../../../src/sync/lakeOptions';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import { FakeClock } from '../../support/fakeClock';
import { FolderStore } from '../../support/folderStore';
import { tryMountTmpfs, unmount } from '../../support/tmpfsMount';
import { lakeRows, lakeTarget, layoutOf, manifestFiles, stateOf, unaccounted, workFolder } from './lakeRows';
import { assertSameRows, LogLines, sourceOf, SyncFixture, syncInto } from './syncFixture';

const NS = 'canvas';
const TABLE = 'submissions';

describe('a lake table through faults, retention and compaction', function () {
  this.timeout(300_000);
  let fixture: SyncFixture;
  let n = 0;

  before(async () => {
    fixture = await SyncFixture.start({ rows: 2000 });
  });
  after(async () => {
    await fixture?.close();
  });

  /** A fresh store and work folder. */
  async function fresh(enforcesConditions = true): Promise<{ store: FolderStore; work: string }> {
    const name = `case-${++n}`;
    return { store: new FolderStore(path.join(fixture.dir, name), { enforcesConditions }), work: await workFolder(fixture.dir, `${name}-work`) };
  }

  function run(store: FolderStore, work: string, until: string, options: Partial<LakeTargetOptions> = {}, tuning: Partial<LakeTuning> = {}, resnapshot = false, [namespace, table] = [NS, TABLE]): Promise<TableSyncReport> {
    return syncInto(lakeTarget(store, work, options, tuning), { client: fixture.client, namespace, tables: [table], until, workDir: work, resnapshot }).then((r) => r[0]);
  }

  async function tableOf(): Promise<import('../../../src/sync/syncTarget').TargetTable> {
    return targetTableOf(NS, TABLE, await fixture.client.getSchema(NS, TABLE));
  }

  async function assertAt(store: FolderStore, until: string, [namespace, table] = [NS, TABLE]): Promise<void> {
    assert.equal((await stateOf(store, namespace, table))?.point, until);
    assertSameRows(await lakeRows(store, namespace, table), await fixture.reference(namespace, table, until), `${table} at ${until}`);
  }

  it('a run killed after its data files, before its state: the table stays at the last state; the next run deletes the strays and ends equal', async () => {
    const { store, work } = await fresh();
    const [p6, p4] = [fixture.point(6), fixture.point(4)];
    await run(store, work, p6);
    const manifest = (await store.getBytes(layoutOf(NS, TABLE).manifest))!.body.toString();
    store.faults.beforeWrite = (key) => {
      if (key.endsWith('_dq/state.json')) throw new Error('killed');
    };
    store.faults.beforeDelete = (keys) => {
      // a killed run deletes nothing of what it uploaded (its lock is released here: a dead process's would be taken over at once)
      if (keys.some((k) => !k.endsWith('_dq/lock'))) throw new Error('killed');
    };
    const killed = await run(store, work, p4);
    assert.equal(killed.outcome, 'failed');
    store.faults.beforeDelete = undefined;
    assert.ok((await unaccounted(store, NS, TABLE)).length > 0, 'the killed run left its uploads');
    assert.equal((await store.getBytes(layoutOf(NS, TABLE).manifest))!.body.toString(), manifest, 'the manifest is as it was');
    await assertAt(store, p6);
    store.faults.beforeWrite = undefined;
    const again = await run(store, work, p4);
    assert.equal(again.outcome, 'synced', JSON.stringify(again));
    await assertAt(store, p4);
    assert.deepEqual(await unaccounted(store, NS, TABLE), []);
  });

  it('a sync process killed after any of its writes leaves the table readable at a complete state; the next run takes over its lock and ends equal', async () => {
    const [p6, p4] = [fixture.point(6), fixture.point(4)];
    const logs: [string, string] = ['canvas_logs', 'web_logs'];
    const base = await fresh();
    await run(base.store, base.work, p6, {}, { maxFileBytes: 64 * 1024 }, false, logs);
    const child = path.join(__dirname, 'lakeKillChild.js');
    const { emulator } = fixture;
    /** runs the child on a copy of the store at p6, killed after its n-th write (0: never); returns what it printed */
    const runChild = async (n: number): Promise<{ store: FolderStore; work: string; out: string }> => {
      const { store, work } = await fresh();
      await fs.cp(base.store.dir, store.dir, { recursive: true });
      const args = [child, emulator.baseUrl, emulator.dataPrefix, emulator.clientId, emulator.clientSecret, sourceOf(fixture.client), store.dir, work, ...logs, p4, String(n)];
      const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      proc.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
      await new Promise((resolve) => proc.on('exit', resolve));
      return { store, work, out };
    };
    const whole = /synced after (\d+) writes/.exec((await runChild(0)).out);
    assert.ok(whole, 'the child syncs when not killed');
    const writes = Number(whole[1]);
    assert.ok(writes >= 5, `${writes} writes: the lock, data files and their keys, the state, the manifest`);
    const seen = new Set<string>();
    for (let n = 1; n <= writes; n++) {
      const { store, work, out } = await runChild(n);
      assert.equal(out, '', `killed after write ${n}`);
      const state = (await stateOf(store, ...logs))!;
      // the manifest lists only files that are there (lakeRows checks), and they are the table at a complete state:
      // the state's, or (killed between the state and the manifest) the one before, whose files are retired, not deleted
      const manifest = (await store.getBytes(layoutOf(...logs).manifest))!.body.toString();
      const current = manifest === manifestText(store.root, state.files);
      if (!current) assert.equal(state.point, p4, 'only a committed run leaves the manifest behind its state');
      assertSameRows(await lakeRows(store, ...logs), await fixture.reference(...logs, current ? state.point : p6), `killed after write ${n}`);
      seen.add(`${state.point === p4 ? 'committed' : 'not committed'}, manifest ${current ? 'current' : 'behind'}, ${(await unaccounted(store, ...logs)).length > 0 ? 'strays' : 'no strays'}`);
      const again = await run(store, work, p4, { lockWaitMs: 2000 }, {}, false, logs);
      assert.ok(again.outcome === 'synced' || again.outcome === 'unchanged', JSON.stringify(again));
      await assertAt(store, p4, logs).catch((err: Error) => assert.fail(`killed after write ${n}, then run again: ${err.message}`));
      assert.deepEqual(await unaccounted(store, ...logs), []);
    }
    // every kind of place was hit: before the state (uploads left behind), between state and manifest, after both
    assert.deepEqual([...seen].sort(), ['committed, manifest behind, no strays', 'committed, manifest current, no strays', 'not committed, manifest current, no strays', 'not committed, manifest current, strays']);
  });

  it('a first snapshot killed before its state (the process gone): the next run takes over its lock, deletes its uploads and ends equal', async () => {
    const child = path.join(__dirname, 'lakeKillChild.js');
    const { emulator } = fixture;
    const logs: [string, string] = ['canvas_logs', 'web_logs'];
    const p4 = fixture.point(4);
    const { store, work } = await fresh();
    // killed after its third write: the lock, then data files, never a state
    const args = [child, emulator.baseUrl, emulator.dataPrefix, emulator.clientId, emulator.clientSecret, sourceOf(fixture.client), store.dir, work, ...logs, p4, '3'];
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    await new Promise((resolve) => proc.on('exit', resolve));
    assert.equal(await stateOf(store, ...logs), undefined, 'no state: the snapshot never committed');
    assert.ok((await unaccounted(store, ...logs)).length > 0, 'the killed run left uploads');
    const again = await run(store, work, p4, { lockWaitMs: 2000 }, {}, false, logs);
    assert.equal(again.outcome, 'synced', JSON.stringify(again));
    await assertAt(store, p4, logs);
    assert.deepEqual(await unaccounted(store, ...logs), [], 'nothing of the killed run is left');
  });

  it('a run killed between its state and its manifest: readers keep the previous files; the next run writes the manifest first and ends equal', async () => {
    const { store, work } = await fresh();
    const [p6, p4, p2] = [fixture.point(6), fixture.point(4), fixture.point(2)];
    await run(store, work, p6);
    store.faults.beforeWrite = (key) => {
      if (key.endsWith('/manifest')) throw new Error('killed');
    };
    const killed = await run(store, work, p4);
    assert.equal(killed.outcome, 'failed');
    assert.match(killed.error?.message ?? '', /the state was written but its manifest was not/);
    // what the old manifest lists is still there (retired, not deleted), and reads as the table at p6
    assertSameRows(await lakeRows(store, NS, TABLE).catch(() => assert.fail('the old manifest lists a missing file')), await fixture.reference(NS, TABLE, p6), 'readers at p6');
    store.faults.beforeWrite = undefined;
    const logs = new LogLines();
    const next = await syncInto(lakeTarget(store, work, { logger: logs }), { client: fixture.client, namespace: NS, tables: [TABLE], until: p2, workDir: work });
    assert.equal(next[0].outcome, 'synced');
    assert.ok(logs.lines.some((l) => /manifest did not match the state/.test(l)), logs.lines.join('\n'));
    await assertAt(store, p2);
    assert.deepEqual(await unaccounted(store, NS, TABLE), []);
  });

  it('an upload that fails midway leaves the state and manifest as they were, and no object of the run behind', async () => {
    const { store, work } = await fresh();
    const [p6, p4] = [fixture.point(6), fixture.point(4)];
    await run(store, work, p6, {}, { maxFileBytes: 8 * 1024 });
    const state = (await store.getBytes(layoutOf(NS, TABLE).state))!.body.toString();
    let uploads = 0;
    store.faults.beforeWrite = (_key, kind) => {
      if (kind === 'upload' && ++uploads === 3) throw new Error('connection reset in the middle of a part');
    };
    const failed = await run(store, work, p4, {}, { maxFileBytes: 8 * 1024 }, true);
    assert.equal(failed.outcome, 'failed');
    assert.match(failed.error?.message ?? '', /connection reset/);
    assert.equal((await store.getBytes(layoutOf(NS, TABLE).state))!.body.toString(), state);
    await assertAt(store, p6);
    assert.deepEqual(await unaccounted(store, NS, TABLE), []);
  });

  it('a full work folder: a clear io error naming the folder; nothing the state lists changes', async function () {
    const { store } = await fresh();
    const work = path.join(fixture.dir, 'tiny-work');
    const why = await tryMountTmpfs(work, { sizeKiB: 64 });
    if (why) this.skip();
    try {
      const failed = await run(store, work, fixture.point(6));
      assert.equal(failed.outcome, 'failed');
      assert.equal(failed.error?.kind, 'io', JSON.stringify(failed.error));
      assert.ok(failed.error?.message.includes(work), failed.error?.message);
      assert.equal(await stateOf(store, NS, TABLE), undefined);
      assert.deepEqual((await store.list('')).map((o) => o.key), []);
    } finally {
      unmount(work);
    }
  });

  for (const enforcesConditions of [true, false]) {
    it(`two syncs of one table: the second waits, saying so once, then fails naming the holder (${enforcesConditions ? 'conditions enforced' : 'conditions ignored'})`, async () => {
      const { store, work } = await fresh(enforcesConditions);
      const first = lakeTarget(store, work);
      const logs = new LogLines();
      const second = lakeTarget(store, work, { logger: logs, lockWaitMs: 1500 });
      await first.open();
      await second.open();
      try {
        const release = await first.lockTable(NS, TABLE);
        await assert.rejects(second.lockTable(NS, TABLE), (err: Error) => {
          assert.match(err.message, new RegExp(`being synced by process ${process.pid} on .* \\(run \\d{8}T\\d{6}Z-[0-9a-f]{8}`));
          return true;
        });
        assert.equal(logs.lines.filter((l) => /waiting up to/.test(l)).length, 1, logs.lines.join('\n'));
        await release();
        const taken = await second.lockTable(NS, TABLE);
        await taken();
        assert.equal(await store.getBytes(layoutOf(NS, TABLE).lock), undefined, 'a released lock is gone');
      } finally {
        await first.close();
        await second.close();
      }
    });
  }

  it('a lock left by a sync that stopped is taken over once it has run out', async () => {
    const { store, work } = await fresh();
    const clock = new FakeClock(Date.now());
    const left = lakeTarget(store, work, { clock }, { lockTtlMs: 60_000 });
    await left.open();
    await left.lockTable(NS, TABLE); // never released: the process "died" (its renewals stop with the clock)
    const later = new FakeClock(Date.now() + 61_000);
    const next = lakeTarget(store, work, { clock: later, lockWaitMs: 0 });
    await next.open();
    const release = await next.lockTable(NS, TABLE);
    await release();
    await next.close();
  });

  it('a lock is renewed while its sync runs, so it is never taken from a sync that is alive', async () => {
    const { store, work } = await fresh();
    const clock = new FakeClock(Date.now());
    const holder = lakeTarget(store, work, { clock }, { lockTtlMs: 60_000 });
    await holder.open();
    const release = await holder.lockTable(NS, TABLE);
    const expiry = async (): Promise<number> => Date.parse(JSON.parse((await store.getBytes(layoutOf(NS, TABLE).lock))!.body.toString()).expiresAt);
    const first = await expiry();
    await clock.advance(21_000);
    // the renewal's store calls are real I/O: wait for them
    for (let i = 0; i < 50 && (await expiry()) === first; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok((await expiry()) >= first + 20_000, 'renewed a third of its time on');
    await clock.advance(40_000 + 1000); // past the first expiry, renewed twice more
    for (let i = 0; i < 50 && (await expiry()) <= clock.now(); i++) await new Promise((r) => setTimeout(r, 20));
    const other = lakeTarget(store, work, { clock: new FakeClock(clock.now()), lockWaitMs: 0 });
    await other.open();
    await assert.rejects(other.lockTable(NS, TABLE), /being synced by process/);
    await release();
    await holder.close();
    await other.close();
  });

  it('a sync whose lock was taken over while it ran does not commit: the table stays as the other sync left it', async () => {
    const { store, work } = await fresh();
    await run(store, work, fixture.point(6));
    const state = (await store.getBytes(layoutOf(NS, TABLE).state))!.body;
    const clock = new FakeClock(Date.now());
    const slow = lakeTarget(store, work, { clock }, { lockTtlMs: 60_000 });
    await slow.open();
    const release = await slow.lockTable(NS, TABLE);
    // its renewals stop (its clock stands still), and another sync takes the lock once it runs out
    const other = lakeTarget(store, work, { clock: new FakeClock(Date.now() + 61_000), lockWaitMs: 0 });
    await other.open();
    const taken = await other.lockTable(NS, TABLE);
    const plan = { kind: 'changes' as const, table: await tableOf(), files: [], addedColumns: [], state: { namespace: NS, table: TABLE, point: fixture.point(4), schemaVersion: 1, schema: {}, ranAt: isoUtc(Date.now()) } };
    plan.state.schemaVersion = plan.table.schemaVersion;
    plan.state.schema = plan.table.schema;
    await assert.rejects(slow.apply(plan), /was taken over by another sync/);
    assert.deepEqual((await store.getBytes(layoutOf(NS, TABLE).state))!.body, state);
    await taken();
    await release();
    await slow.close();
    await other.close();
  });

  it('two syncs of one table at once: the second waits for the first, and the table ends equal', async () => {
    const { store, work } = await fresh();
    await run(store, work, fixture.point(6));
    const until = fixture.point(3);
    const both = await Promise.all([run(store, work, until), run(store, work, until)]);
    assert.deepEqual(both.map((r) => r.outcome).sort(), ['synced', 'unchanged'], JSON.stringify(both));
    await assertAt(store, until);
    assert.deepEqual(await unaccounted(store, NS, TABLE), []);
    assert.equal(await store.getBytes(layoutOf(NS, TABLE).lock), undefined);
  });

  it('retired files are kept for the grace period, for readers of the old manifest, and deleted by the first run after it', async () => {
    const { store, work } = await fresh();
    const clock = new FakeClock(Date.now());
    const [p6, p4, p2] = [fixture.point(6), fixture.point(4), fixture.point(2)];
    await run(store, work, p6, { clock, retainHours: 24 });
    const first = (await stateOf(store, NS, TABLE))!;
    await clock.advance(3_600_000);
    await run(store, work, p4, { clock, retainHours: 24 }, {}, true);
    const retired = (await stateOf(store, NS, TABLE))!.retired;
    assert.deepEqual(retired.map((f) => f.key), first.files.map((f) => f.key));
    for (const f of first.files) assert.ok(await store.getBytes(f.key), `${f.key} is kept`);
    await clock.advance(24 * 3_600_000 + 1000);
    await run(store, work, p2, { clock, retainHours: 24 });
    const now = (await stateOf(store, NS, TABLE))!;
    assert.deepEqual(now.retired.filter((f) => first.files.some((o) => o.key === f.key)), []);
    for (const f of first.files) assert.equal(await store.getBytes(f.key), undefined, `${f.key} is deleted`);
    assert.ok(now.retired.every((r) => Date.parse(r.retiredAt) > Date.parse(isoUtc(clock.now() - 24 * 3_600_000))));
    await assertAt(store, p2);
    assert.deepEqual(await unaccounted(store, NS, TABLE), []);
  });

  it('merges small files past the threshold, and all of them when asked to compact', async () => {
    // web_logs, appended to: each incremental adds a file and rewrites none
    const logs: [string, string] = ['canvas_logs', 'web_logs'];
    const points = [6, 5, 4, 3, 2, 1].map((d) => fixture.point(d));
    const { store, work } = await fresh();
    const tuning = { smallFilesToCompact: 3 };
    const counts: number[] = [];
    for (const until of points) {
      await run(store, work, until, {}, tuning, false, logs);
      counts.push((await stateOf(store, logs[0], logs[1]))!.files.length);
    }
    assert.ok(counts.every((c) => c <= 3) && counts.includes(3), `file counts ${counts.join(', ')}`);
    await assertAt(store, points[5], logs);
    assert.deepEqual(await unaccounted(store, logs[0], logs[1]), []);

    const many = await fresh();
    for (const until of points) await run(many.store, many.work, until, {}, {}, false, logs);
    assert.equal((await stateOf(many.store, logs[0], logs[1]))!.files.length, points.length, 'one file per run below the threshold');
    await run(many.store, many.work, fixture.point(0), { compact: true }, {}, false, logs);
    assert.equal((await stateOf(many.store, logs[0], logs[1]))!.files.length, 1);
    assert.equal((await manifestFiles(many.store, logs[0], logs[1])).length, 1);
    await assertAt(many.store, fixture.point(0), logs);
    await fs.rm(work, { recursive: true, force: true });
  });
});

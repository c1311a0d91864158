// The PostgreSQL sync target against a real PostgreSQL server, when things go wrong: whatever
// stops a run (a corrupt or cut result file, a line that would end COPY early, a record without
// its key, an abort at any step, the lock's session closed as idle, the server going away), the
// table and its meta row keep the last complete run. Two syncs never apply one table at once:
// the second waits a bounded time, saying so once and naming the holder. (What a run does when
// all goes well is postgresTarget.test.ts.)

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { dqRejection } from '../../support/dqRejection';
import { FakeClock } from '../../support/fakeClock';
import { errorTexts, line, plan, postgresTargetSuite } from './serverTargetSuite';
import { writeGzJsonl } from './syncFixture';

describe('sync: PostgreSQL target, faults and locks (real server)', function () {
  this.timeout(120_000);
  const suite = postgresTargetSuite();
  const { target, gzFile, metaRows, until, seeded } = suite;

  /** Waits until the server shows what a test waits for (a count above zero). */
  async function waitFor(what: string, sql: string): Promise<void> {
    await until(what, async () => Number((await suite.server.admin<{ n: string }>(sql))[0].n) > 0);
  }
  const BLOCKED_ON_LOCK = `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'dq sync%' AND wait_event_type = 'Lock'`;

  it('keeps the table and its meta row as they were when the last file is corrupt, and applies the next run', async () => {
    const { t, keptLastRun } = await seeded();
    const good = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'changed' } }]);
    const whole = gzipSync(Array.from({ length: 2000 }, (_, i) => line({ ts: '2026-11-20T09:00:00Z', key: { id: 100 + i }, value: { name: `n${i}` } })).join('\n'));
    const corrupt = Buffer.from(whole);
    for (let i = 200; i < 260; i++) corrupt[i] ^= 0x5a;
    const bad = path.join(suite.tmp, 'corrupt.jsonl.gz');
    await fs.writeFile(bad, corrupt);

    for (const kind of ['changes', 'snapshot'] as const) {
      const err = await dqRejection(t.apply(plan(kind, [good, bad], '2026-11-20T12:00:00Z')));
      assert.equal(err.kind, 'invalidResponse', err.describe());
      assert.match(err.message, /not valid gzip/);
      assert.match(err.message, /keeps its last complete run/);
      await keptLastRun(kind);
    }
    const truncated = path.join(suite.tmp, 'truncated.jsonl.gz');
    await fs.writeFile(truncated, whole.subarray(0, whole.length - 100));
    const err = await dqRejection(t.apply(plan('changes', [good, truncated], '2026-11-20T12:00:00Z')));
    assert.equal(err.kind, 'invalidResponse', err.describe());
    await keptLastRun();

    const result = await t.apply(plan('changes', [good], '2026-11-20T12:00:00Z'));
    assert.deepEqual(result, { upserted: 1, deleted: 0, rows: 3 });
    assert.equal((await t.readState('canvas', 'users'))?.point, '2026-11-20T12:00:00Z');
  });

  it('a resnapshot whose file holds a line \\. (which ends COPY early) fails naming the line and keeps the table as it was', async () => {
    const { t, keptLastRun } = await seeded();
    const records = [1, 2, 3].map((id) => line({ ts: '2026-11-20T09:00:00Z', key: { id }, value: { name: `new ${id}` } }));
    for (const lines of [[records[0], '\\.', records[1], records[2]], [records[0], '\\.\r', records[1], records[2]]]) {
      const file = await writeGzJsonl(suite.tmp, lines);
      for (const kind of ['snapshot', 'changes'] as const) {
        const err = await dqRejection(t.apply(plan(kind, [file], '2026-11-20T12:00:00Z')));
        assert.equal(err.kind, 'invalidResponse', err.describe());
        assert.match(err.message, new RegExp(`^Line 2 of ${path.basename(file).replace(/\./g, '\\.')}, a result file of canvas\\.users, is not a JSON record`));
        assert.match(err.hint ?? '', /keeps its last complete sync/);
        await keptLastRun(`${kind} of ${JSON.stringify(lines[1])}`);
      }
    }
  });

  /** Holds the table's meta row, so an apply gets as far as writing it (its rows applied) and waits. */
  const HOLD_META_ROW = `BEGIN; SELECT 1 FROM public.dq_sync_state WHERE namespace = 'canvas' AND "table" = 'users' FOR UPDATE`;

  it('rolls back when aborted with its rows applied but its meta row not yet written, and lets go of the table', async () => {
    const { t, keptLastRun } = await seeded();
    const holder = await suite.server.adminClient();
    try {
      await holder.query(HOLD_META_ROW);
      const file = await gzFile([
        { ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } },
        { ts: '2026-11-20T09:00:00Z', key: { id: 2 }, value: { name: 'changed' } },
      ]);
      const abort = new AbortController();
      const running = t.apply(plan('changes', [file], '2026-11-20T12:00:00Z', { signal: abort.signal }));
      await waitFor('the apply waiting to write its meta row', BLOCKED_ON_LOCK);
      abort.abort();
      const err = await dqRejection(running);
      assert.equal(err.kind, 'cancelled', err.describe());
      assert.match(err.message, /keeps its last complete run/);
      // nothing of ours waits on the server any more
      const [busy] = await suite.server.admin<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'dq sync%' AND state <> 'idle'`);
      assert.equal(Number(busy.n), 0);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    await keptLastRun();
    const release = await target({ lockWaitMs: 0 }).lockTable('canvas', 'users');
    await release();
  });

  it('keeps the table as it was when a record fails after the deletes and the emptying ran', async () => {
    const { t, keptLastRun } = await seeded();
    const keyless = await gzFile([
      { ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } },
      { ts: '2026-11-20T09:00:00Z', key: {}, value: { name: 'no key' } },
    ]);
    for (const kind of ['changes', 'snapshot'] as const) {
      const err = await dqRejection(t.apply(plan(kind, [keyless], '2026-11-20T12:00:00Z')));
      assert.equal(err.kind, 'invalidResponse', err.describe());
      assert.match(err.message, /no value for a key column/);
      await keptLastRun(kind);
    }
  });

  it('rolls back when aborted in the middle of a file', async () => {
    const { t, keptLastRun } = await seeded();
    const good = await gzFile([{ ts: '2026-11-20T09:00:00Z', key: { id: 1 }, value: { name: 'changed' } }]);
    const abort = new AbortController();
    const err = await suite.stalledApply(
      t,
      (fifo) => plan('snapshot', [good, fifo], '2026-11-20T12:00:00Z', { signal: abort.signal }),
      async () => {
        await waitFor('the COPY of the second file', `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'dq sync%' AND state = 'active' AND query LIKE 'COPY %'`);
        abort.abort();
      },
    );
    assert.equal(err.kind, 'cancelled', err.describe());
    await keptLastRun();
    // the target goes on: its session was rolled back, not left inside the COPY
    const result = await t.apply(plan('changes', [good], '2026-11-20T12:00:00Z'));
    assert.equal(result.upserted, 1);
  });

  it('keeps a second sync off a table until the first lets go, naming the holder; other tables stay free', async () => {
    const clock = new FakeClock();
    const first = target();
    const second = target({ lockWaitMs: 300, clock });
    await first.open();
    await second.open();
    const release = await first.lockTable('canvas', 'users');
    const started = clock.now();
    const err = await dqRejection(clock.run(second.lockTable('canvas', 'users')));
    assert.equal(clock.now() - started, 300, 'it gave up once the wait was over');
    assert.equal(err.kind, 'io', err.describe());
    assert.match(err.message, /canvas\.users/);
    assert.ok(err.message.includes(`dq sync (pid ${process.pid}`), err.message);
    assert.match(err.message, /server process \d+/);
    assert.match(err.hint ?? '', /again when it has finished/);
    const file = await gzFile([{ ts: '2026-11-19T08:00:00Z', key: { id: 1 }, value: { name: 'x' } }]);
    const applyErr = await dqRejection(clock.run(second.apply(plan('snapshot', [file], '2026-11-20T08:00:00Z'))));
    assert.equal(applyErr.kind, 'io');
    assert.deepEqual(await metaRows(), []);

    const other = await second.lockTable('canvas', 'courses');
    await other();
    await release();
    await release();
    const now = await second.lockTable('canvas', 'users');
    await now();
  });

  it('waits for a lock another sync holds, trying again, and takes it once that sync lets go', async () => {
    const clock = new FakeClock();
    const first = target();
    const warnings: string[] = [];
    const second = target({ clock, lockWaitMs: 30_000, logger: { ...suite.log, warn: (m: string) => void warnings.push(m) } });
    const release = await first.lockTable('canvas', 'users');
    let taken = false;
    const waiting = second.lockTable('canvas', 'users').then((r) => {
      taken = true;
      return r;
    });
    const sleeping = (): Promise<void> => until('a sync sleeping between tries', () => clock.pending > 0);
    const wake = (): Promise<void> => clock.advance(clock.nextAt()! - clock.now());
    for (let i = 0; i < 3; i++) {
      await sleeping();
      await wake();
    }
    // released while the second sync sleeps between tries, so its next try is the one that wins
    await sleeping();
    assert.equal(taken, false);
    const tries = [...clock.sleeps];
    await release();
    await wake();
    const releaseSecond = await waiting;
    assert.equal(taken, true);
    assert.ok(tries.length >= 4 && tries.every((ms) => ms > 0 && ms <= 2_000), String(tries));
    // said once, as a warning, when it began to wait, naming the holder
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(
      warnings[0],
      new RegExp(`^waiting up to 30 s for canvas\\.users in PostgreSQL at ${second.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: another sync \\(dq sync \\(pid ${process.pid} on [^)]+\\), server process \\d+( from [^)]+)?\\) is applying it\\.$`),
    );

    // a third sync, stopped while it waits (the second's keep-alive sleeps meanwhile)
    const third = target({ clock, lockWaitMs: 30_000 });
    const abort = new AbortController();
    const stopped = third.lockTable('canvas', 'users', abort.signal);
    stopped.catch(() => undefined);
    await until('the third sync sleeping between tries', () => clock.pending > 1);
    abort.abort();
    const err = await dqRejection(stopped);
    assert.equal(err.kind, 'cancelled', err.describe());
    await releaseSecond();
  });

  it('when the session holding a table\'s lock is closed as idle anyway, says so and what closed it; the table keeps its last run', async () => {
    const { keptLastRun } = await seeded();
    await suite.server.admin(`ALTER ROLE dq_sync SET idle_session_timeout = '1500ms'`);
    try {
      // a clock that never moves: the keep-alive statements never run, as if they could not keep up
      const t = target({ clock: new FakeClock() });
      await t.open();
      const release = await t.lockTable('canvas', 'users');
      const [{ pid }] = await suite.server.admin<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = hashtext('canvas.users')::oid AND classid = hashtext('dq_sync')::oid`,
      );
      await until('the server closing the idle session that holds the lock', async () => (await suite.server.admin(`SELECT 1 FROM pg_stat_activity WHERE pid = $1`, [pid])).length === 0);
      const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } }]);
      const err = await dqRejection(t.apply(plan('changes', [file], '2026-11-20T12:00:00Z')));
      assert.equal(err.kind, 'network', err.describe());
      assert.match(err.message, /^The connection that held the lock of canvas\.users in PostgreSQL at \S+ was lost while the data was fetched: the server closed it as idle \(idle_session_timeout\)/);
      assert.match(err.message, /idle-session timeout/, 'the server\'s own words');
      assert.match(err.message, /keeps its last complete run/);
      assert.match(err.hint ?? '', /^Run the sync again\. If it keeps happening, .*idle_session_timeout, or the idle timeout of a pooler or firewall/);
      await release();
    } finally {
      await suite.server.admin(`ALTER ROLE dq_sync RESET idle_session_timeout`);
    }
    await keptLastRun();
  });

  it('a server that goes away mid-run: a clear network error, and after a restart the last complete run is intact', async () => {
    const { t, keptLastRun } = await seeded();
    const holder = await suite.server.adminClient();
    await holder.query(HOLD_META_ROW);
    const file = await gzFile([{ ts: '2026-11-20T09:00:00Z', action: 'D', key: { id: 1 } }]);
    const running = t.apply(plan('changes', [file], '2026-11-20T12:00:00Z'));
    running.catch(() => undefined);
    await waitFor('the apply waiting to write its meta row', BLOCKED_ON_LOCK);
    await suite.server.halt();
    const err = await dqRejection(running);
    await holder.end().catch(() => undefined);
    assert.equal(err.kind, 'network', err.describe());
    assert.ok(err.message.includes(suite.server.urlWithoutPassword), err.message);
    assert.match(err.message, /keeps its last complete run/);
    assert.match(err.hint ?? '', /server is running/);
    assert.ok(!errorTexts(err).includes(suite.server.password));

    const down = await dqRejection(t.readState('canvas', 'users'));
    assert.equal(down.kind, 'network', down.describe());

    await suite.server.restart();
    await keptLastRun();
    assert.equal((await t.readState('canvas', 'users'))?.point, '2026-11-20T08:00:00Z');
    const result = await t.apply(plan('changes', [file], '2026-11-20T12:00:00Z'));
    assert.deepEqual(result, { upserted: 0, deleted: 1, rows: 2 });
  });

});

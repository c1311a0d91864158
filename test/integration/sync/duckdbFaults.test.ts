// A sync cut short while it applies a large table: aborted through its signal, killed with
// SIGKILL (dq as a process), or stopped by a disk that fills. Each time the database keeps
// the table and its meta row at the last complete run, and the next run ends equal to the
// emulator's own snapshot. The large table is canvas_logs.web_logs with 200,000 rows, so an
// apply lasts long enough to be cut short in the middle.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { DuckdbTarget } from '../../../src/sync/duckdbTarget';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import type { SyncState } from '../../../src/sync/syncTarget';
import { tmpfsForSuite } from '../../support/tmpfsMount';
import { dqSync } from './dqSyncProcess';
import { assertSameRows, syncedRows, SyncFixture, syncInto, withTarget, type TableRows, type SyncOptions } from './syncFixture';

const ROWS = 200_000;

function sync(file: string, options: SyncOptions): Promise<TableSyncReport[]> {
  return syncInto(new DuckdbTarget({ path: file }), options);
}

function stateOf(file: string): Promise<SyncState | undefined> {
  return withTarget(new DuckdbTarget({ path: file, readOnly: true }), (t) => t.readState('canvas_logs', 'web_logs'));
}

async function assertEqualLogs(file: string, expected: TableRows): Promise<void> {
  assertSameRows(await syncedRows(file, 'canvas_logs', 'web_logs', 1), expected, 'canvas_logs.web_logs');
}

describe('sync cut short while it applies', function () {
  this.timeout(240_000);
  let fixture: SyncFixture;
  let early: string;
  let late: string;
  let atEarly: TableRows;
  let atLate: TableRows;

  before(async () => {
    fixture = await SyncFixture.start({ rows: ROWS });
    early = fixture.point(4);
    late = fixture.point(0);
    atEarly = await fixture.reference('canvas_logs', 'web_logs', early);
    atLate = await fixture.reference('canvas_logs', 'web_logs', late);
    assert.ok(atLate.rows.size > atEarly.rows.size, 'the log grew between the two points');
  });
  after(async () => {
    await fixture?.close();
  });

  it('an abort in the middle of an apply keeps the last run; the next run ends equal to the emulator', async () => {
    const file = path.join(fixture.dir, 'aborted.duckdb');
    await sync(file, { client: fixture.client, namespace: 'canvas_logs', tables: ['web_logs'], until: early });
    const kept = await stateOf(file);
    const controller = new AbortController();
    const [report] = await sync(file, {
      client: fixture.client,
      namespace: 'canvas_logs',
      tables: ['web_logs'],
      until: late,
      resnapshot: true,
      signal: controller.signal,
      onProgress: (p) => p.stage === 'applying' && setTimeout(() => controller.abort(), 50),
    });
    assert.equal(report.outcome, 'cancelled');
    assert.equal(report.point, early, 'the report names the point kept');
    assert.deepEqual(await stateOf(file), kept);
    await assertEqualLogs(file, atEarly);

    const [resumed] = await sync(file, { client: fixture.client, namespace: 'canvas_logs', tables: ['web_logs'], until: late });
    assert.equal(resumed.kind, 'changes');
    assert.equal(resumed.upserted, atLate.rows.size - atEarly.rows.size);
    await assertEqualLogs(file, atLate);
  });

  it('dq sync killed with SIGKILL while it applies keeps the last run; the next dq sync ends equal and removes what the killed one left', async () => {
    const file = path.join(fixture.dir, 'killed.duckdb');
    const work = path.join(fixture.dir, 'killed-work');
    await fs.mkdir(work);
    await sync(file, { client: fixture.client, namespace: 'canvas_logs', tables: ['web_logs'], until: early });
    const kept = await stateOf(file);

    const argv = ['canvas_logs', 'web_logs', '--to', file, '--until', late];
    const run = dqSync(fixture, [...argv, '--resnapshot', '--progress'], { tmpDir: work });
    const lines: string[] = [];
    createInterface({ input: run.child.stderr }).on('line', (line) => {
      lines.push(line);
      if (line === 'canvas_logs.web_logs: applying') run.child.kill('SIGKILL');
    });
    const { signal } = await run.done;
    assert.equal(signal, 'SIGKILL', `killed while applying; it said: ${lines.join(' | ')}`);
    assert.equal((await fs.readdir(work)).filter((n) => n.startsWith('dq-sync-')).length, 1, 'the killed run left its downloads');
    assert.deepEqual(await stateOf(file), kept);
    await assertEqualLogs(file, atEarly);

    const { code, stdout, stderr } = await dqSync(fixture, [...argv, '--json'], { tmpDir: work }).done;
    assert.equal(code, 0, stderr);
    const [report] = (JSON.parse(stdout) as { tables: TableSyncReport[] }).tables;
    assert.equal(report.kind, 'changes');
    assert.equal(report.point, late);
    assert.deepEqual(await fs.readdir(work), [], 'the abandoned downloads are gone');
    await assertEqualLogs(file, atLate);
  });

  describe('on a disk that fills', () => {
    // room for the first, small load, not for the whole log table
    const smallDisk = tmpfsForSuite(() => path.join(fixture.dir, 'small-disk'), { sizeKiB: 6 * 1024 });

    it('fails that table with an io error naming the database, keeps the last run, and syncs once there is room', async () => {
      const file = path.join(smallDisk(), 'sync.duckdb');
      const [first] = await sync(file, { client: fixture.client, namespace: 'canvas', tables: ['quizzes'], until: early });
      assert.equal(first.outcome, 'synced');
      const reports = await sync(file, { client: fixture.client, namespace: 'canvas_logs', tables: ['web_logs'], until: early, workDir: fixture.dir });
      assert.equal(reports[0].outcome, 'failed', JSON.stringify(reports[0]));
      assert.equal(reports[0].error?.kind, 'io');
      assert.ok(reports[0].error?.message.includes(file), reports[0].error?.message);
      assert.match(reports[0].error?.hint ?? '', /Free disk space/);
      const states = await withTarget(new DuckdbTarget({ path: file, readOnly: true }), (t) => t.listStates());
      assert.deepEqual(states.map((s) => [s.table, s.point, s.rows]), [['quizzes', early, first.rows]]);

      // the same file on a disk with room: the next run finds it whole and loads the log
      const roomy = path.join(fixture.dir, 'roomy.duckdb');
      await fs.copyFile(file, roomy);
      const [retried] = await sync(roomy, { client: fixture.client, namespace: 'canvas_logs', tables: ['web_logs'], until: early });
      assert.equal(retried.outcome, 'synced');
      await assertEqualLogs(roomy, atEarly);
    });
  });
});

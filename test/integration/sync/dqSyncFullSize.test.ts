// dq against the emulator at the service's real size: `dq tables canvas` lists the whole
// documented table list, and `dq sync canvas --all` takes a snapshot of every one of its 90
// tables into one DuckDB file (keys, nested objects, arrays, enums and all), each holding as
// many rows as the emulator's history has alive at the point the job reached.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { CANVAS_SERVICE_TABLES } from '../../../src/emulator/sampleData/canvasServiceTables';
import { ChangeHistory } from '../../../src/emulator/sampleData/changeHistory';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import { runDq } from '../../support/cliHarness';
import { columnTypes, dqEnvOf, sharedClock } from './syncFixture';

describe('dq at the service\'s real size', function () {
  this.timeout(180_000);
  const clock = sharedClock();
  const catalog = new SampleCatalog();
  let emulator: RunningEmulator;
  let tmp: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    emulator = await startEmulator({ jobDelayMs: 0, limits: false, clock, seed: 1 });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-full-size-'));
    env = { ...dqEnvOf(emulator), HOME: tmp, TMPDIR: tmp };
  });
  after(async () => {
    await emulator?.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('dq tables canvas lists the 90 tables of the service\'s list, the emulator\'s own', async () => {
    const run = await runDq(['tables', 'canvas'], { env, cwd: tmp });
    assert.equal(run.code, 0, run.stderr);
    const listed = run.stdout.trim().split('\n');
    assert.equal(listed.length, 90);
    assert.deepEqual(listed, catalog.tables('canvas'));
    for (const t of [...CANVAS_SERVICE_TABLES.map((d) => d.name), 'accounts', 'users', 'courses', 'enrollments', 'assignments', 'submissions', 'quizzes']) {
      assert.ok(listed.includes(t), t);
    }
  });

  it('dq sync canvas --all snapshots every table into DuckDB, each with the rows alive at its point', async () => {
    // limits raised with the provider, as they may be: at 5 job creations a minute this would take 18 minutes
    const argv = ['sync', 'canvas', '--all', '--to', 'canvas.duckdb', '--json', '--concurrency', '8', '--rate-limits', 'createJob=1000'];
    const run = await runDq(argv, { env, cwd: tmp });
    assert.equal(run.code, 0, run.stderr);
    const reports = (JSON.parse(run.stdout) as { tables: TableSyncReport[] }).tables;
    assert.deepEqual(reports.map((r) => r.table), catalog.tables('canvas'));
    const history = new ChangeHistory(1, clock.now());
    for (const r of reports) {
      assert.equal(r.outcome, 'synced', `${r.table}: ${JSON.stringify(r.error)}`);
      assert.equal(r.kind, 'snapshot');
      const def = catalog.table('canvas', r.table)!;
      const alive = [...history.records(def, { until: Date.parse(r.point!) }, 0, def.rowCount)].length;
      assert.equal(r.rows, alive, `${r.table}: rows at ${r.point}`);
      assert.equal(r.schemaVersion, def.version);
    }

    const file = path.join(tmp, 'canvas.duckdb');
    // keyed by another table's id; a fixed object in dotted columns; an array and a free object as JSON; enums as text
    assert.deepEqual(await columnTypes(file, 'canvas', 'enrollment_states').then((t) => t.enrollment_id), 'BIGINT');
    const groups = await columnTypes(file, 'canvas', 'assignment_groups');
    assert.equal(groups['rules.drop_lowest'], 'INTEGER');
    assert.equal(groups['rules.never_drop'], 'JSON');
    const keys = await columnTypes(file, 'canvas', 'developer_keys');
    assert.equal(keys.redirect_uris, 'JSON');
    assert.equal(keys.scopes, 'JSON');
    assert.equal(keys.workflow_state, 'VARCHAR');
  });
});

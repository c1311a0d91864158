// The DuckDB target on its own, with result files written here in the service's record shape:
// a snapshot delivered with duplicate keys (the logs namespace is delivered at least once), a
// change set with several records of one key, records that carry no action, a column added in place, a file that cannot be
// loaded, an abort, and a database file another process holds.

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { nullLogger } from '../../../src/core/logger';
import { DuckdbTarget } from '../../../src/sync/duckdbTarget';
import { targetTableOf } from '../../../src/sync/syncColumns';
import type { ApplyPlan, SyncState, TargetTable } from '../../../src/sync/syncTarget';
import { FakeClock } from '../../support/fakeClock';
import { alterDatabase, withDatabase, withTarget as withOpened, writeGzJsonl } from './syncFixture';
import { d, peopleSchema, T0, T1, T2, u, type Rec } from '../../support/peopleRecords';

const SCHEMA = peopleSchema();
const TABLE: TargetTable = targetTableOf('school', 'people', SCHEMA);

describe('the DuckDB sync target', function () {
  this.timeout(60_000);
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-duckdb-target-'));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const gz = (records: Rec[]): Promise<string> => writeGzJsonl(dir, records.map((r) => JSON.stringify(r)));

  function plan(kind: ApplyPlan['kind'], paths: string[], point: string, more: Partial<ApplyPlan> = {}): ApplyPlan {
    return {
      kind,
      table: TABLE,
      files: paths,
      addedColumns: [],
      state: { namespace: 'school', table: 'people', point, schemaVersion: 1, schema: SCHEMA.schema, ranAt: '2026-11-24T00:00:00Z' },
      ...more,
    };
  }

  const withTarget = <T>(file: string, work: (target: DuckdbTarget) => Promise<T>, options: { lockWaitMs?: number } = {}): Promise<T> =>
    withOpened(new DuckdbTarget({ path: file, ...options }), work);

  /** id -> the row's other columns, as text (null stays null) */
  function rows(file: string, columns = 'name, score, seen_at, tags, "address.city"'): Promise<Record<string, unknown[]>> {
    return withDatabase(file, async (db) => {
      const conn = await db.connect();
      try {
        const reader = await conn.runAndReadAll(`SELECT id, ${columns.split(', ').map((c) => `CAST(${c} AS VARCHAR)`).join(', ')} FROM school.people ORDER BY id`);
        return Object.fromEntries(reader.getRowsJson().map(([id, ...rest]) => [String(id), rest]));
      } finally {
        conn.closeSync();
      }
    });
  }

  async function snapshotOf(file: string): Promise<{ rows: Record<string, unknown[]>; state: SyncState | undefined }> {
    const state = await withTarget(file, (t) => t.readState('school', 'people'));
    return { rows: await rows(file), state };
  }

  it('loads a snapshot with duplicate keys: the newest record of a key wins, then the later file, then the later line', async () => {
    const file = path.join(dir, 'duplicates.duckdb');
    const first = await gz([u(1, T1, { name: 'a' }), u(2, T1, { name: 'b' }), u(1, T1, { name: 'c' }), u(4, T0, { name: 'gone' }), d(4, T1)]);
    const second = await gz([u(2, T0, { name: 'older' }), u(3, T1, { name: 'e' }), u(3, T1, { name: 'f' })]);
    const result = await withTarget(file, (t) => t.apply(plan('snapshot', [first, second], T1)));
    assert.deepEqual(result, { upserted: 3, deleted: 0, rows: 3 });
    const loaded = await rows(file, 'name');
    assert.deepEqual(loaded, { '1': ['c'], '2': ['b'], '3': ['f'] });
  });

  it('applies a change set by key: the last record of each key decides, empty text and null stay apart, nested members and JSON land in their columns', async () => {
    const file = path.join(dir, 'changes.duckdb');
    const base = await gz([u(1, T0, { name: 'one' }), u(2, T0, { name: 'two' }), u(3, T0, { name: 'three' }), u(4, T0, { name: 'four' })]);
    await withTarget(file, (t) => t.apply(plan('snapshot', [base], T0)));
    const changes = await gz([
      u(1, T1, { name: 'one again' }),
      d(1, T2), // upsert then delete: gone
      d(2, T1),
      u(2, T2, { name: '', score: 2.5, tags: ['x', 'y'], address: { city: 'Ghent' }, seen_at: '2026-11-01T07:30:00Z' }), // delete then upsert: back, with every kind of value
      d(3, T1), // deleted
      d(9, T1), // never existed
      u(5, T1, { name: 'five' }), // new
    ]);
    const result = await withTarget(file, (t) => t.apply(plan('changes', [changes], T2)));
    assert.deepEqual(result, { upserted: 2, deleted: 2, rows: 3 });
    assert.deepEqual(await rows(file), {
      '2': ['', '2.5', '2026-11-01 07:30:00+00', '["x","y"]', 'Ghent'],
      '4': ['four', null, null, null, null],
      '5': ['five', null, null, null, null],
    });
    const state = await withTarget(file, (t) => t.readState('school', 'people'));
    assert.equal(state?.point, T2);
    assert.equal(state?.rows, 3);
  });

  it('keeps records that carry no action, in a snapshot and in a change set: only a delete removes a row', async () => {
    const file = path.join(dir, 'no-action.duckdb');
    const line = (record: object): string => JSON.stringify(record);
    const snapshot = await writeGzJsonl(dir, [
      line({ meta: { ts: T0 }, key: { id: 1 }, value: { name: 'one' } }),
      line({ key: { id: 2 }, value: { name: 'two' } }),
      line(u(3, T0, { name: 'three' })),
    ]);
    assert.deepEqual(await withTarget(file, (t) => t.apply(plan('snapshot', [snapshot], T0))), { upserted: 3, deleted: 0, rows: 3 });
    const changes = await writeGzJsonl(dir, [line({ meta: { ts: T1 }, key: { id: 1 }, value: { name: 'one again' } }), line(d(2, T1)), line({ meta: { ts: T1 }, key: { id: 4 }, value: { name: 'four' } })]);
    assert.deepEqual(await withTarget(file, (t) => t.apply(plan('changes', [changes], T1))), { upserted: 2, deleted: 1, rows: 3 });
    assert.deepEqual(await rows(file, 'name'), { '1': ['one again'], '3': ['three'], '4': ['four'] });
  });

  it('loads a record whose nested object is a truncation marker, or whose text ends in half an emoji, instead of failing the table', async () => {
    const file = path.join(dir, 'lenient.duckdb');
    const before = new Set(await fs.readdir(dir));
    const snapshot = await writeGzJsonl(dir, [
      JSON.stringify(u(1, T0, { name: 'one', address: '<truncated>' })),
      JSON.stringify(u(2, T0, { name: 'two', address: { city: 'Ghent' } })),
      // JSON.stringify writes a lone surrogate as the escape \ud83d, which DuckDB refuses to read
      JSON.stringify(u(3, T0, { name: 'cut \ud83d', address: null })),
    ]);
    assert.match(await fs.readFile(snapshot).then((b) => gunzipSync(b).toString()), /"cut \\ud83d"/);
    assert.deepEqual(await withTarget(file, (t) => t.apply(plan('snapshot', [snapshot], T0))), { upserted: 3, deleted: 0, rows: 3 });
    const changes = await writeGzJsonl(dir, [
      JSON.stringify(u(2, T1, { name: 'two', address: ['not', 'an', 'object'] })),
      `{"meta":{"action":"U","ts":"${T1}"},"key":{"id":4},"value":{"name":"\\\\ud83d is text, \\ud83d\\ude00 a pair","address":{"city":"Gh\\udc00ent"}}}`,
    ]);
    assert.deepEqual(await withTarget(file, (t) => t.apply(plan('changes', [changes], T1))), { upserted: 2, deleted: 0, rows: 4 });
    assert.deepEqual(await rows(file, 'name, "address.city"'), {
      '1': ['one', null],
      '2': ['two', null],
      '3': ['cut ', null],
      '4': ['\\ud83d is text, \u{1F600} a pair', 'Ghent'],
    });
    assert.deepEqual((await fs.readdir(dir)).filter((name) => !before.has(name) && !/^part-\d+\.jsonl\.gz$/.test(name) && !name.startsWith('lenient.duckdb')), [], 'no copy is left behind');
  });

  it('loads result files that are plain JSONL, known by their first bytes, not gzip: one with half an emoji is copied without it too', async () => {
    const file = path.join(dir, 'plain.duckdb');
    const plain = path.join(dir, 'plain-part-1.jsonl');
    await fs.writeFile(plain, [u(1, T0, { name: 'one' }), u(2, T0, { name: 'cut \ud83d' })].map((r) => `${JSON.stringify(r)}\n`).join(''));
    assert.deepEqual(await withTarget(file, (t) => t.apply(plan('snapshot', [plain], T0))), { upserted: 2, deleted: 0, rows: 2 });
    assert.deepEqual(await rows(file, 'name'), { '1': ['one'], '2': ['cut '] });
    assert.equal(existsSync(`${plain}.cleaned.jsonl.gz`), false, 'the copy is removed');
  });

  it('adds a new column in place before applying changes, keeping the rows it has', async () => {
    const file = path.join(dir, 'added.duckdb');
    await withTarget(file, async (t) => t.apply(plan('snapshot', [await gz([u(1, T0, { name: 'one' })])], T0)));
    const wider: SchemaEnvelope = JSON.parse(JSON.stringify(SCHEMA));
    wider.version = 2;
    wider.schema.properties!.value.properties!.nickname = { type: 'string' };
    const table = targetTableOf('school', 'people', wider);
    const added = table.columns.filter((c) => c.name === 'nickname');
    const changes = await gz([u(2, T1, { name: 'two', nickname: 'deux' })]);
    await withTarget(file, (t) => t.apply({ ...plan('changes', [changes], T1), table, addedColumns: added, state: { ...plan('changes', [], T1).state, schemaVersion: 2, schema: wider.schema } }));
    assert.deepEqual(await rows(file, 'name, nickname'), { '1': ['one', null], '2': ['two', 'deux'] });
    assert.equal((await withTarget(file, (t) => t.readState('school', 'people')))?.schemaVersion, 2);
  });

  it('leaves the table and its meta row as they were when a file cannot be loaded, or the apply is aborted', async () => {
    const file = path.join(dir, 'all-or-nothing.duckdb');
    await withTarget(file, async (t) => t.apply(plan('snapshot', [await gz([u(1, T0, { name: 'one' }), u(2, T0, { name: 'two' })])], T0)));
    const before = await snapshotOf(file);
    const good = await gz([d(1, T1), u(3, T1, { name: 'three' })]);
    const bad = path.join(dir, 'bad.jsonl.gz');
    await fs.writeFile(bad, gzipSync(`${JSON.stringify({ meta: { action: 'U', ts: T1 }, key: { id: 'not a number' }, value: {} })}\n`));

    for (const kind of ['changes', 'snapshot'] as const) {
      await assert.rejects(
        withTarget(file, (t) => t.apply(plan(kind, [good, bad], T1))),
        (err: Error & { kind?: string }) => {
          assert.equal(err.kind, 'invalidResponse');
          assert.match(err.message, /could not be loaded/);
          return true;
        },
      );
      assert.deepEqual(await snapshotOf(file), before, `after a failed ${kind}`);
    }
    const aborted = AbortSignal.abort();
    await assert.rejects(withTarget(file, (t) => t.apply(plan('snapshot', [good], T1, { signal: aborted }))), (err: Error & { kind?: string }) => err.kind === 'cancelled');
    assert.deepEqual(await snapshotOf(file), before, 'after an abort');
  });

  it('refuses a record past the record limit in the words the PostgreSQL target uses, naming the table and file', async () => {
    const file = path.join(dir, 'long-record.duckdb');
    await withTarget(file, async (t) => t.apply(plan('snapshot', [await gz([u(1, T0, { name: 'one' })])], T0)));
    const before = await snapshotOf(file);
    // DuckDB reads somewhat past its limit before it refuses: twice the limit is past either way
    const long = await gz([u(2, T1, { name: 'x'.repeat(2 * 16 * 1024 * 1024) })]);
    await assert.rejects(withTarget(file, (t) => t.apply(plan('snapshot', [long], T1))), (err: Error & { kind?: string; hint?: string }) => {
      assert.equal(err.kind, 'invalidResponse');
      assert.equal(err.message, `A record in ${path.basename(long)}, a result file of school.people, is longer than 16 MiB, the most a sync loads as one record.`);
      assert.match(err.hint ?? '', /keeps its last complete sync/);
      return true;
    });
    assert.deepEqual(await snapshotOf(file), before);
  });

  it('asks for a fresh snapshot when the synced table has gone from the database', async () => {
    const file = path.join(dir, 'dropped.duckdb');
    await withTarget(file, async (t) => t.apply(plan('snapshot', [await gz([u(1, T0, { name: 'one' })])], T0)));
    await alterDatabase(file, 'DROP TABLE school.people');
    await assert.rejects(withTarget(file, async (t) => t.apply(plan('changes', [await gz([u(2, T1, {})])], T1))), (err: Error & { kind?: string; hint?: string }) => {
      assert.equal(err.kind, 'snapshotRequired');
      assert.match(err.hint ?? '', /--resnapshot/);
      return true;
    });
  });

  it('reads the sync state of a database that does not exist yet as empty, without creating it', async () => {
    const file = path.join(dir, 'nothing-yet', 'sync.duckdb');
    const target = new DuckdbTarget({ path: file, readOnly: true });
    await target.open();
    assert.deepEqual(await target.listStates(), []);
    await target.close();
    assert.equal(existsSync(path.dirname(file)), false);
  });

  it('lets one sync in this process apply a table at a time, warning once when one waits', async () => {
    const file = path.join(dir, 'table-lock.duckdb');
    const warnings: string[] = [];
    const logger = { ...nullLogger, warn: (m: string) => void warnings.push(m) };
    const clock = new FakeClock();
    const one = new DuckdbTarget({ path: file });
    const two = new DuckdbTarget({ path: file, lockWaitMs: 300, logger, clock });
    await one.open();
    await two.open();
    try {
      const release = await one.lockTable('school', 'people');
      const started = clock.now();
      await assert.rejects(clock.run(two.lockTable('school', 'people')), /Another sync in this program is still applying school\.people/);
      assert.equal(clock.now() - started, 300, 'it gave up once the wait was over');
      assert.deepEqual(warnings, [`waiting up to 0.3 s for school.people in ${file}: another sync in this program is applying it.`]);
      const other = await two.lockTable('school', 'others');
      await other();
      const waiting = two.lockTable('school', 'people');
      await release();
      await release(); // safe twice
      await (await waiting)();
    } finally {
      await one.close();
      await two.close();
    }
  });

  describe('a database file another process holds', () => {
    let holder: ChildProcess | undefined;
    const file = (): string => path.join(dir, 'held.duckdb');

    /** A process that opens the file and holds it until told to let go. */
    async function hold(): Promise<ChildProcess> {
      const script = `
        const { DuckDBInstance } = require(${JSON.stringify(require.resolve('@duckdb/node-api'))});
        DuckDBInstance.create(${JSON.stringify(file())}).then((db) => {
          console.log('held');
          process.stdin.once('data', () => { db.closeSync(); process.exit(0); });
        });`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', () => resolve());
        child.once('exit', (code) => reject(new Error(`the holder exited ${code}`)));
      });
      return child;
    }

    function letGo(child: ChildProcess): Promise<void> {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.write('go\n');
      return exited;
    }

    afterEach(() => {
      if (holder && holder.exitCode === null) holder.kill('SIGKILL');
    });

    it('waits a bounded time, then fails naming the process that holds it', async () => {
      holder = await hold();
      const clock = new FakeClock();
      const target = new DuckdbTarget({ path: file(), lockWaitMs: 1200, clock });
      const started = clock.now();
      await assert.rejects(clock.run(target.open()), (err: Error & { kind?: string; hint?: string }) => {
        assert.equal(err.kind, 'io');
        assert.ok(err.message.includes(`process ${holder!.pid}`), err.message);
        assert.ok(err.message.includes(file()), err.message);
        assert.match(err.hint ?? '', /Another sync may still be running/);
        return true;
      });
      assert.equal(clock.now() - started, 1200, 'it gave up once the wait was over');
      await letGo(holder);
    });

    it('goes ahead once the other process lets go within the wait', async () => {
      holder = await hold();
      const clock = new FakeClock();
      let warn!: () => void;
      const warned = new Promise<void>((resolve) => (warn = resolve));
      const target = new DuckdbTarget({ path: file(), lockWaitMs: 20_000, clock, logger: { ...nullLogger, warn: () => warn() } });
      const opening = target.open();
      await Promise.race([warned, opening]);
      assert.equal(clock.pending, 1, 'it found the file held and waits before trying again');
      await letGo(holder);
      await clock.run(opening);
      assert.deepEqual(await target.listStates(), []);
      await target.close();
    });
  });
});

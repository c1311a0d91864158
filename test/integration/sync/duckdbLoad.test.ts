// How the DuckDB target loads many records: a snapshot read once from several files of
// thousands of records each (read in parallel), where keys repeat across and within files and
// some newest records are deletes; change sets on top; tables made by earlier versions, which
// have a PRIMARY KEY; and tables whose own columns are named like the columns a load uses for
// a while. Each ends with exactly the table's columns and the newest record of each key.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JsonSchema, SchemaEnvelope } from '../../../src/core/contract';
import { DuckdbTarget } from '../../../src/sync/duckdbTarget';
import { targetTableOf } from '../../../src/sync/syncColumns';
import type { ApplyPlan, TargetTable } from '../../../src/sync/syncTarget';
import { alterDatabase, withDatabase, withTarget, writeGzJsonl } from './syncFixture';

const TIMES = ['2026-11-01T00:00:00Z', '2026-11-01T04:00:00Z', '2026-11-01T08:00:00Z'];

function envelope(value: Record<string, JsonSchema>, key: Record<string, JsonSchema> = { id: { type: 'integer', format: 'int64' } }): SchemaEnvelope {
  return {
    version: 1,
    schema: {
      type: 'object',
      properties: {
        key: { type: 'object', properties: key },
        value: { type: 'object', properties: value },
        meta: { type: 'object', properties: { action: { type: 'string' }, ts: { type: 'string', format: 'date-time' } } },
      },
    },
  };
}

const PEOPLE = envelope({ name: { type: 'string' } });

interface Rec {
  id: number;
  action: 'U' | 'D';
  ts: string;
  name: string;
}

/** A small seeded generator, so a failure can be run again as it was. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `files` lists of `perFile` records over `keys` keys: about one in eight a delete, commit times often equal. */
function records(seed: number, files: number, perFile: number, keys: number): Rec[][] {
  const next = random(seed);
  return Array.from({ length: files }, (_, f) =>
    Array.from({ length: perFile }, (_, line) => ({
      id: Math.floor(next() * keys),
      action: next() < 0.125 ? ('D' as const) : ('U' as const),
      ts: TIMES[Math.floor(next() * TIMES.length)],
      name: `file ${f} line ${line}`,
    })),
  );
}

/** id -> name after applying the files in order on top of `rows`: per key, the newest record by time, then the later file, then the later line. */
function expected(files: Rec[][], rows: Map<number, string> = new Map()): Map<number, string> {
  const newest = new Map<number, Rec>();
  for (const file of files) {
    for (const rec of file) {
      const held = newest.get(rec.id);
      if (!held || rec.ts >= held.ts) newest.set(rec.id, rec);
    }
  }
  const after = new Map(rows);
  for (const [id, rec] of newest) {
    if (rec.action === 'D') after.delete(id);
    else after.set(id, rec.name);
  }
  return after;
}

describe('the DuckDB target loading many records', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-duckdb-load-'));
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const write = (recs: Rec[]): Promise<string> =>
    writeGzJsonl(
      dir,
      recs.map((r) => JSON.stringify({ meta: { action: r.action, ts: r.ts }, key: { id: r.id }, value: r.action === 'D' ? undefined : { name: r.name } })),
    );

  function plan(table: TargetTable, schema: SchemaEnvelope, kind: ApplyPlan['kind'], files: string[], point: string): ApplyPlan {
    return {
      kind,
      table,
      files,
      addedColumns: [],
      state: { namespace: table.namespace, table: table.table, point, schemaVersion: 1, schema: schema.schema, ranAt: '2026-11-24T00:00:00Z' },
    };
  }

  const apply = (file: string, p: ApplyPlan) => withTarget(new DuckdbTarget({ path: file }), (t) => t.apply(p));

  async function query(file: string, sql: string): Promise<unknown[][]> {
    return withDatabase(file, async (db) => {
      const conn = await db.connect();
      try {
        return (await conn.runAndReadAll(sql)).getRowsJson();
      } finally {
        conn.closeSync();
      }
    });
  }

  async function names(file: string, table: string): Promise<Map<number, string>> {
    const rows = await query(file, `SELECT id, name FROM school.${table} ORDER BY id`);
    return new Map(rows.map(([id, name]) => [Number(id), String(name)]));
  }

  const columnsOf = async (file: string, table: string): Promise<string[]> =>
    (await query(file, `SELECT column_name FROM duckdb_columns() WHERE schema_name = 'school' AND table_name = '${table}' ORDER BY column_index`)).map(([c]) => String(c));

  it('keeps the newest record of each key across files read in parallel: by commit time, then the later file, then the later line', async () => {
    const file = path.join(dir, 'many.duckdb');
    const table = targetTableOf('school', 'people', PEOPLE);
    // four files of 6,000 records: each spans several of DuckDB's 2,048-row chunks, and there are more files than cores
    const snapshot = records(7, 4, 6000, 9000);
    const want = expected(snapshot);
    const result = await apply(file, plan(table, PEOPLE, 'snapshot', await Promise.all(snapshot.map(write)), TIMES[2]));
    assert.deepEqual(result, { upserted: want.size, deleted: 0, rows: want.size });
    assert.deepEqual(await names(file, 'people'), want);
    assert.deepEqual(await columnsOf(file, 'people'), ['id', 'name'], 'only the table\'s own columns');

    const changes = records(11, 3, 5000, 12_000);
    const after = expected(changes, want);
    const deleted = [...want.keys()].filter((id) => !after.has(id)).length;
    const upserted = expected(changes).size;
    const applied = await apply(file, plan(table, PEOPLE, 'changes', await Promise.all(changes.map(write)), TIMES[2]));
    assert.deepEqual(applied, { upserted, deleted, rows: after.size });
    assert.deepEqual(await names(file, 'people'), after);
  });

  it('loads a snapshot with no key repeated and no delete as it comes, and one where every record repeats a key', async () => {
    const file = path.join(dir, 'extremes.duckdb');
    const table = targetTableOf('school', 'people', PEOPLE);
    const plain: Rec[] = Array.from({ length: 5000 }, (_, i) => ({ id: i, action: 'U', ts: TIMES[0], name: `n${i}` }));
    assert.deepEqual(await apply(file, plan(table, PEOPLE, 'snapshot', [await write(plain)], TIMES[0])), { upserted: 5000, deleted: 0, rows: 5000 });
    assert.deepEqual(await names(file, 'people'), expected([plain]));
    const twice = [plain.map((r) => ({ ...r, name: `old ${r.id}` })), plain.map((r) => ({ ...r, action: r.id % 2 ? ('D' as const) : ('U' as const) }))];
    assert.deepEqual(await apply(file, plan(table, PEOPLE, 'snapshot', await Promise.all(twice.map(write)), TIMES[0])), { upserted: 2500, deleted: 0, rows: 2500 });
    assert.deepEqual(await names(file, 'people'), expected(twice));
    assert.deepEqual(await columnsOf(file, 'people'), ['id', 'name']);
  });

  it('applies changes to a table an earlier version made with a PRIMARY KEY, which keeps it; a resnapshot replaces it', async () => {
    const file = path.join(dir, 'earlier.duckdb');
    const table = targetTableOf('school', 'people', PEOPLE);
    const base = records(3, 2, 3000, 4000);
    await apply(file, plan(table, PEOPLE, 'snapshot', await Promise.all(base.map(write)), TIMES[0]));
    // the table as versions before this one made it: the key as PRIMARY KEY (an ART index)
    await alterDatabase(
      file,
      'CREATE TABLE school.people_pk (id BIGINT NOT NULL, name VARCHAR, PRIMARY KEY (id)); INSERT INTO school.people_pk SELECT * FROM school.people; ' +
        'DROP TABLE school.people; ALTER TABLE school.people_pk RENAME TO people',
    );
    let want = expected(base);
    for (const seed of [5, 6]) {
      const changes = records(seed, 2, 3000, 6000);
      const after = expected(changes, want);
      const applied = await apply(file, plan(table, PEOPLE, 'changes', await Promise.all(changes.map(write)), TIMES[2]));
      assert.deepEqual(applied, { upserted: expected(changes).size, deleted: [...want.keys()].filter((id) => !after.has(id)).length, rows: after.size });
      assert.deepEqual(await names(file, 'people'), after, `after changes ${seed}`);
      want = after;
    }
    const constraints = await query(file, "SELECT constraint_type FROM duckdb_constraints() WHERE schema_name = 'school' AND table_name = 'people' ORDER BY 1");
    assert.deepEqual(constraints.map(([t]) => t), ['NOT NULL', 'PRIMARY KEY'], 'the earlier table keeps its key');
    const again = records(8, 2, 2000, 3000);
    await apply(file, plan(table, PEOPLE, 'snapshot', await Promise.all(again.map(write)), TIMES[2]));
    assert.deepEqual(await names(file, 'people'), expected(again));
  });

  it('keeps the table\'s own columns named like the load\'s (dq_action, DQ_TS, dq_action_2), and tables of key columns only', async () => {
    const file = path.join(dir, 'names.duckdb');
    const odd = envelope({ name: { type: 'string' }, dq_action: { type: 'string' }, DQ_TS: { type: 'string' }, dq_action_2: { type: 'integer', format: 'int64' } });
    const table = targetTableOf('school', 'odd', odd);
    const line = (id: number, action: string, ts: string, name: string): string =>
      JSON.stringify({ meta: { action, ts }, key: { id }, value: { name, dq_action: `own ${name}`, DQ_TS: 'own', dq_action_2: id * 10 } });
    const snapshot = await writeGzJsonl(dir, [line(1, 'U', TIMES[0], 'a'), line(1, 'U', TIMES[1], 'b'), line(2, 'D', TIMES[1], 'gone'), line(3, 'U', TIMES[0], 'c')]);
    assert.deepEqual(await apply(file, plan(table, odd, 'snapshot', [snapshot], TIMES[1])), { upserted: 2, deleted: 0, rows: 2 });
    const changes = await writeGzJsonl(dir, [line(3, 'D', TIMES[2], 'x'), line(4, 'U', TIMES[2], 'd')]);
    assert.deepEqual(await apply(file, plan(table, odd, 'changes', [changes], TIMES[2])), { upserted: 1, deleted: 1, rows: 2 });
    assert.deepEqual(await columnsOf(file, 'odd'), ['id', 'name', 'dq_action', 'DQ_TS', 'dq_action_2']);
    assert.deepEqual(await query(file, 'SELECT id, name, dq_action, "DQ_TS", dq_action_2 FROM school.odd ORDER BY id'), [
      ['1', 'b', 'own b', 'own', '10'],
      ['4', 'd', 'own d', 'own', '40'],
    ]);

    const keysOnly = envelope({}, { course_id: { type: 'integer', format: 'int64' }, user_id: { type: 'integer', format: 'int64' } });
    const pairs = targetTableOf('school', 'pairs', keysOnly);
    const pair = (c: number, u: number, action: string, ts: string): string => JSON.stringify({ meta: { action, ts }, key: { course_id: c, user_id: u } });
    await apply(file, plan(pairs, keysOnly, 'snapshot', [await writeGzJsonl(dir, [pair(1, 1, 'U', TIMES[0]), pair(1, 2, 'U', TIMES[0]), pair(1, 1, 'U', TIMES[0])])], TIMES[0]));
    const pairChanges = await writeGzJsonl(dir, [pair(1, 1, 'U', TIMES[1]), pair(1, 2, 'D', TIMES[1]), pair(2, 1, 'U', TIMES[1])]);
    assert.deepEqual(await apply(file, plan(pairs, keysOnly, 'changes', [pairChanges], TIMES[1])), { upserted: 2, deleted: 1, rows: 2 });
    assert.deepEqual(await query(file, 'SELECT course_id, user_id FROM school.pairs ORDER BY ALL'), [
      ['1', '1'],
      ['2', '1'],
    ]);
  });
});

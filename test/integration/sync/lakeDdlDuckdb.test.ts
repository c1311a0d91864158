// The DuckDB statement of `dq sync-status --ddl duckdb`, run for real: Parquet files written by
// DuckDB into a folder laid out like the bucket (the `s3://bucket/` of each file rewritten to
// that folder, as this DuckDB has no httpfs), read back through the view as the table's rows,
// typed by its columns; a file written before a schema change added a column reads NULL there,
// and so does a column no file holds yet.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { loadDuckDb } from '../../../src/engine/duckdbModule';
import { lakeDdl } from '../../../src/sync/lakeDdl';
import type { LakeState } from '../../../src/sync/lakeState';
import { EVERY_TYPE_COLUMNS, EVERY_TYPE_LOCATION, everyTypeState } from '../../support/lakeStates';

const BEFORE = 'lake/canvas/user-logins/data/r1-0.parquet';
const AFTER = 'lake/canvas/user-logins/data/r2-0.parquet';

/** Rows as the lake target writes them: key first, typed columns, zstd; the first file from before `email` was added. */
const FILES: Record<string, string> = {
  [BEFORE]: `SELECT * FROM (VALUES
      (1::BIGINT, 7::INTEGER, 0.5::DOUBLE, true, TIMESTAMPTZ '2026-10-30 10:00:00.123456+00', DATE '1990-01-02', 'Oslo', '{"a":1}'),
      (2::BIGINT, NULL::INTEGER, NULL::DOUBLE, false, NULL::TIMESTAMPTZ, NULL::DATE, NULL, NULL)
    ) AS t(id, "order", score, active, created_at, born_on, address_city, settings)`,
  [AFTER]: `SELECT 3::BIGINT AS id, -1::INTEGER AS "order", 2.25::DOUBLE AS score, NULL::BOOLEAN AS active,
      TIMESTAMPTZ '2026-11-01 03:59:59+00' AS created_at, DATE '2001-12-31' AS born_on, 'São Paulo' AS address_city, '[]' AS settings, 'c@example.org' AS email`,
};

describe('the DuckDB DDL of a lake table, run by DuckDB', function () {
  this.timeout(60_000);
  let tmp: string;
  let bucketFolder: string;
  let conn: DuckDBConnection;
  let close: () => void;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-lake-ddl-'));
    bucketFolder = path.join(tmp, 'dq-lake');
    const { DuckDBInstance } = loadDuckDb();
    const db = await DuckDBInstance.create(':memory:');
    conn = await db.connect();
    close = () => {
      conn.closeSync();
      db.closeSync();
    };
    for (const [key, query] of Object.entries(FILES)) {
      const file = path.join(bucketFolder, key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await conn.run(`COPY (${query}) TO '${file}' (FORMAT parquet, COMPRESSION zstd)`);
    }
  });
  after(async () => {
    close?.();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  /** Runs the statements with the bucket's URLs pointing into the local folder. */
  async function runDdl(state: LakeState): Promise<void> {
    for (const statement of lakeDdl('duckdb', state, EVERY_TYPE_LOCATION).statements) {
      await conn.run(statement.split('s3://dq-lake/').join(`${bucketFolder}/`));
    }
  }

  async function rows(sql: string): Promise<Record<string, unknown>[]> {
    const reader = await conn.runAndReadAll(sql);
    return reader.getRowObjectsJson() as Record<string, unknown>[];
  }

  it('reads back every row of every file, typed, with NULL for the column the older file lacks', async () => {
    await runDdl(everyTypeState());
    const types = await rows('DESCRIBE SELECT * FROM "canvas"."user-logins"');
    assert.deepEqual(
      types.map((t) => [t.column_name, t.column_type]),
      [
        ['id', 'BIGINT'],
        ['order', 'INTEGER'],
        ['score', 'DOUBLE'],
        ['active', 'BOOLEAN'],
        ['created_at', 'TIMESTAMP WITH TIME ZONE'],
        ['born_on', 'DATE'],
        ['address_city', 'VARCHAR'],
        ['settings', 'VARCHAR'],
        ['email', 'VARCHAR'],
      ],
    );
    const read = await rows(`SELECT id, "order", score, active, epoch_us(created_at) AS created_us, CAST(born_on AS VARCHAR) AS born_on, address_city, settings, email
      FROM "canvas"."user-logins" ORDER BY id`);
    assert.deepEqual(read, [
      { id: '1', order: 7, score: 0.5, active: true, created_us: String(Date.UTC(2026, 9, 30, 10) * 1000 + 123456), born_on: '1990-01-02', address_city: 'Oslo', settings: '{"a":1}', email: null },
      { id: '2', order: null, score: null, active: false, created_us: null, born_on: null, address_city: null, settings: null, email: null },
      { id: '3', order: -1, score: 2.25, active: null, created_us: String(Date.UTC(2026, 10, 1, 3, 59, 59) * 1000), born_on: '2001-12-31', address_city: 'São Paulo', settings: '[]', email: 'c@example.org' },
    ]);
  });

  it('reads exactly the files of the state: a file it no longer lists is not read', async () => {
    const state = everyTypeState();
    await runDdl({ ...state, files: state.files.filter((f) => f.key === AFTER), rows: 1 });
    assert.deepEqual(await rows('SELECT id FROM "canvas"."user-logins"'), [{ id: '3' }]);
  });

  it('a column added by a schema change that no file holds yet reads NULL, and a table with no files as no rows', async () => {
    const state = everyTypeState();
    const later = { name: 'later', path: ['value', 'later'], type: 'date' as const, key: false };
    await runDdl({ ...state, columns: [...EVERY_TYPE_COLUMNS, later], schemaVersion: 4, schemaChanges: [...state.schemaChanges, { schemaVersion: 4, at: '2026-11-02T00:00:00.000Z', added: ['later'] }] });
    assert.deepEqual(await rows('SELECT id, CAST(later AS VARCHAR) AS later FROM "canvas"."user-logins" ORDER BY id'), [
      { id: '1', later: null },
      { id: '2', later: null },
      { id: '3', later: null },
    ]);
    assert.equal((await rows('DESCRIBE SELECT later FROM "canvas"."user-logins"'))[0].column_type, 'DATE');

    await runDdl({ ...state, files: [], rows: 0 });
    assert.deepEqual(await rows('SELECT count(*) AS n FROM "canvas"."user-logins"'), [{ n: '0' }]);
    assert.equal((await rows('DESCRIBE SELECT * FROM "canvas"."user-logins"')).length, EVERY_TYPE_COLUMNS.length);
  });
});

// Statements on a database file (the synced database the SQL console opens): the file is
// attached read-only for the statement alone, its namespace schemas are the statement's own
// (`canvas.users`), and between statements nothing holds it, so a writer can always open it.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import type { AttachedDatabase } from '../../../src/engine/engineProtocol';
import { SampleResults, type DownloadedResult } from './sampleResults';

/** Opens the file read-write in this process (as a sync does), runs `sql`, closes it. */
async function write(file: string, sql: string): Promise<void> {
  const db = await DuckDBInstance.create(file);
  const conn = await db.connect();
  try {
    await conn.run(sql);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

async function count(engine: EngineClient, sql: string, database?: AttachedDatabase): Promise<number> {
  const page = await engine.sql(sql, 0, 10, undefined, database);
  return Number(page.rows[0][0]);
}

describe('engine: statements on a synced database file', function () {
  this.timeout(60_000);
  let results: SampleResults;
  let engine: EngineClient;
  let users: DownloadedResult;
  let synced: AttachedDatabase;

  before(async () => {
    results = await SampleResults.start();
    engine = results.engine();
    users = await results.download('canvas', 'users', 'jsonl');
    // the console's view of the downloaded job: canvas.users in the engine's own database
    await engine.registerView('canvas.users', users);
    const file = path.join(results.dir, 'sync.duckdb');
    await write(file, 'CREATE SCHEMA canvas; CREATE TABLE canvas.users (id BIGINT PRIMARY KEY, name TEXT); INSERT INTO canvas.users SELECT i, \'u\' || i FROM range(7) t(i)');
    synced = { path: file, alias: 'synced' };
  });

  after(async () => {
    await engine.dispose();
    await results.close();
  });

  it('names the database\'s own tables as <namespace>.<table>, and the downloaded views with memory.', async () => {
    const jobRows = await count(engine, 'SELECT count(*) FROM canvas.users');
    assert.ok(jobRows > 7, 'the downloaded job has more rows than the synced table');
    assert.equal(await count(engine, 'SELECT count(*) FROM canvas.users', synced), 7);
    assert.equal(await count(engine, 'SELECT count(*) FROM synced.canvas.users', synced), 7);
    assert.equal(await count(engine, 'SELECT count(*) FROM memory.canvas.users', synced), jobRows);
    assert.equal(await count(engine, 'SELECT count(*) FROM canvas.users'), jobRows, 'a statement without the database is unchanged');
  });

  it('holds the file only while a statement runs: a writer opens it between statements, and the next statement sees the change', async () => {
    await count(engine, 'SELECT count(*) FROM canvas.users', synced);
    await write(synced.path, 'INSERT INTO canvas.users VALUES (100, \'late\')');
    assert.equal(await count(engine, 'SELECT count(*) FROM canvas.users', synced), 8);
    await Promise.all([1, 2, 3].map(() => count(engine, 'SELECT count(*) FROM canvas.users', synced)));
    await write(synced.path, 'DELETE FROM canvas.users WHERE id = 100');
    assert.equal(await count(engine, 'SELECT count(*) FROM canvas.users', synced), 7);
  });

  it('refuses to write to it', async () => {
    const err = await engine.sql('INSERT INTO canvas.users VALUES (200, \'x\')', 0, 10, undefined, synced).then(
      () => assert.fail('the insert should be refused'),
      (e: unknown) => e,
    );
    assert.ok(isEngineError(err));
    assert.match(err.message, /read.only/i);
    await write(synced.path, 'SELECT 1');
  });

  it('says who holds the file while a writer has it open, and that a missing one needs a sync first', async () => {
    const db = await DuckDBInstance.create(synced.path);
    try {
      const err = await engine.sql('SELECT count(*) FROM canvas.users', 0, 10, undefined, synced).then(
        () => assert.fail('the file is held for writing'),
        (e: unknown) => e,
      );
      assert.ok(isEngineError(err) && err.kind === 'io', String(err));
      assert.match(err.message, new RegExp(`open for writing by another process \\(.*PID ${process.pid}\\)`));
      assert.match(err.message, /Run the statement again when it has finished/);
    } finally {
      db.closeSync();
    }
    assert.equal(await count(engine, 'SELECT count(*) FROM canvas.users', synced), 7, 'served again once the writer is gone');

    const missing = { path: path.join(results.dir, 'none', 'sync.duckdb'), alias: 'synced' };
    const err = await engine.sql('SELECT 1', 0, 10, undefined, missing).then(
      () => assert.fail('there is no such file'),
      (e: unknown) => e,
    );
    assert.ok(isEngineError(err));
    assert.match(err.message, /no database at .*Sync a table first/);
  });

  it('exports a statement over the database, then lets go of the file', async () => {
    const out = path.join(results.dir, 'users.csv');
    const exported = await engine.export({ sql: 'SELECT * FROM canvas.users ORDER BY id', database: synced }, { path: out, format: 'csv' });
    assert.equal(exported.rows, 7);
    assert.equal((await fs.readFile(out, 'utf8')).trim().split('\n').length, 8);
    await write(synced.path, 'SELECT 1');
  });
});

// A window of a JSONL file read by splitting its lines and parsing only the window's (the far
// pages of a result not yet copied) must hold exactly the rows the JSON reader gives at that
// place: every column type of the emulator's tables, deletes, and files whose lines are blank,
// white space only, or end in CRLF.

import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { jsonlWindow, planSource, readerCall } from '../../../src/engine/sourcePlan';
import { SampleResults } from './sampleResults';

describe('engine: a JSONL window read line by line', function () {
  this.timeout(60_000);
  let results: SampleResults;
  let conn: DuckDBConnection;

  before(async () => {
    results = await SampleResults.start();
    conn = await (await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' })).connect();
  });

  after(async () => {
    conn.closeSync();
    await results.close();
  });

  const rows = async (sql: string): Promise<unknown[][]> => (await conn.runAndReadAll(sql)).getRowsJson() as unknown[][];
  /** The file's rows from `from` on, as the JSON reader reads them. */
  const parsed = (file: string, gzip: boolean, schema: SchemaEnvelope, from: number, count: number): Promise<unknown[][]> =>
    rows(`SELECT * FROM (${planSource('jsonl', readerCall('jsonl', [file], { gzip, schema }), [], schema).sql}) LIMIT ${count} OFFSET ${from}`);
  const byLines = (file: string, gzip: boolean, schema: SchemaEnvelope, from: number, count: number): Promise<unknown[][]> =>
    rows(`SELECT * FROM (${jsonlWindow(file, gzip, schema, from, count)})`);

  for (const [namespace, table, since] of [
    ['canvas', 'accounts'],
    ['canvas', 'users'],
    ['canvas', 'courses'],
    ['canvas', 'submissions'],
    ['canvas', 'submissions', 5],
    ['canvas_logs', 'web_logs'],
  ] as [string, string, number?][]) {
    it(`canvas ${namespace}.${table}${since ? ', incremental with deletes' : ''}: the same rows as the JSON reader, wherever the window lies`, async () => {
      const { paths, schema } = await results.download(namespace, table, 'jsonl', { sinceDaysAgo: since });
      for (const file of paths) {
        const all = await parsed(file, true, schema, 0, 1_000_000);
        assert.ok(all.length > 0, `${file} has rows`);
        assert.deepEqual(await byLines(file, true, schema, 0, all.length + 10), all, `${table}: every row`);
        for (const from of [1, Math.floor(all.length / 2), all.length - 3]) {
          if (from < 0) continue;
          assert.deepEqual(await byLines(file, true, schema, from, 7), all.slice(from, from + 7), `${table}: rows from ${from}`);
        }
      }
    });
  }

  it('skips blank and white-space lines and reads CRLF lines, as the JSON reader does', async () => {
    const { schema } = await results.download('canvas', 'users', 'jsonl');
    const record = (id: number): string => JSON.stringify({ key: { id }, value: { name: `user ${id}`, extra: 'not in the schema' }, meta: { action: 'U', ts: '2026-11-20T08:00:00Z' } });
    const lines = [record(1), '', record(2), '   ', '\t', `${record(3)}\r`, '\r', record(4), '', `${record(5)}\r`, ''];
    for (const gzip of [true, false]) {
      const file = path.join(results.dir, `odd-lines.jsonl${gzip ? '.gz' : ''}`);
      const text = lines.join('\n');
      await fs.writeFile(file, gzip ? gzipSync(text) : text);
      const all = await parsed(file, gzip, schema, 0, 100);
      assert.equal(all.length, 5);
      assert.deepEqual(await byLines(file, gzip, schema, 0, 100), all, `gzip ${gzip}: every row`);
      assert.deepEqual(await byLines(file, gzip, schema, 2, 2), all.slice(2, 4), `gzip ${gzip}: rows 2 and 3`);
    }
  });
});

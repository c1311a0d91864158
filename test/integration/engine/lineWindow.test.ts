// A window of a JSONL file read by splitting its lines and parsing only the window's (the far
// pages of a result not yet copied) must hold exactly the rows the JSON reader gives at that
// place: every column type of the emulator's tables, deletes, files whose lines are blank, white
// space only or end in CRLF, gzip files of several members; the records counted by lines are
// the rows the JSON reader counts; and a file it cannot read this way (a truncated gzip, a line
// too long) fails rather than giving other rows. The records read around a window (kept for the
// windows next to it) are the file's records at their places, within the bounds asked for.

import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { countRecords, MAX_LINE_BYTES, recordSpan } from '../../../src/engine/fileLines';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { jsonlLines, planSource, readerCall } from '../../../src/engine/sourcePlan';
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
  const byLines = async (file: string, gzip: boolean, schema: SchemaEnvelope, from: number, count: number): Promise<unknown[][]> => {
    const { lines } = await recordSpan(file, { gzip, from, count });
    return lines.length === 0 ? [] : ((await conn.runAndReadAll(`SELECT * FROM (${jsonlLines(schema)})`, [lines.join('\n')])).getRowsJson() as unknown[][]);
  };

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
        assert.equal(await countRecords(file, { gzip: true }), all.length, `${table}: the records counted by lines`);
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
      assert.equal(await countRecords(file, { gzip }), 5, `gzip ${gzip}: the records counted by lines`);
      assert.deepEqual(await byLines(file, gzip, schema, 0, 100), all, `gzip ${gzip}: every row`);
      assert.deepEqual(await byLines(file, gzip, schema, 2, 2), all.slice(2, 4), `gzip ${gzip}: rows 2 and 3`);
    }
  });

  it('reads a gzip file of several members and a last line without a line end', async () => {
    const { schema } = await results.download('canvas', 'users', 'jsonl');
    const record = (id: number): string => JSON.stringify({ key: { id }, value: { name: `user ${id}` }, meta: { action: 'U', ts: '2026-11-20T08:00:00Z' } });
    const ids = Array.from({ length: 3000 }, (_, i) => i + 1);
    const members = [ids.slice(0, 1000), ids.slice(1000, 2500), ids.slice(2500)].map((part, n) => gzipSync(part.map(record).join('\n') + (n < 2 ? '\n' : ''), { level: n * 4 }));
    const file = path.join(results.dir, 'members.jsonl.gz');
    await fs.writeFile(file, Buffer.concat(members));
    const all = await parsed(file, true, schema, 0, 10_000);
    assert.equal(all.length, 3000);
    assert.equal(await countRecords(file, { gzip: true }), 3000);
    for (const from of [0, 998, 1999, 2995]) assert.deepEqual(await byLines(file, true, schema, from, 10), all.slice(from, from + 10), `rows from ${from}`);
  });

  it('fails on a truncated gzip file and on a line too long, rather than giving other rows', async () => {
    const { schema } = await results.download('canvas', 'users', 'jsonl');
    const record = (id: number, name = `user ${id}`): string => JSON.stringify({ key: { id }, value: { name }, meta: { action: 'U', ts: '2026-11-20T08:00:00Z' } });
    const whole = gzipSync(Array.from({ length: 5000 }, (_, i) => record(i)).join('\n'));
    const truncated = path.join(results.dir, 'truncated.jsonl.gz');
    await fs.writeFile(truncated, whole.subarray(0, whole.length - 100));
    const damaged = { name: 'EngineError', kind: 'corrupt', message: 'truncated.jsonl.gz is damaged (it ends early): download the job again.' };
    await assert.rejects(byLines(truncated, true, schema, 4990, 10), damaged);
    await assert.rejects(countRecords(truncated, { gzip: true }), damaged);
    const before = await recordSpan(truncated, { gzip: true, from: 100, count: 10 }, { before: 0, after: 10_000, bytes: 64 * 1024 * 1024 });
    assert.equal(before.first, 100, 'a window before the damage is read');
    assert.ok(before.lines.length > 10 && before.lines.length < 4900, `${before.lines.length} records: the window and those after it up to the damage`);
    assert.equal(before.atEnd, false, 'the damage is not taken for the end of the file');
    const long = path.join(results.dir, 'long-line.jsonl');
    await fs.writeFile(long, [record(1), record(2, 'x'.repeat(MAX_LINE_BYTES)), record(3)].join('\n'));
    await assert.rejects(byLines(long, false, schema, 1, 2), /longer than/);
    assert.deepEqual(await byLines(long, false, schema, 2, 1), await parsed(long, false, schema, 2, 1), 'a long line before the window is only counted');
  });

  it('reads records around a window, as many as asked and within the bytes allowed, and says where the file ends', async () => {
    // record i is i % 10 + 1 hundred bytes long or so: a bound in bytes keeps fewer of the long ones
    const record = (i: number): string => JSON.stringify({ key: { id: i }, value: { name: 'n'.repeat(100 * ((i % 10) + 1)) } });
    const ids = Array.from({ length: 3000 }, (_, i) => i);
    const lines = ids.map(record);
    const file = path.join(results.dir, 'around.jsonl.gz');
    await fs.writeFile(file, gzipSync(`${lines.join('\n')}\n\n`));
    const bytes = (from: number, to: number): number => lines.slice(from, to).reduce((n, l) => n + l.length, 0);
    const window = { gzip: true, from: 1500, count: 200 };

    const wide = await recordSpan(file, window, { before: 100, after: 300, bytes: 1 << 20 });
    assert.deepEqual(wide, { first: 1400, lines: lines.slice(1400, 2000), atEnd: false });

    // room on each side for the 40 records before the window, and for a few more than 40 after it
    const room = bytes(1460, 1500);
    const narrow = await recordSpan(file, window, { before: 1000, after: 1000, bytes: room });
    const roomAfter = Array.from({ length: 100 }, (_, n) => n).filter((n) => bytes(1700, 1700 + n) <= room).pop()!;
    assert.ok(roomAfter > 30 && roomAfter < 50);
    assert.deepEqual(narrow, { first: 1460, lines: lines.slice(1460, 1700 + roomAfter), atEnd: false }, 'the window whole, and the records nearest to it');

    const end = await recordSpan(file, { gzip: true, from: 2900, count: 200 }, { before: 10, after: 500, bytes: 1 << 20 });
    assert.deepEqual(end, { first: 2890, lines: lines.slice(2890), atEnd: true });
    const justBefore = await recordSpan(file, { gzip: true, from: 2700, count: 100 }, { before: 0, after: 200, bytes: 1 << 20 });
    assert.equal(justBefore.lines.length, 300);
    assert.equal(justBefore.atEnd, false, 'the span ends at its last record, which is the file\'s: no more is claimed than was read');
    const unended = path.join(results.dir, 'around-unended.jsonl.gz');
    await fs.writeFile(unended, gzipSync(lines.join('\n')));
    const short = await recordSpan(unended, { gzip: true, from: 2700, count: 100 }, { before: 0, after: 1000, bytes: bytes(2800, 2999) });
    assert.deepEqual(short, { first: 2700, lines: lines.slice(2700, 2999), atEnd: false }, 'the last record, without a line end, is left out: the span does not end the file');
  });

  it('reads around a window past a record too long, which only ends the span on its side', async () => {
    const record = (id: number, name = `user ${id}`): string => JSON.stringify({ key: { id }, value: { name } });
    const lines = Array.from({ length: 100 }, (_, i) => record(i, i === 40 || i === 70 ? 'x'.repeat(MAX_LINE_BYTES) : undefined));
    const file = path.join(results.dir, 'around-long.jsonl');
    await fs.writeFile(file, lines.join('\n'));
    const span = await recordSpan(file, { gzip: false, from: 50, count: 10 }, { before: 30, after: 30, bytes: 10 * MAX_LINE_BYTES });
    assert.deepEqual(span, { first: 41, lines: lines.slice(41, 70), atEnd: false });
  });

  it('stops reading when the request is cancelled', async () => {
    const file = path.join(results.dir, 'cancelled.jsonl.gz');
    // about 4 MiB of lines: the read passes several chunks before the window
    await fs.writeFile(file, gzipSync(Array.from({ length: 100_000 }, (_, i) => JSON.stringify({ key: { id: i }, value: { name: `user ${i}` } })).join('\n')));
    let asked = 0;
    await assert.rejects(recordSpan(file, { gzip: true, from: 99_000, count: 10, cancelled: () => ++asked > 1 }), (err: Error & { kind?: string }) => err.kind === 'cancelled');
    assert.equal(asked, 2, 'asked once for each chunk read, and stopped at the second');
  });
});

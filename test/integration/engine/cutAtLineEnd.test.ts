// A gzip JSONL result one of whose files stops where a download that broke off after a full
// flush leaves it: every line in it is whole, but the gzip stream never ends. DuckDB reads such
// a file as a shorter one without a word, so every request that reads the files to their end (a
// sort, a filter page that ends short, an export) must fail naming the file instead of answering
// with fewer rows. Plain pages that lie before the damage are still served.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import type { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import type { OpenedResult } from '../../../src/engine/engineProtocol';
import { SampleResults, expectedRow, type DownloadedResult, type JsonRecord } from './sampleResults';

describe('engine: a gzip file cut short where its lines are whole', function () {
  this.timeout(120_000);
  let results: SampleResults;
  let engine: EngineClient;
  let users: DownloadedResult;
  /** the lines of the users' file, the result's first file */
  let userLines: string[];
  /** the lines of the cut file, the second: the users' lines 40 times over, cut after 60% of them */
  let cutLines: string[];

  before(async () => {
    results = await SampleResults.start();
    engine = results.engine();
    users = await results.download('canvas', 'users', 'jsonl');
    userLines = gunzipSync(await fs.readFile(users.paths[0])).toString('utf8').trim().split('\n');
    const many = Array.from({ length: 40 }, () => userLines).flat();
    cutLines = many.slice(0, Math.floor(many.length * 0.6));
  });

  after(async () => {
    await engine.dispose();
    await results.close();
  });

  /**
   * Opens the users' file followed by `name`: a gzip stream of `cutLines` flushed but never
   * finished, the file a download that stopped there leaves. Its damage lies past the first rows.
   */
  async function openCut(name: string): Promise<OpenedResult> {
    const cut = path.join(results.dir, name);
    await fs.writeFile(cut, gzipSync(`${cutLines.join('\n')}\n`, { finishFlush: constants.Z_FULL_FLUSH }));
    return engine.open({ paths: [users.paths[0], cut], schema: users.schema });
  }

  /** What a request answered: a page's rows, or the answer itself (a count, an export's rows and file). */
  const summary = (answer: unknown): string => {
    const rows = (answer as { rows?: unknown } | undefined)?.rows;
    return Array.isArray(rows) ? `${rows.length} rows` : JSON.stringify(answer);
  };

  /** The `corrupt` error `request` fails with, checked to name the damaged file. */
  async function damage(request: Promise<unknown>, name: string, what: string): Promise<void> {
    const err = await request.then(
      (answer) => assert.fail(`${what}: answered ${summary(answer)} instead of failing`),
      (e: unknown) => e,
    );
    assert.ok(isEngineError(err), String(err));
    assert.equal(err.kind, 'corrupt', `${what}: ${err.message}`);
    assert.equal(err.message, `${name} is damaged (it ends early): download the job again.`, what);
  }

  it('fails a plain page asked at once that reaches past the cut, before anything else found the damage', async () => {
    const opened = await openCut('cut-plain.jsonl.gz');
    // the rows of the users' file, then all those the cut file holds: the page ends past them
    const offset = userLines.length + cutLines.length - 5;
    await damage(engine.page(opened.handle, {}, offset, 10), 'cut-plain.jsonl.gz', 'a plain page past the cut');
    await engine.closeHandle(opened.handle);
  });

  it('fails a sort naming the file, rather than sort the rows before the cut', async () => {
    const opened = await openCut('cut-sorted.jsonl.gz');
    await damage(engine.page(opened.handle, { sort: [{ column: 'key.id', descending: false }] }, 0, 5), 'cut-sorted.jsonl.gz', 'a sorted page');
    await engine.closeHandle(opened.handle);
  });

  it('fails a filter whose page ends short (it read the files to their end), naming the file', async () => {
    const opened = await openCut('cut-filtered.jsonl.gz');
    // one user's rows: once in the users' file, and once for each copy of it before the cut
    const id = String((JSON.parse(userLines[0]) as JsonRecord).key.id);
    const view = { filters: [{ column: 'key.id', op: '=' as const, value: id }] };
    await damage(engine.page(opened.handle, view, 0, 100), 'cut-filtered.jsonl.gz', 'a filtered page that ends short');
    await engine.closeHandle(opened.handle);
  });

  it('fails an export naming the file, and leaves neither the file asked for nor a partial one', async () => {
    const opened = await openCut('cut-exported.jsonl.gz');
    const target = path.join(results.dir, 'cut-export.csv');
    await damage(engine.export({ handle: opened.handle, view: {} }, { path: target, format: 'csv' }), 'cut-exported.jsonl.gz', 'an export');
    assert.deepEqual((await fs.readdir(results.dir)).filter((f) => f.startsWith('cut-export.csv')), [], 'nothing of the export is left');
    await engine.closeHandle(opened.handle);
  });

  it('once the damage is known, serves plain pages that lie before it and fails one that reaches past it', async () => {
    const opened = await openCut('cut-paged.jsonl.gz');
    await damage(engine.count(opened.handle, {}), 'cut-paged.jsonl.gz', 'the count');
    const rows = [...userLines, ...cutLines].map((line) => expectedRow(JSON.parse(line) as JsonRecord, opened.columns));
    // the last rows before the cut: deep into the cut file, read from its lines
    const before = rows.length - 10;
    assert.deepEqual((await engine.page(opened.handle, {}, before, 10)).rows, rows.slice(before), 'the last rows before the damage');
    assert.deepEqual((await engine.page(opened.handle, {}, 0, 10)).rows, rows.slice(0, 10), 'the first rows');
    await damage(engine.page(opened.handle, {}, rows.length - 5, 10), 'cut-paged.jsonl.gz', 'a page reaching past the damage');
    await damage(engine.page(opened.handle, {}, rows.length + 100, 10), 'cut-paged.jsonl.gz', 'a page past the damage');
    await engine.closeHandle(opened.handle);
  });
});

// The column profiles a preview grid gets, on the real engine: once the first rows show, every
// column's profile over the whole view comes tagged with the view's version, with the figures
// of the rows that the filters let through (counted here independently); a new view cancels the
// profile running in the engine, and none of its parts reaches the grid after the new view; a
// damaged file is one note, while the grid still pages the rows before the damage.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { nullLogger } from '../../../src/core/logger';
import { EngineClient } from '../../../src/engine/engineClient';
import type { ColumnProfile } from '../../../src/engine/engineProtocol';
import { PreviewSession } from '../../../src/extension/preview/previewSession';
import { openResultFiles, type RowSource } from '../../../src/extension/preview/rowSource';
import type { ToWebview } from '../../../src/webview/previewProtocol';
import { HOST_SCRIPT } from '../engine/sampleResults';

const ROWS = 1_000_000;

type ProfileColumnMessage = Extract<ToWebview, { type: 'profileColumn' }>;

describe('column profiles in a preview, on the engine', function () {
  this.timeout(120_000);
  let dir: string;
  let engine: EngineClient;
  let parquet: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-profile-strip-'));
    engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine') });
    parquet = path.join(dir, 'result.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    // texts of a million distinct values take a while each to group: a profile that runs long enough to be cancelled midway
    const slow = Array.from({ length: 4 }, (_, c) => `md5(CAST(i * ${c + 1} AS VARCHAR)) AS t${c}`).join(', ');
    await conn.run(`COPY (
      SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 1000 END AS score,
             CASE WHEN i % 11 = 0 THEN NULL ELSE ['on', 'off', 'unknown'][i % 3 + 1] END AS state, ${slow}
      FROM range(${ROWS}) t(i)
    ) TO '${parquet}' (FORMAT parquet)`);
    conn.closeSync();
  });

  after(async () => {
    await engine.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A session over `source` whose grid is ready; `onPost` sees each message as it is posted. */
  async function preview(source: RowSource, onPost: (m: ToWebview, s: PreviewSession) => void = () => undefined): Promise<{ s: PreviewSession; posted: ToWebview[] }> {
    const posted: ToWebview[] = [];
    const s: PreviewSession = new PreviewSession(
      'result',
      {
        post: (m) => {
          posted.push(m);
          onPost(m, s);
        },
        copy: () => undefined,
        export: () => undefined,
        columnProfiles: () => true,
      },
      nullLogger,
    );
    s.attach(source);
    await s.receive({ type: 'ready' });
    return { s, posted };
  }

  /** The grid paints the first rows of the current version, as the webview reports it. */
  async function paint(s: PreviewSession): Promise<void> {
    const { version } = s.state();
    await s.rows(0, 20);
    await s.receive({ type: 'shown', version, firstRow: 0, rows: 20 });
  }

  /** Resolves once every column's profile of `version` has been posted. */
  async function allColumns(posted: ToWebview[], version: number, columns: number): Promise<Map<string, ColumnProfile>> {
    const deadline = Date.now() + 100_000;
    for (;;) {
      const parts = posted.filter((m): m is ProfileColumnMessage => m.type === 'profileColumn' && m.version === version);
      if (parts.length === columns) return new Map(parts.map((m) => [m.column.name, m.column]));
      assert.ok(!posted.some((m) => m.type === 'profileFailed'), JSON.stringify(posted.find((m) => m.type === 'profileFailed')));
      assert.ok(Date.now() < deadline, `${parts.length} of ${columns} columns after 100 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('sends each column\'s profile of the view in force, and cancels it in the engine when a view of other rows comes', async () => {
    const opened = await openResultFiles(engine, { paths: [parquet] });
    /** how each profile the engine ran ended */
    const ends: string[] = [];
    const source: RowSource = {
      ...opened,
      profile: (view, handlers, signal) =>
        opened.profile!(view, handlers, signal).then(
          (profile) => (ends.push('done'), profile),
          (err: { kind?: string }) => {
            ends.push(err.kind ?? 'failed');
            throw err;
          },
        ),
    };
    let viewPosted = -1;
    const { s, posted } = await preview(source, (m, session) => {
      // a new view as soon as the first column of the whole result is in: the others are still to come
      if (m.type === 'profileColumn' && m.version === 1 && viewPosted < 0) viewPosted = (session.setView({ sort: [], filters: { score: '< 10' }, where: 'id < 500000' }), posted.length);
    });
    assert.equal(s.state().version, 1);
    assert.ok(
      posted.some((m) => m.type === 'profileState' && m.version === 1 && m.state === 'waiting'),
      'the strips wait for the first rows',
    );
    await paint(s);
    await s.until((state) => state.version === 2);
    const filtered = s.state().version;
    await paint(s);
    const profiles = await allColumns(posted, filtered, opened.columns.length);

    assert.deepEqual(ends[0], 'cancelled', 'the first profile was stopped in the engine');
    const late = posted.slice(viewPosted).filter((m) => m.type === 'profileColumn' && m.version !== filtered);
    assert.deepEqual(late, [], 'no part of the old profile after the new view');
    assert.ok(posted.filter((m) => m.type === 'profileColumn' && m.version === 1).length < opened.columns.length, 'the old profile stopped midway');

    // the rows with id < 500000 and score < 10 (score NULL for multiples of 7, which `< 10` leaves out), counted here
    const kept = Array.from({ length: 500_000 }, (_, i) => i).filter((i) => i % 7 !== 0 && i % 1000 < 10);
    const score = profiles.get('score')!;
    assert.deepEqual([score.count, score.nulls, score.min, score.max, score.distinct], [kept.length, 0, 0, 9, 10]);
    const state = profiles.get('state')!;
    assert.equal(state.nulls, kept.filter((i) => i % 11 === 0).length, 'NULLs of the filtered rows');
    assert.equal(state.count + state.nulls, kept.length);
    const id = profiles.get('id')!;
    assert.equal(id.histogram!.reduce((sum, b) => sum + b.count, 0), kept.length);

    // another order of the same rows: the profile stands, under the new version
    const calls = ends.length;
    const sorted = s.setView({ sort: [{ column: 'id', descending: true }], filters: { score: '< 10' }, where: 'id < 500000' });
    assert.equal((await allColumns(posted, sorted, opened.columns.length)).get('score')?.count, kept.length);
    await paint(s);
    assert.equal(ends.length, calls, 'no second profile of the same rows');
    s.dispose();
  });

  it('shows a damaged file as one note; the grid still pages the rows before the damage', async () => {
    const lines = Array.from({ length: 200_000 }, (_, i) => JSON.stringify({ id: i, name: `user ${i}`, note: i % 5 === 0 ? null : 'x'.repeat(i % 50) }));
    const packed = gzipSync(`${lines.join('\n')}\n`);
    const cut = path.join(dir, 'part-00000.jsonl.gz');
    await fs.writeFile(cut, packed.subarray(0, Math.floor(packed.length * 0.8)));
    const { s, posted } = await preview(await openResultFiles(engine, { paths: [cut] }));
    await paint(s);
    const deadline = Date.now() + 60_000;
    while (!posted.some((m) => m.type === 'profileFailed') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const failed = posted.filter((m) => m.type === 'profileFailed');
    assert.equal(failed.length, 1, 'one note');
    assert.match((failed[0] as { message: string }).message, /part-00000\.jsonl\.gz is damaged/);
    assert.equal((await s.rows(0, 100)).length, 100, 'the first rows still read');
    s.dispose();
  });
});

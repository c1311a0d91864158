// Syncing the emulator's tables into a lake (Parquet files in an object store: a folder that
// behaves as one, and a real S3-compatible server on loopback through the AWS SDK), read back as a reader that knows nothing of dq reads them: the files the
// manifest lists, by DuckDB and by hyparquet. After a snapshot and incrementals every table
// equals the emulator's snapshot at the point reached, no key in two files, no object left
// that the state does not account for; a schema change adds a column in place (old files read
// as NULL) and a changed type waits for --resnapshot; an incremental writes a small part of
// the table, not the table again.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isoUtc } from '../../../src/core/isoTime';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import { FolderStore } from '../../support/folderStore';
import { S3TestServer } from '../../support/s3Server';
import { assertSortedFiles, bytesWritten, lakeRows, lakeRowsByHyparquet, lakeTarget, s3LakeStore, stateOf, unaccounted, workFolder, type InspectedStore } from './lakeRows';
import { assertSameRows, SyncFixture, syncInto, walkPoints, walkSchemaChanges, withTarget, type SyncOptions } from './syncFixture';

describe('sync to a lake of Parquet files from the emulator', function () {
  this.timeout(300_000);
  let fixture: SyncFixture;

  before(async () => {
    // web_logs as the service delivers logs: at least once, some records twice
    fixture = await SyncFixture.start({ rows: 3000, duplicates: 0.02 });
  });
  after(async () => {
    await fixture?.close();
  });

  /** A store of each kind for `test`: a folder, then the loopback S3 server (started and stopped around it). */
  const STORES: [string, (dir: string, test: (store: InspectedStore) => Promise<void>) => Promise<void>][] = [
    ['a folder', (dir, test) => test(new FolderStore(dir))],
    [
      'a loopback S3 server',
      async (_dir, test) => {
        const server = await S3TestServer.start('dq-lake');
        const store = await s3LakeStore(server);
        try {
          await test(store);
        } finally {
          await store.shutdown();
          await server.stop();
        }
      },
    ],
  ];

  for (const [kind, withStore] of STORES) {
  it(`a snapshot, then three incrementals into ${kind}: the manifest's files, read by DuckDB and by hyparquet, equal the emulator's snapshot at each point`, () => withStore(path.join(fixture.dir, `walk-${kind.length}`), async (store) => {
    const work = await workFolder(fixture.dir, `walk-work-${kind.length}`);
    const sync = (options: SyncOptions): Promise<TableSyncReport[]> => syncInto(lakeTarget(store, work), { ...options, workDir: work });
    await walkPoints(
      fixture,
      {
        sync,
        rows: (namespace, table) => lakeRows(store, namespace, table),
        states: () => withTarget(lakeTarget(store, work, { readOnly: true }), (t) => t.listStates()),
      },
      async (until) => {
        // a second reader, which shares no code with DuckDB, reads the same rows
        for (const [namespace, table] of [['canvas', 'users'], ['canvas', 'submissions'], ['canvas_logs', 'web_logs']]) {
          const expected = await fixture.reference(namespace, table, until);
          assertSameRows(await lakeRowsByHyparquet(store, namespace, table), expected, `${namespace}.${table} by hyparquet`);
          assert.deepEqual(await unaccounted(store, namespace, table), [], `${namespace}.${table}: every object is accounted for`);
        }
      },
    );
    const users = await stateOf(store, 'canvas', 'users');
    assert.deepEqual(
      Object.fromEntries(users!.columns.map((c) => [c.name, c.type])),
      {
        id: 'bigint',
        name: 'text',
        sortable_name: 'text',
        workflow_state: 'text',
        time_zone: 'text',
        locale: 'text',
        public: 'boolean',
        avatar_image_url: 'text',
        login_count: 'integer',
        preferences_high_contrast: 'boolean',
        preferences_font_size: 'integer',
        preferences_theme: 'text',
        created_at: 'timestamptz',
        updated_at: 'timestamptz',
      },
    );
    // nothing is written to the work folder that outlives a run
    assert.deepEqual(await import('node:fs/promises').then((fs) => fs.readdir(work)), []);
  }));
  }

  for (const [kind, withStore] of STORES) {
  it(`follows the schema changes the service makes in ${kind}: an added column in place (old files read as NULL), a changed type by --resnapshot`, async () => {
    const own = await SyncFixture.start({ rows: 3000 });
    try {
      await withStore(path.join(own.dir, 'evolving'), async (store) => {
      const work = await workFolder(own.dir, 'work');
      await walkSchemaChanges(
        own,
        {
          sync: (options) => syncInto(lakeTarget(store, work), { ...options, workDir: work }),
          rows: (namespace, table) => lakeRows(store, namespace, table),
          states: () => withTarget(lakeTarget(store, work, { readOnly: true }), (t) => t.listStates()),
        },
        'new_quizzes',
        'quiz_sessions',
      );
      const state = await stateOf(store, 'new_quizzes', 'quiz_sessions');
      assert.deepEqual(state?.schemaChanges, [], 'a resnapshot starts the table anew');
      });
    } finally {
      await own.close();
    }
  });
  }

  it('records a column added in place in the state, and files written before it lack the column', async () => {
    const own = await SyncFixture.start({ rows: 2000 });
    try {
      const store = new FolderStore(path.join(own.dir, 'added'));
      const work = await workFolder(own.dir, 'work');
      const run = (until: string): Promise<TableSyncReport[]> =>
        syncInto(lakeTarget(store, work, {}, { maxFileBytes: 2 * 1024, smallFileBytes: 0 }), { client: own.client, namespace: 'new_quizzes', tables: ['quiz_sessions'], until, workDir: work });
      await run(own.point(6));
      const first = (await stateOf(store, 'new_quizzes', 'quiz_sessions'))!;
      const version = own.emulator.evolveTable('new_quizzes', 'quiz_sessions', 'addColumn', Date.parse(own.point(6)));
      const [report] = await run(laterBy(own.point(6), 1));
      assert.equal(report.outcome, 'synced', JSON.stringify(report));
      const after = (await stateOf(store, 'new_quizzes', 'quiz_sessions'))!;
      assert.deepEqual(after.schemaChanges.map((c) => [c.schemaVersion, c.added]), [[version, [`added_in_v${version}`]]]);
      const untouched = after.files.filter((f) => first.files.some((o) => o.key === f.key));
      assert.ok(untouched.length > 0, 'some files of the snapshot are kept as they were');
      const rows = await lakeRows(store, 'new_quizzes', 'quiz_sessions');
      assertSameRows(rows, await own.reference('new_quizzes', 'quiz_sessions', laterBy(own.point(6), 1)), 'quiz_sessions');
      assert.ok(rows.rows.size > 0 && [...rows.rows.values()].some((r) => r[rows.columns.indexOf(`added_in_v${version}`)] === null), 'rows of old files read the new column as NULL');
    } finally {
      await own.close();
    }
  });

  it('an incremental rewrites only the files that hold changed keys, and appends go to new files: bytes written are a small part of the table', async () => {
    const store = new FolderStore(path.join(fixture.dir, 'bytes'));
    const work = await workFolder(fixture.dir, 'bytes-work');
    // small files, so the table has many and a change touches few
    const tuning = { maxFileBytes: 4 * 1024, smallFileBytes: 0 };
    const start = fixture.point(6);
    for (const [namespace, table, commits] of [['canvas', 'submissions', 1], ['canvas_logs', 'web_logs', 6]] as const) {
      const run = (until: string): Promise<TableSyncReport[]> =>
        syncInto(lakeTarget(store, work, {}, tuning), { client: fixture.client, namespace, tables: [table], until, workDir: work });
      await run(start);
      const before = (await stateOf(store, namespace, table))!;
      assert.ok(before.files.length >= 5, `${table}: ${before.files.length} files`);
      await assertSortedFiles(store, namespace, table);
      const [report] = await run(laterBy(start, commits));
      const after = (await stateOf(store, namespace, table))!;
      const bytes = bytesWritten(before, after);
      assert.ok(report.upserted + report.deleted > 0, `${table}: the incremental changed rows`);
      const facts = `${table}: ${bytes.written} bytes written of ${bytes.table} (${bytes.rewritten} of ${before.files.length} files rewritten for ${report.upserted} upserts and ${report.deleted} deletes)`;
      // every file rewritten holds a changed key; the rest stay as they were
      assert.ok(bytes.rewritten <= report.upserted + report.deleted && bytes.rewritten < before.files.length, facts);
      assert.ok(bytes.written < bytes.table * (table === 'web_logs' ? 0.25 : 0.75), facts);
      console.log(`      ${facts}`);
      assertSameRows(await lakeRows(store, namespace, table), await fixture.reference(namespace, table, laterBy(start, commits)), table);
      await assertSortedFiles(store, namespace, table);
    }
  });
});

/** The commit `commits` after a point (commits are 4 hours apart). */
function laterBy(point: string, commits: number): string {
  return isoUtc(Date.parse(point) + commits * 4 * 3_600_000);
}

// The editor's sync process: the sync host client starts the host (a real child process),
// which syncs tables of the emulator into a real DuckDB file and answers with reports; the meta
// table is read back through it; a cancel leaves the target at its last run; a host that does
// not stop is killed, and one that dies is reported; the secret never reaches a log line.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isDqError } from '../../../src/client/errors';
import { SyncHostClient } from '../../../src/sync/syncHostClient';
import type { SyncRunRequest } from '../../../src/sync/syncProtocol';
import type { SyncProgress } from '../../../src/sync/syncReport';
import { clientTag } from '../../../src/sync/syncSource';
import { hostServiceOf, LogLines, SyncFixture, withDatabase } from './syncFixture';

/** Another institution's credentials on the same emulator. */
const OTHER_ACCOUNT = { clientId: 'institution-b-client', clientSecret: 'institution-b-secret-41f7' };

const HOST_SCRIPT = path.resolve(__dirname, '../../../src/sync/syncHost.js');

function tableCount(file: string, table: string): Promise<number> {
  return withDatabase(file, async (db) => {
    const conn = await db.connect();
    try {
      const reader = await conn.runAndReadAll(`SELECT count(*) FROM ${table}`);
      return Number(reader.getRowsJson()[0][0]);
    } finally {
      conn.closeSync();
    }
  });
}

describe('sync host: syncs in a child process for the editor', function () {
  this.timeout(120_000);
  let fixture: SyncFixture;
  let service: SyncRunRequest['service'];
  let file: string;
  let log: LogLines;
  let host: SyncHostClient;

  const request = (tables: string[] | 'all', extra: Partial<SyncRunRequest> = {}, namespace = 'canvas'): SyncRunRequest => ({
    service,
    target: file,
    namespace,
    tables,
    resnapshot: false,
    workDir: path.join(fixture.dir, 'work'),
    ...extra,
  });

  before(async () => {
    fixture = await SyncFixture.start({ extraCredentials: [OTHER_ACCOUNT] });
    service = await hostServiceOf(fixture.emulator);
    file = path.join(fixture.dir, 'db', 'sync.duckdb');
    log = new LogLines();
    host = new SyncHostClient({ hostScript: HOST_SCRIPT, logger: log });
  });

  after(async () => {
    host.dispose();
    await fixture?.close();
  });

  it('reads no synced tables from a database that does not exist, and does not create it', async () => {
    assert.deepEqual(await host.listStates(file), []);
    await assert.rejects(fs.stat(file), /ENOENT/);
  });

  it('syncs a table into the DuckDB file, reporting each stage, and the meta table says the same', async () => {
    const stages: SyncProgress['stage'][] = [];
    const [report] = await host.run(request(['users']), (p) => stages.push(p.stage));
    assert.equal(report.outcome, 'synced', JSON.stringify(report));
    assert.equal(report.kind, 'snapshot');
    for (const stage of ['querying', 'downloading', 'applying', 'done'] as const) assert.ok(stages.includes(stage), `a ${stage} event: ${stages.join(', ')}`);

    const records = (await fixture.reference('canvas', 'users', report.point!)).rows.size;
    assert.equal(report.rows, records, 'every row of the emulator\'s snapshot at the point reached');
    assert.equal(await tableCount(file, 'canvas.users'), records);

    const states = await host.listStates(file);
    assert.deepEqual(states.map((s) => [s.namespace, s.table, s.rows, s.point]), [['canvas', 'users', records, report.point]]);
    assert.ok(!('schema' in states[0]), 'the schema stays in the database');
    assert.ok(log.lines.length > 0, 'the host logs what it does');
    assert.ok(log.lines.every((l) => !l.includes(fixture.emulator.clientSecret)), 'the secret never reaches a log line');
  });

  it('a cancel mid-run leaves the table and its point as the last run left them', async () => {
    const [before] = await host.listStates(file);
    const stop = new AbortController();
    const reports = await host.run(request(['users'], { resnapshot: true }), (p) => {
      if (p.stage === 'downloading') stop.abort();
    }, stop.signal);
    assert.deepEqual(reports.map((r) => [r.table, r.outcome]), [['users', 'cancelled']]);
    const [after] = await host.listStates(file);
    assert.deepEqual(after, before);
    assert.equal(await tableCount(file, 'canvas.users'), before.rows);
  });

  it('syncs every table of a namespace, and says what a bad target is', async () => {
    const reports = await host.run(request('all', {}, 'catalog'));
    assert.deepEqual(reports.map((r) => [r.table, r.outcome]).sort(), [['orders', 'synced'], ['products', 'synced']]);
    const synced = (await host.listStates(file)).map((s) => `${s.namespace}.${s.table}`);
    assert.deepEqual(synced, ['canvas.users', 'catalog.orders', 'catalog.products']);

    const err = await host.run(request(['users'], { target: 'mysql://db.example.com/x' })).then(
      () => assert.fail('mysql is no target'),
      (e: unknown) => e,
    );
    assert.ok(isDqError(err) && err.kind === 'usage', String(err));
  });

  it('records the sample data as the source of its tables; another service\'s changes are refused with Resnapshot or another target offered', async () => {
    assert.deepEqual([...new Set((await host.listStates(file)).map((s) => s.source))], ['sample data'], 'the same whatever port the emulator has');
    // the same emulator set up as a connection of its own: its address and client tag are its source
    const connection = { ...service, source: undefined };
    const mine = `${fixture.emulator.baseUrl}/dap?client=${clientTag(fixture.emulator.clientId)}`;
    const [report] = await host.run(request(['users'], { service: connection }));
    assert.deepEqual([report.outcome, report.needsResnapshot, report.error?.reason], ['failed', true, 'otherSource'], JSON.stringify(report));
    assert.equal(report.error?.message, `canvas.users in ${file} was synced from sample data, not from ${mine}: the changes of one service cannot be applied to the rows of another.`);
    assert.equal(
      report.error?.hint,
      'Take a fresh snapshot from this connection, which replaces the table: choose Resnapshot, or run the command again with resnapshot: true; or sync into another target (the dataQuery.sync.target setting).',
    );

    // that connection takes the table; then another institution's credentials on the same gateway are refused
    const [fresh] = await host.run(request(['users'], { service: connection, resnapshot: true }));
    assert.deepEqual([fresh.outcome, fresh.kind], ['synced', 'snapshot'], JSON.stringify(fresh));
    assert.deepEqual((await host.listStates(file)).filter((s) => s.table === 'users').map((s) => s.source), [mine]);
    const [theirs] = await host.run(request(['users'], { service: { ...connection, ...OTHER_ACCOUNT } }));
    assert.deepEqual([theirs.outcome, theirs.needsResnapshot, theirs.error?.reason], ['failed', true, 'otherCredentials'], JSON.stringify(theirs));
    assert.equal(
      theirs.error?.message,
      `canvas.users in ${file} was synced from ${fixture.emulator.baseUrl}/dap with other credentials (client ${clientTag(fixture.emulator.clientId)}, not client ${clientTag(OTHER_ACCOUNT.clientId)}): ` +
        'the changes one account sees cannot be applied to the rows of another.',
    );
    assert.equal(
      theirs.error?.hint,
      "If these are new credentials for the same account, take a fresh snapshot, which replaces the table: choose Resnapshot, or run the command again with resnapshot: true. If they are another account's, sync into another target (the dataQuery.sync.target setting).",
    );
    for (const line of log.lines) {
      for (const secret of [fixture.emulator.clientId, OTHER_ACCOUNT.clientId, OTHER_ACCOUNT.clientSecret]) assert.ok(!line.includes(secret), `logged: ${line}`);
    }
  });

  describe('a host that misbehaves', function () {
    this.timeout(20_000);
    const clients: SyncHostClient[] = [];
    afterEach(() => clients.splice(0).forEach((c) => c.dispose()));

    async function script(name: string, body: string): Promise<string> {
      const p = path.join(fixture.dir, name);
      await fs.writeFile(p, body);
      return p;
    }

    it('is killed when it does not stop after a cancel, and the tables are reported cancelled', async () => {
      const stubborn = await script('stubborn.js', "process.on('message', (m) => { if (m.type === 'run') process.send({ type: 'progress', progress: { namespace: 'canvas', table: 'users', stage: 'querying' } }); }); setInterval(() => {}, 1000); process.on('disconnect', () => process.exit(0));");
      const client = new SyncHostClient({ hostScript: stubborn, killAfterMs: 300, logger: log });
      clients.push(client);
      const stop = new AbortController();
      const reports = await client.run(request(['users', 'courses']), (p) => p.stage === 'querying' && stop.abort(), stop.signal);
      assert.deepEqual(reports.map((r) => [r.table, r.outcome]), [['users', 'cancelled'], ['courses', 'cancelled']]);
      assert.ok(log.lines.some((l) => /did not stop within/.test(l)));
    });

    it('is reported when it dies, with what to do next', async () => {
      const dying = await script('dying.js', "process.on('message', () => process.exit(3));");
      const client = new SyncHostClient({ hostScript: dying });
      clients.push(client);
      const err = await client.run(request(['users'])).then(
        () => assert.fail('the host died'),
        (e: unknown) => e,
      );
      assert.ok(isDqError(err), String(err));
      assert.match(err.message, /stopped unexpectedly \(exit code 3\)/);
      assert.match(err.hint ?? '', /run the sync again/);
    });
  });
});

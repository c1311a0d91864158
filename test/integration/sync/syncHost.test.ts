// The editor's sync process: the sync host client starts the host (a real child process),
// which syncs tables of the emulator into a real DuckDB file and answers with reports; the meta
// table is read back through it; a cancel leaves the target at its last run; a host that does
// not stop is killed, and one that dies is reported; the secret never reaches a log line.

import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isDqError } from '../../../src/client/errors';
import type { Logger } from '../../../src/core/logger';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { SyncHostClient } from '../../../src/sync/syncHostClient';
import type { SyncRunRequest } from '../../../src/sync/syncProtocol';
import type { SyncProgress } from '../../../src/sync/syncReport';

const HOST_SCRIPT = path.resolve(__dirname, '../../../src/sync/syncHost.js');

function collectingLogger(lines: string[]): Logger {
  const add = (m: string): void => void lines.push(m);
  return { trace: add, debug: add, info: add, warn: add, error: add };
}

async function tableCount(file: string, table: string): Promise<number> {
  const db = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY' });
  const conn = await db.connect();
  try {
    const reader = await conn.runAndReadAll(`SELECT count(*) FROM ${table}`);
    return Number(reader.getRowsJson()[0][0]);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

describe('sync host: syncs in a child process for the editor', function () {
  this.timeout(120_000);
  let emulator: RunningEmulator;
  let dir: string;
  let file: string;
  let lines: string[];
  let host: SyncHostClient;

  const request = (tables: string[] | 'all', extra: Partial<SyncRunRequest> = {}, namespace = 'canvas'): SyncRunRequest => ({
    service: {
      baseUrl: emulator.baseUrl,
      dataPrefix: emulator.dataPrefix,
      allowInsecureHttp: false,
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
      proxy: { useEnvironment: false },
      rateLimits: {},
      userAgent: 'dq-test',
    },
    target: file,
    namespace,
    tables,
    resnapshot: false,
    workDir: path.join(dir, 'work'),
    ...extra,
  });

  before(async () => {
    emulator = await startEmulator({ jobDelayMs: 0, limits: false });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-sync-host-'));
    file = path.join(dir, 'db', 'sync.duckdb');
    lines = [];
    host = new SyncHostClient({ hostScript: HOST_SCRIPT, logger: collectingLogger(lines) });
  });

  after(async () => {
    host.dispose();
    await emulator.close();
    await fs.rm(dir, { recursive: true, force: true });
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

    const client = new DataQueryClient({ baseUrl: emulator.baseUrl, dataPrefix: emulator.dataPrefix, credentials: async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }) });
    const snapshot = await client.downloadJob(await client.runJob('canvas', 'users', { format: 'jsonl' }), { dir: path.join(dir, 'reference') });
    const records = snapshot.reduce((n, f) => n + gunzipSync(readFileSync(f.path)).toString('utf8').split('\n').filter(Boolean).length, 0);
    await client.close();
    assert.equal(report.rows, records, 'every record of a snapshot taken now');
    assert.equal(await tableCount(file, 'canvas.users'), records);

    const states = await host.listStates(file);
    assert.deepEqual(states.map((s) => [s.namespace, s.table, s.rows, s.point]), [['canvas', 'users', records, report.point]]);
    assert.ok(!('schema' in states[0]), 'the schema stays in the database');
    assert.ok(lines.length > 0, 'the host logs what it does');
    assert.ok(lines.every((l) => !l.includes(emulator.clientSecret)), 'the secret never reaches a log line');
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

  describe('a host that misbehaves', function () {
    this.timeout(20_000);
    const clients: SyncHostClient[] = [];
    afterEach(() => clients.splice(0).forEach((c) => c.dispose()));

    async function script(name: string, body: string): Promise<string> {
      const p = path.join(dir, name);
      await fs.writeFile(p, body);
      return p;
    }

    it('is killed when it does not stop after a cancel, and the tables are reported cancelled', async () => {
      const stubborn = await script('stubborn.js', "process.on('message', (m) => { if (m.type === 'run') process.send({ type: 'progress', progress: { namespace: 'canvas', table: 'users', stage: 'querying' } }); }); setInterval(() => {}, 1000); process.on('disconnect', () => process.exit(0));");
      const client = new SyncHostClient({ hostScript: stubborn, killAfterMs: 300, logger: collectingLogger(lines) });
      clients.push(client);
      const stop = new AbortController();
      const reports = await client.run(request(['users', 'courses']), (p) => p.stage === 'querying' && stop.abort(), stop.signal);
      assert.deepEqual(reports.map((r) => [r.table, r.outcome]), [['users', 'cancelled'], ['courses', 'cancelled']]);
      assert.ok(lines.some((l) => /did not stop within/.test(l)));
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

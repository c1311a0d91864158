// dq sync and dq sync-status against the emulator, as a person (or cron) runs them: what they
// print, as text and JSON, the exit codes, and that no secret or password is ever printed.
// dq keeps to the service's default limits (5 create-job calls a minute), so this file makes
// few jobs, but where limits arranged with the provider are given (--rate-limits,
// DQ_RATE_LIMITS). A database file another process holds is waited for, and said so at once.
// Two accounts on one gateway (two sets of credentials, no scope) are told apart by a tag of
// their client IDs, never by the IDs themselves.

import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import type { TableSyncReport } from '../../../src/sync/syncReport';
import { runDq, type CliRun } from '../../support/cliHarness';

/** The tag a source holds for a client ID: the first 12 hex digits of its SHA-256. */
function tagOf(clientId: string): string {
  return createHash('sha256').update(clientId).digest('hex').slice(0, 12);
}

/** Another institution's credentials on the same gateway. */
const OTHER_ACCOUNT = { clientId: 'institution-b-client', clientSecret: 'institution-b-secret-93e1' };

describe('dq sync and dq sync-status', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  const runs: CliRun[] = [];

  async function dq(argv: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliRun> {
    const run = await runDq(argv, { env: { ...env, ...extraEnv }, cwd: tmp });
    runs.push(run);
    return run;
  }

  before(async () => {
    emu = await startEmulator({ jobDelayMs: 200, limits: false, extraCredentials: [OTHER_ACCOUNT] });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-sync-cli-'));
    env = { DQ_BASE_URL: emu.baseUrl, DQ_DATA_PREFIX: emu.dataPrefix, DQ_CLIENT_ID: emu.clientId, DQ_CLIENT_SECRET: emu.clientSecret, HOME: tmp, TMPDIR: tmp };
  });
  after(async () => {
    await emu.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('dq sync --all --json syncs every table of the namespace into the file; dq sync-status lists them', async () => {
    const sync = await dq(['sync', 'catalog', '--all', '--to', 'db/sync.duckdb', '--json']);
    assert.equal(sync.code, 0, sync.stderr);
    const file = path.join(tmp, 'db', 'sync.duckdb');
    const out = JSON.parse(sync.stdout) as { target: string; tables: TableSyncReport[] };
    assert.equal(out.target, file);
    assert.deepEqual(out.tables.map((r) => r.table), new SampleCatalog().tables('catalog'));
    for (const r of out.tables) {
      assert.equal(r.outcome, 'synced');
      assert.equal(r.kind, 'snapshot');
      assert.equal(r.namespace, 'catalog');
      assert.ok((r.rows ?? 0) > 0 && r.upserted === r.rows, JSON.stringify(r));
      assert.ok(r.point && !Number.isNaN(Date.parse(r.point)));
      assert.equal(typeof r.seconds, 'number');
    }

    const status = await dq(['sync-status', '--to', 'db/sync.duckdb', '--json']);
    assert.equal(status.code, 0, status.stderr);
    const listed = JSON.parse(status.stdout) as { target: string; tables: Array<Record<string, unknown>> };
    assert.equal(listed.target, file);
    assert.deepEqual(
      listed.tables.map((s) => [s.namespace, s.table, s.point, s.rows, s.schemaVersion]),
      out.tables.map((r) => [r.namespace, r.table, r.point, r.rows, r.schemaVersion]),
    );
    for (const s of listed.tables) {
      assert.deepEqual(Object.keys(s).sort(), ['namespace', 'point', 'ranAt', 'rows', 'schemaVersion', 'source', 'table'], 'the schema itself is left out');
      assert.equal(s.source, `${emu.baseUrl}/${emu.dataPrefix}?client=${tagOf(emu.clientId)}`, 'the service and credentials the rows came from');
    }

    const text = await dq(['sync-status'], { DQ_SYNC_TARGET: file });
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trim().split('\n');
    assert.equal(lines.length, out.tables.length);
    for (const [i, r] of out.tables.entries()) {
      assert.match(lines[i], new RegExp(`^catalog\\.${r.table}\\s+${r.point}\\s+${r.rows!.toLocaleString('en-US')} rows\\s+schema v${r.schemaVersion}\\s+ran \\S+\\s+from ${emu.baseUrl}/dap\\?client=${tagOf(emu.clientId)}$`));
    }
  });

  it('syncs the tables that exist when one does not, prints a line for each, and exits 10: some tables did not sync', async () => {
    const run = await dq(['sync', 'catalog', 'products', 'no_such_table', '--to', 'names.duckdb']);
    assert.equal(run.code, 10, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 2, run.stdout);
    assert.match(lines[0], /^catalog\.products\s+synced\s+snapshot\s+[\d,]+ upserted\s+0 deleted\s+[\d,]+ rows\s+at \S+Z\s+[\d.]+ s$/);
    assert.match(lines[1], /^catalog\.no_such_table\s+failed\s+notFound: .*no_such_table.*list the namespace's tables/i);
    assert.match(run.stderr, /dq: 1 of 2 tables did not sync; .*names\.duckdb keeps their last complete sync\./);
  });

  it('says so on stderr when --until is earlier than a table\'s point, and leaves the table as it is', async () => {
    const first = await dq(['sync', 'catalog', 'products', '--to', 'until.duckdb', '--json']);
    assert.equal(first.code, 0, first.stderr);
    const [synced] = (JSON.parse(first.stdout) as { tables: TableSyncReport[] }).tables;
    const earlier = new Date(Date.parse(synced.point as string) - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const again = await dq(['sync', 'catalog', 'products', '--to', 'until.duckdb', '--until', earlier, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const [report] = (JSON.parse(again.stdout) as { tables: TableSyncReport[] }).tables;
    assert.equal(report.outcome, 'unchanged');
    assert.equal(report.point, synced.point);
    assert.match(again.stderr, new RegExp(`dq: warning: catalog\\.products: already synced to ${synced.point}, which is later than the until asked for \\(${earlier}\\).*resnapshot`));
  });

  it('refuses unclear requests before any call, and reads a database that does not exist as empty', async () => {
    const before = emu.requestLog.entries().length;
    for (const [argv, message] of [
      [['sync', 'catalog'], /name the tables to sync, or give --all/],
      [['sync', 'catalog', 'orders', '--all'], /not both/],
      [['sync', 'catalog', '--all', '--until', 'soon'], /--until must be a UTC date-time/],
      [['sync', 'catalog', '--all', '--concurrency', '0'], /--concurrency must be a whole number from 1 to 16/],
      [['sync', 'catalog', '--all', '--to', 'ftp://host/x'], /Unknown sync target/],
      [['sync-status', 'extra'], /unexpected argument "extra"/],
      [['sync', 'catalog', '--all', '--to', 's3://dq-lake/warehouse', '--retain-files', 'x'], /--retain-files must be a number, not "x"/],
      [['sync', 'catalog', '--all', '--to', 's3://dq-lake/warehouse', '--retain-files', '9000'], /--retain-files must be a number of hours from 0 to 8760 \(got 9000\)/],
      [['sync', 'catalog', '--all', '--to', 'x.duckdb', '--compact'], /--compact is for an s3:\/\/bucket\/prefix target/],
      [['sync', 'catalog', '--all', '--to', 's3://Dq_Lake/warehouse'], /The bucket name "Dq_Lake"/],
      [['sync-status', '--to', 's3://key:s3cret@dq-lake/warehouse'], /an s3:\/\/ URL cannot carry/],
      [['sync', 'catalog', '--all', '--rate-limits', 'createJob=0'], /--rate-limits: createJob must be a whole number of calls a minute, at least 1 \(got 0\)/],
      [['sync', 'catalog', '--all', '--rate-limits', 'createJob=20,createJobs=20'], /--rate-limits: unknown operation "createJobs"; the operations are listTables, getSchema, createJob, getJob or createUrls/],
      [['sync', 'catalog', '--all', '--rate-limits', '{"createJob":2.5}'], /--rate-limits: createJob must be a whole number/],
      [['sync', 'catalog', '--all', '--rate-limits', '{createJob:20}'], /--rate-limits is not valid JSON/],
      [['sync', 'catalog', '--all', '--rate-limits', 'createJob 20'], /--rate-limits: cannot read "createJob 20"/],
    ] as const) {
      const run = await dq([...argv]);
      assert.equal(run.code, 2, `${argv.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /^dq: usage: /);
      assert.match(run.stderr, message);
    }
    const fromEnv = await dq(['sync', 'catalog', '--all'], { DQ_RATE_LIMITS: '{"createjob":20}' });
    assert.equal(fromEnv.code, 2, fromEnv.stderr);
    assert.match(fromEnv.stderr, /^dq: usage: DQ_RATE_LIMITS: unknown operation "createjob"/);
    assert.equal(emu.requestLog.entries().length, before, 'no request was made');

    const empty = await dq(['sync-status', '--to', 'nothing/here.duckdb', '--json']);
    assert.equal(empty.code, 0, empty.stderr);
    assert.deepEqual(JSON.parse(empty.stdout).tables, []);
    assert.equal(existsSync(path.join(tmp, 'nothing')), false, 'sync-status creates nothing');
  });

  it('--rate-limits and DQ_RATE_LIMITS pace the sync by the limits arranged with the provider: seven tables, no job queued', async function () {
    this.timeout(180_000);
    // a service whose limits were raised for these credentials
    const raised = await startEmulator({ jobDelayMs: 200, limits: { createJob: 20, listTables: 20 }, canvasTables: 'core' });
    try {
      const raisedEnv = { DQ_BASE_URL: raised.baseUrl, DQ_DATA_PREFIX: raised.dataPrefix, DQ_CLIENT_ID: raised.clientId, DQ_CLIENT_SECRET: raised.clientSecret };
      const tables = new SampleCatalog({ canvasTables: 'core' }).tables('canvas')!;
      assert.ok(tables.length > 5, 'more tables than the default 5 job creations a minute');
      for (const [how, argv, extraEnv] of [
        ['--rate-limits', ['--rate-limits', 'createJob=20, listTables=20'], {}],
        ['DQ_RATE_LIMITS', [], { DQ_RATE_LIMITS: '{"createJob":20,"listTables":20}' }],
      ] as const) {
        raised.requestLog.clear();
        const to = how === '--rate-limits' ? 'raised-option.duckdb' : 'raised-env.duckdb'; // a snapshot of every table each time
        const run = await dq(['sync', 'canvas', '--all', '--to', to, '--progress', ...argv], { ...raisedEnv, ...extraEnv });
        assert.equal(run.code, 0, `${how}: ${run.stderr}`);
        assert.deepEqual(run.stdout.trim().split('\n').map((l) => l.split(/\s+/).slice(0, 2).join(' ')), tables.map((t) => `canvas.${t} synced`), run.stdout);
        assert.doesNotMatch(run.stderr, /queued, starts in/, `${how}: a job waited for the default limit:\n${run.stderr}`);
        const calls = raised.requestLog.entries();
        assert.equal(calls.filter((c) => c.operation === 'createJob' && c.status < 300).length, tables.length, how);
        assert.deepEqual(calls.filter((c) => c.status === 429), [], `${how}: the service refused no call`);
      }
    } finally {
      await raised.close();
    }
  });

  it('will not apply another service\'s changes (another --base-url or --scope) to a table, and says to resnapshot or sync elsewhere', async () => {
    const fast = ['--rate-limits', 'createJob=50'];
    const first = await dq(['sync', 'catalog', 'products', '--to', 'services.duckdb', ...fast]);
    assert.equal(first.code, 0, first.stderr);
    const other = await startEmulator({ jobDelayMs: 0, limits: false, seed: 7 });
    try {
      const otherEnv = { DQ_BASE_URL: other.baseUrl, DQ_DATA_PREFIX: other.dataPrefix, DQ_CLIENT_ID: other.clientId, DQ_CLIENT_SECRET: other.clientSecret };
      for (const [argv, extraEnv, from] of [
        [[], otherEnv, `${other.baseUrl}/dap?client=${tagOf(other.clientId)}`],
        [['--scope', 'acct-2'], {}, `${emu.baseUrl}/dap?scope=acct-2&client=${tagOf(emu.clientId)}`],
      ] as const) {
        const refused = await dq(['sync', 'catalog', 'products', '--to', 'services.duckdb', ...fast, ...argv], extraEnv);
        assert.equal(refused.code, 6, refused.stderr); // as for every table that needs a fresh snapshot
        assert.equal(
          refused.stdout.trim(),
          `catalog.products  failed  snapshotRequired: catalog.products in ${path.join(tmp, 'services.duckdb')} was synced from ${emu.baseUrl}/dap?client=${tagOf(emu.clientId)}, not from ${from}: ` +
            'the changes of one service cannot be applied to the rows of another. Take a fresh snapshot from this service, which replaces the table: ' +
            'sync it with --resnapshot (dq sync catalog products --resnapshot); or sync to another target (--to).',
        );
      }
      // with --json, stdout is the program's; stderr still tells a person why and what to do
      const asJson = await dq(['sync', 'catalog', 'products', '--to', 'services.duckdb', ...fast, '--json'], otherEnv);
      assert.equal(asJson.code, 6, asJson.stderr);
      assert.match(asJson.stderr, /^dq: catalog\.products: snapshotRequired: catalog\.products in .* was synced from .*sync it with --resnapshot \(dq sync catalog products --resnapshot\); or sync to another target \(--to\)\.$/m);
      assert.match(asJson.stderr, /dq: 1 of 1 tables did not sync;/);
      assert.equal(other.requestLog.entries().filter((e) => e.operation === 'createJob').length, 0, 'no job was made');
      const elsewhere = await dq(['sync', 'catalog', 'products', '--to', 'other-service.duckdb', ...fast], otherEnv);
      assert.equal(elsewhere.code, 0, elsewhere.stderr);
    } finally {
      await other.close();
    }
  });

  it('tells two accounts on one gateway apart by a tag of their client IDs: one\'s changes are never merged onto the other\'s rows', async () => {
    const fast = ['--rate-limits', 'createJob=50'];
    const file = path.join(tmp, 'accounts.duckdb');
    const [mine, theirs] = [tagOf(emu.clientId), tagOf(OTHER_ACCOUNT.clientId)];
    const first = await dq(['sync', 'catalog', 'products', '--to', 'accounts.duckdb', ...fast, '--json']);
    assert.equal(first.code, 0, first.stderr);
    const [synced] = (JSON.parse(first.stdout) as { tables: TableSyncReport[] }).tables;
    const jobsBefore = emu.requestLog.entries().filter((e) => e.operation === 'createJob').length;

    // the same gateway, no scope, another institution's credentials
    const otherEnv = { DQ_CLIENT_ID: OTHER_ACCOUNT.clientId, DQ_CLIENT_SECRET: OTHER_ACCOUNT.clientSecret };
    const refused = await dq(['sync', 'catalog', 'products', '--to', 'accounts.duckdb', ...fast], otherEnv);
    assert.equal(refused.code, 6, refused.stderr);
    assert.equal(
      refused.stdout.trim(),
      `catalog.products  failed  snapshotRequired: catalog.products in ${file} was synced from ${emu.baseUrl}/dap with other credentials (client ${mine}, not client ${theirs}): ` +
        'the changes one account sees cannot be applied to the rows of another. If these are new credentials for the same account, take a fresh snapshot, which replaces the table: ' +
        'sync it with --resnapshot (dq sync catalog products --resnapshot). If they are another account\'s, sync to another target (--to).',
    );
    assert.equal(emu.requestLog.entries().filter((e) => e.operation === 'createJob').length, jobsBefore, 'no job was made');
    const kept = JSON.parse((await dq(['sync-status', '--to', 'accounts.duckdb', '--json'])).stdout) as { tables: Array<Record<string, unknown>> };
    assert.deepEqual(kept.tables.map((s) => [s.point, s.source]), [[synced.point, `${emu.baseUrl}/dap?client=${mine}`]]);

    // new credentials of the same account: a fresh snapshot, after which their changes go on
    const fresh = await dq(['sync', 'catalog', 'products', '--to', 'accounts.duckdb', ...fast, '--resnapshot', '--json'], otherEnv);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.deepEqual((JSON.parse(fresh.stdout) as { tables: TableSyncReport[] }).tables.map((r) => [r.outcome, r.kind]), [['synced', 'snapshot']]);
    const next = await dq(['sync', 'catalog', 'products', '--to', 'accounts.duckdb', ...fast, '--json'], otherEnv);
    assert.deepEqual((JSON.parse(next.stdout) as { tables: TableSyncReport[] }).tables.map((r) => [r.outcome === 'failed', r.kind]), [[false, 'changes']], next.stdout);
    const status = await dq(['sync-status', '--to', 'accounts.duckdb']);
    assert.match(status.stdout, new RegExp(`from ${emu.baseUrl}/dap\\?client=${theirs}\n$`));
    const back = await dq(['sync', 'catalog', 'products', '--to', 'accounts.duckdb', ...fast, '--json']);
    assert.deepEqual((JSON.parse(back.stdout) as { tables: TableSyncReport[] }).tables.map((r) => r.error?.reason), ['otherCredentials']);
  });

  describe('a database file another process holds', () => {
    let holder: ChildProcess | undefined;
    afterEach(() => {
      if (holder && holder.exitCode === null) holder.kill('SIGKILL');
    });

    it('says at once, as a warning, that it waits and for which process, then gives up after --lock-wait', async () => {
      const file = path.join(tmp, 'held.duckdb');
      const script = `
        const { DuckDBInstance } = require(${JSON.stringify(require.resolve('@duckdb/node-api'))});
        DuckDBInstance.create(${JSON.stringify(file)}).then((db) => {
          console.log('held');
          process.stdin.once('data', () => { db.closeSync(); process.exit(0); });
        });`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      holder = child;
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', () => resolve());
        child.once('exit', (code) => reject(new Error(`the holder exited ${code}`)));
      });
      const run = await dq(['sync', 'catalog', 'products', '--to', 'held.duckdb', '--lock-wait', '1']);
      assert.equal(run.code, 8, run.stderr);
      const lines = run.stderr.trim().split('\n');
      assert.match(lines[0], new RegExp(`^dq: warning: waiting up to 1(\\.0)? s for the sync database ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it is in use by process ${child.pid} `));
      assert.equal(lines.filter((l) => l.includes('waiting up to')).length, 1, run.stderr);
      assert.match(lines[lines.length - 1], new RegExp(`in use by process ${child.pid}.*waited 1 s`));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.write('go\n');
      await exited;
    });
  });

  it('never prints a database password or the client secret', async () => {
    const password = 'pg-pass-7f3a91';
    const url = `postgresql://ada:${password}@127.0.0.1:9/warehouse`;
    const sync = await dq(['sync', 'catalog', 'orders', '--to', url, '--lock-wait', '0']);
    assert.notEqual(sync.code, 0);
    assert.match(sync.stderr, /password in the target URL is visible to other users/);
    await dq(['sync-status', '--to', url, '--json', '--lock-wait', '0']);
    for (const run of runs) {
      for (const text of [run.stdout, run.stderr]) {
        assert.ok(!text.includes(password), `password printed: ${text}`);
        assert.ok(!text.includes(emu.clientSecret), `client secret printed: ${text}`);
        for (const secret of [emu.clientId, OTHER_ACCOUNT.clientId, OTHER_ACCOUNT.clientSecret]) assert.ok(!text.includes(secret), `a client ID or secret printed: ${text}`);
      }
    }
  });
});

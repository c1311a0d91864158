// dq sync for operators: with --log-format json every line on stderr is one JSON object a log
// system can read (time, level, table, stage, rows, seconds, job, and a failed table's error
// kind, message, hint and uuid), nothing else is written there, and the service's text stays
// exact; the exit code says whether some or all of several tables did not sync, while a single
// table's failure keeps the code dq query gives it.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { runDq, type CliRun } from '../../support/cliHarness';
import { HostileGateway } from '../../support/hostileGateway';

interface LogLine {
  time: string;
  level: string;
  table?: string;
  stage?: string;
  rows?: number;
  seconds?: number;
  job?: string;
  message?: string;
  error?: { kind: string; message: string; hint?: string; uuid?: string };
  [field: string]: unknown;
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'];
/** C0 but tab and newline, DEL, C1 and bidirectional controls */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Every stderr line as the object it must be: JSON, with an ISO time and a level first. */
function logLines(run: CliRun): LogLine[] {
  assert.ok(run.stderr.endsWith('\n') || run.stderr === '', 'whole lines');
  return run.stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
      } catch {
        return assert.fail(`not a JSON line on stderr: ${line}`);
      }
      assert.deepEqual(Object.keys(parsed).slice(0, 2), ['time', 'level'], line);
      assert.match(parsed.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, line);
      assert.ok(LEVELS.includes(parsed.level), line);
      assert.doesNotMatch(line, RAW_CONTROL, 'no raw control character in a log line');
      return parsed;
    });
}

describe('dq sync for operators: JSON log lines and exit codes', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  let tmp: string;
  let env: NodeJS.ProcessEnv;
  const dq = (argv: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliRun> => runDq(argv, { env: { ...env, ...extra }, cwd: tmp });

  before(async () => {
    emu = await startEmulator({ jobDelayMs: 200, limits: false });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-sync-log-'));
    env = { DQ_BASE_URL: emu.baseUrl, DQ_DATA_PREFIX: emu.dataPrefix, DQ_CLIENT_ID: emu.clientId, DQ_CLIENT_SECRET: emu.clientSecret, HOME: tmp, TMPDIR: tmp };
  });
  after(async () => {
    await emu.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('--log-format json: a line per stage of each table, the failed table with its kind and hint, a summary; exit 10 when some did not sync', async () => {
    const run = await dq(['sync', 'catalog', 'products', 'no_such_table', '--to', 'some.duckdb', '--log-format', 'json']);
    assert.equal(run.code, 10, run.stderr);
    const lines = logLines(run);

    const products = lines.filter((l) => l.table === 'catalog.products');
    assert.deepEqual(products.map((l) => l.stage), ['job', 'download', 'apply', 'done'], run.stderr);
    const done = products[3];
    assert.equal(done.level, 'info');
    assert.equal(done.outcome, 'synced');
    assert.equal(done.mode, 'snapshot');
    assert.ok(typeof done.rows === 'number' && done.rows > 0, JSON.stringify(done));
    assert.equal(done.upserted, done.rows);
    assert.equal(typeof done.seconds, 'number');
    const jobs = emu.requestLog.entries().filter((e) => e.operation === 'createJob' && e.status < 300);
    assert.ok(typeof done.job === 'string' && done.job.length > 0, 'the job is named');
    assert.equal(products[1].job, done.job);
    assert.ok(jobs.length >= 1);

    const [failed] = lines.filter((l) => l.table === 'catalog.no_such_table');
    assert.equal(failed.level, 'error');
    assert.equal(failed.stage, 'failed');
    assert.equal(failed.error?.kind, 'notFound');
    assert.match(failed.error?.message ?? '', /no_such_table/);
    assert.match(failed.error?.hint ?? '', /list the namespace's tables/);
    assert.equal(typeof failed.seconds, 'number');

    const summary = lines.at(-1)!;
    assert.equal(summary.stage, 'summary');
    assert.equal(summary.level, 'error');
    assert.deepEqual([summary.tables, summary.synced, summary.failed, summary.cancelled], [2, 1, 1, 0]);
    assert.match(summary.message ?? '', /^1 of 2 tables did not sync; .*some\.duckdb keeps their last complete sync\.$/);

    // stdout is as in text mode: a line per table
    assert.match(run.stdout, /^catalog\.products\s+synced\s+snapshot/m);
    assert.match(run.stdout, /^catalog\.no_such_table\s+failed\s+notFound/m);
  });

  it('exits 11 when not one of several tables synced, 10 in text mode too when some did not, and a single table keeps its failure\'s code', async () => {
    const none = await dq(['sync', 'catalog', 'nothing_a', 'nothing_b', '--to', 'none.duckdb', '--log-format', 'json']);
    assert.equal(none.code, 11, none.stderr);
    const lines = logLines(none);
    const failed = lines.filter((l) => l.stage === 'failed').map((l) => [l.table, l.error?.kind]);
    assert.deepEqual(failed.sort(), [['catalog.nothing_a', 'notFound'], ['catalog.nothing_b', 'notFound']], 'in the order they ended');
    assert.deepEqual([lines.at(-1)?.stage, lines.at(-1)?.failed], ['summary', 2]);

    const text = await dq(['sync', 'catalog', 'orders', 'nothing_c', '--to', 'text.duckdb']);
    assert.equal(text.code, 10, text.stderr);
    assert.match(text.stderr, /^dq: 1 of 2 tables did not sync;/m);
    const allText = await dq(['sync', 'catalog', 'nothing_d', 'nothing_e', '--to', 'text.duckdb']);
    assert.equal(allText.code, 11, allText.stderr);

    const single = await dq(['sync', 'catalog', 'nothing_f', '--to', 'single.duckdb', '--log-format', 'json']);
    assert.equal(single.code, 4, 'notFound, as dq query exits for it');
    assert.equal(logLines(single).find((l) => l.stage === 'failed')?.error?.kind, 'notFound');

    const ok = await dq(['sync', 'catalog', 'products', 'orders', '--to', 'ok.duckdb', '--log-format', 'json', '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    const summary = logLines(ok).at(-1)!;
    assert.deepEqual([summary.level, summary.stage, summary.synced, summary.failed], ['info', 'summary', 2, 0]);
    assert.equal(JSON.parse(ok.stdout).tables.length, 2, 'stdout keeps the --json summary');
  });

  it('writes warnings, a usage error and a failure of the whole run as JSON lines too', async () => {
    const first = await dq(['sync', 'catalog', 'products', '--to', 'warn.duckdb', '--json']);
    const [synced] = JSON.parse(first.stdout).tables as { point: string }[];
    const earlier = new Date(Date.parse(synced.point) - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const warned = await dq(['sync', 'catalog', 'products', '--to', 'warn.duckdb', '--until', earlier, '--log-format', 'json']);
    assert.equal(warned.code, 0, warned.stderr);
    const warning = logLines(warned).find((l) => l.level === 'warn');
    assert.equal(warning?.table, 'catalog.products', warned.stderr);
    assert.match(warning?.message ?? '', /^already synced to .*later than the until asked for/);

    const usage = await dq(['sync', 'catalog', '--log-format', 'json']);
    assert.equal(usage.code, 2);
    assert.deepEqual(logLines(usage).map((l) => [l.level, l.stage, l.error?.kind]), [['error', 'failed', 'usage']]);

    const unlisted = await dq(['sync', 'no_such_namespace', '--all', '--to', 'ns.duckdb', '--log-format', 'json']);
    assert.equal(unlisted.code, 4, unlisted.stderr);
    const [line] = logLines(unlisted);
    assert.deepEqual([line.level, line.stage, line.table, line.error?.kind], ['error', 'failed', undefined, 'notFound']);
    assert.match(line.error?.hint ?? '', /namespace/);

    const bad = await dq(['sync', 'catalog', 'products', '--log-format', 'xml']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^dq: usage: --log-format must be text or json \(got "xml"\)$/m);
  });

  it('keeps the service\'s text exact in JSON lines, and escaped for the terminal in text mode', async () => {
    const gateway = await new HostileGateway().start();
    try {
      const said = 'No table "evil"\x1b[2J here;\r\nnext\u202e\u009b done';
      gateway.answers.set('GET /query/canvas/table/evil/schema', { status: 404, body: { error: { type: 'ObjectNotFound', kind: 'table', id: 'evil', uuid: 'uuid-\x1b7', message: said } } });
      const json = await runDq(['sync', 'canvas', 'evil', '--to', 'evil.duckdb', '--log-format', 'json'], { env: { ...gateway.env(), HOME: tmp, TMPDIR: tmp }, cwd: tmp });
      assert.equal(json.code, 4, json.stderr);
      const failed = logLines(json).find((l) => l.stage === 'failed');
      assert.ok(failed?.error?.message.includes(said), `exact: ${JSON.stringify(failed)}`);
      assert.equal(failed?.error?.uuid, 'uuid-\x1b7');

      const text = await runDq(['sync', 'canvas', 'evil', '--to', 'evil.duckdb'], { env: { ...gateway.env(), HOME: tmp, TMPDIR: tmp }, cwd: tmp });
      assert.equal(text.code, 4);
      assert.doesNotMatch(text.stdout + text.stderr, RAW_CONTROL);
      assert.match(text.stdout, /No table "evil"\\x1b\[2J here;\\r\\nnext\\u202e\\x9b done/);
    } finally {
      await gateway.close();
    }
  });
});

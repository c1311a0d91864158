import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runDq } from '../../support/cliHarness';

describe('dq usage errors', () => {
  let server: http.Server;
  let requests = 0;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    server = http.createServer((_req, res) => {
      requests++;
      res.statusCode = 500;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    env = { DQ_BASE_URL: `http://127.0.0.1:${port}`, DQ_CLIENT_ID: 'id', DQ_CLIENT_SECRET: 'shh-secret-value' };
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => (requests = 0));

  const refused: Array<[string, string[], RegExp]> = [
    ['an unknown command', ['tabels', 'canvas'], /unknown command "tabels"/],
    ['an unknown option', ['tables', 'canvas', '--fromat', 'csv'], /unknown option --fromat/],
    ['a missing namespace', ['tables'], /not enough arguments/],
    ['an invalid table name', ['schema', 'canvas', '../etc'], /not a valid table name/],
    ['an unknown format', ['query', 'canvas', 'users', '--format', 'xlsx'], /--format must be one of jsonl, csv, tsv, parquet/],
    ['a malformed --since', ['query', 'canvas', 'users', '--since', 'yesterday'], /--since must be a UTC date-time/],
    ['an impossible date', ['query', 'canvas', 'users', '--since', '2026-02-30T00:00:00Z'], /not a real date-time|--since/],
    ['--until without --since', ['query', 'canvas', 'users', '--until', '2026-11-20T00:00:00Z'], /--until needs --since/],
    ['a reversed range', ['query', 'canvas', 'users', '--since', '2026-11-20T00:00:00Z', '--until', '2026-11-19T00:00:00Z'], /earlier than --until/],
    ['a zero concurrency', ['query', 'canvas', 'users', '--concurrency', '0'], /--concurrency must be a whole number from 1 to 32/],
    ['an option missing its value', ['query', 'canvas', 'users', '--out'], /--out needs a value/],
  ];

  for (const [what, argv, message] of refused) {
    it(`refuses ${what} with exit 2 and sends no request`, async () => {
      const run = await runDq(argv, { env });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /^dq: usage: /);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
      assert.equal(requests, 0);
    });
  }

  it('says how to name a service when none is configured', async () => {
    const run = await runDq(['tables', 'canvas'], { env: {} });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--base-url or set DQ_BASE_URL/);
  });

  it('asks for the secret without ever echoing it', async () => {
    const run = await runDq(['tables', 'canvas'], { env: { DQ_BASE_URL: env.DQ_BASE_URL, DQ_CLIENT_ID: 'id' } });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /DQ_CLIENT_SECRET/);
    const withSecret = await runDq(['tables', 'canvas', '--format', 'x'], { env });
    assert.doesNotMatch(withSecret.stderr, /shh-secret-value/);
  });

  it('prints help listing every command, and help for one command', async () => {
    const all = await runDq(['--help']);
    assert.equal(all.code, 0);
    for (const c of ['tables', 'schema', 'columns', 'query', 'job', 'wait', 'download', 'urls', 'emulator']) {
      assert.match(all.stdout, new RegExp(`^  ${c} `, 'm'));
    }
    const one = await runDq(['query', '--help']);
    assert.equal(one.code, 0);
    assert.match(one.stdout, /--no-download/);
  });
});

describe('dq emulator usage', () => {
  it('will not listen beyond this machine without --allow-remote, and says so', async () => {
    const run = await runDq(['emulator', '--host', '0.0.0.0']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--allow-remote/);
  });

  it('rejects a malformed fault spec, naming the known keys', async () => {
    const run = await runDq(['emulator', '--faults', 'bogus=1']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown key "bogus".*drop/);
  });
});

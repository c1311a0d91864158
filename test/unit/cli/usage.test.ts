import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runDq } from '../../support/cliHarness';

describe('dq usage errors', () => {
  const secret = 'shh-secret-value';
  let server: http.Server;
  let requests = 0;
  let authorizations: string[] = [];
  let env: NodeJS.ProcessEnv;

  before(async () => {
    // A gateway that refuses every request and echoes what it was sent, as some do.
    server = http.createServer((req, res) => {
      requests++;
      const authorization = String(req.headers.authorization ?? '');
      authorizations.push(authorization);
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'Unauthorized', message: `credentials not accepted: ${authorization}` } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    env = { DQ_BASE_URL: `http://127.0.0.1:${port}`, DQ_CLIENT_ID: 'id', DQ_CLIENT_SECRET: secret };
  });
  after(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    requests = 0;
    authorizations = [];
  });

  const refused: Array<[string, string[], RegExp]> = [
    ['an unknown command', ['tabels', 'canvas'], /unknown command "tabels"/],
    ['an unknown option', ['tables', 'canvas', '--fromat', 'csv'], /unknown option --fromat/],
    ['a missing namespace', ['tables'], /not enough arguments/],
    ['an invalid table name', ['schema', 'canvas', '../etc'], /not a valid table name/],
    ['an unknown format', ['query', 'canvas', 'users', '--format', 'xlsx'], /--format must be one of jsonl, csv, tsv, parquet/],
    ['a malformed --since', ['query', 'canvas', 'users', '--since', 'yesterday'], /--since must be a UTC date-time/],
    ['an impossible date', ['query', 'canvas', 'users', '--since', '2026-02-30T00:00:00Z'], /--since is not a real date: "2026-02-30T00:00:00Z"/],
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

  it('asks for a missing secret before sending anything', async () => {
    const run = await runDq(['tables', 'canvas'], { env: { DQ_BASE_URL: env.DQ_BASE_URL, DQ_CLIENT_ID: 'id' } });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /DQ_CLIENT_SECRET/);
    assert.equal(requests, 0);
  });

  it('never shows the secret it signs in with, even when the gateway echoes it back', async () => {
    const encoded = Buffer.from(`id:${secret}`).toString('base64');
    for (const extra of [{}, { DQ_DEBUG: '1' }]) {
      const run = await runDq(['tables', 'canvas'], { env: { ...env, ...extra } });
      assert.equal(run.code, 3, run.stderr);
      assert.ok(authorizations.includes(`Basic ${encoded}`), 'dq signed in with the secret');
      const shown = run.stdout + run.stderr;
      assert.match(shown, /^dq: auth/m);
      assert.ok(!shown.includes(secret), 'the secret is not shown');
      assert.ok(!shown.includes(encoded), 'the encoded credentials are not shown');
    }
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

// URLs a person types into dq with a password in them (--base-url, --to): refused or shown
// without the password, and a mistyped PostgreSQL URL never becomes a DuckDB file. No
// service or database answers here: the refusals come before any connection, and the
// connections that are made fail at once (port 1 of this machine).

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXIT } from '../../../src/cli/exitCodes';
import { runDq, type CliRun } from '../../support/cliHarness';

const MAIN = path.resolve(__dirname, '../../../src/cli/main.js');

function assertAbsent(run: CliRun, secrets: string[]): void {
  for (const secret of secrets) {
    assert.ok(!run.stderr.includes(secret) && !run.stdout.includes(secret), `${secret} printed: ${run.stderr}${run.stdout}`);
  }
}

describe('dq and passwords in the URLs it is given', function () {
  this.timeout(30_000);
  let tmp: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-url-secrets-'));
    env = { DQ_BASE_URL: 'http://127.0.0.1:1', DQ_CLIENT_ID: 'id', DQ_CLIENT_SECRET: 'client-secret-0d9e', HOME: tmp, XDG_DATA_HOME: tmp };
  });
  after(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('refuses --base-url with user info as a usage error that shows the URL as ***@host', async () => {
    for (const [url, shown, secrets] of [
      ['http://user:pw-93ad@127.0.0.1:1', 'http://***@127.0.0.1:1', ['pw-93ad']],
      // an unencoded / in the password: a URL parser reads "2024" as the port
      ['http://user:2024/pw-93ad@127.0.0.1:1', 'http://***@127.0.0.1:1', ['2024', 'pw-93ad']],
      ['https://tok-93ad@api.example.com', 'https://***@api.example.com', ['tok-93ad']],
    ] as const) {
      const run = await runDq(['tables', 'canvas', '--base-url', url], { env, cwd: tmp });
      assert.equal(run.code, EXIT.usage, run.stderr);
      assert.ok(run.stderr.startsWith(`dq: usage: --base-url "${shown}" cannot be used: Do not put credentials in the URL`), run.stderr);
      assertAbsent(run, [...secrets]);
    }
  });

  it('refuses a PostgreSQL URL whose password holds an unencoded /, before any connection, saying to percent-encode it', async () => {
    const url = 'postgresql://etl:2024/Summer!@db.example.org/warehouse';
    const run = await runDq(['sync', 'canvas', 'accounts', '--to', url, '--lock-wait', '0'], { env, cwd: tmp });
    assert.equal(run.code, EXIT.usage, run.stderr);
    assert.match(run.stderr, /^dq: usage: /);
    assert.match(run.stderr, /%2F/);
    assert.match(run.stderr, /PGPASSWORD/);
    assertAbsent(run, ['Summer', '2024']);
  });

  it('takes postgres:/host/db (one slash) for a mistyped URL: a usage error showing the form, and no DuckDB file', async () => {
    for (const typo of ['postgres:/db.example.org/wh', 'POSTGRESQL:/etl:pw-58b0@db.example.org/wh']) {
      const run = await runDq(['sync', 'canvas', 'accounts', '--to', typo, '--lock-wait', '0'], { env, cwd: tmp });
      assert.equal(run.code, EXIT.usage, run.stderr);
      assert.ok(run.stderr.includes('postgresql://user@host:5432/database'), run.stderr);
      assertAbsent(run, ['pw-58b0']);
    }
    const left = (await fs.readdir(tmp)).filter((name) => /postgres/i.test(name));
    assert.deepEqual(left, [], 'no file or folder named after the URL');
  });

  it('names a PostgreSQL server it cannot reach without the password given in the URL', async () => {
    const run = await runDq(['sync', 'canvas', 'accounts', '--to', 'postgresql://etl:pw-4417@127.0.0.1:1/warehouse', '--lock-wait', '0'], { env, cwd: tmp });
    assert.equal(run.code, EXIT.network, run.stderr);
    assert.ok(run.stderr.includes('postgresql://etl@127.0.0.1:1/warehouse'), run.stderr);
    assertAbsent(run, ['pw-4417']);
  });

  it('prints no SECURITY WARNING from the driver for sslmode=require (dq as a process)', async () => {
    const child = spawn(
      process.execPath,
      [MAIN, 'sync', 'canvas', 'accounts', '--to', 'postgresql://etl@127.0.0.1:1/warehouse?sslmode=require', '--lock-wait', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd: tmp, env: { ...env, PATH: process.env.PATH } },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, EXIT.network, stderr);
    assert.match(stderr, /postgresql:\/\/etl@127\.0\.0\.1:1\/warehouse\?sslmode=require/);
    assert.doesNotMatch(stderr, /SECURITY WARNING|Warning:/);
  });
});

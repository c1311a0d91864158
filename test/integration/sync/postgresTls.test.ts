// How the PostgreSQL target protects its connection, seen on the wire. To a server on another
// machine (a stand-in listening on this machine's non-loopback address) a URL without sslmode
// asks for TLS first and, when the server has none, stops with advice before the user name or
// password leaves; sslmode=disable (in the URL or PGSSLMODE) is the opt-in to plain text; a
// certificate that cannot be verified or names another host stops the same way, and
// sslmode=require encrypts without checking it. The real PostgreSQL server the tests start
// (loopback, no TLS) is reached without TLS by default.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../../../src/client/errors';
import { PostgresEndpoint } from '../../../src/sync/postgresConnection';
import { createTarget, parseTargetSpec } from '../../../src/sync/targetSpec';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { runDq } from '../../support/cliHarness';
import { startPostgres, type PostgresServer } from '../../support/postgresServer';
import { dqEnvOf, LogLines } from './syncFixture';
import { nonLoopbackIPv4, selfSignedCertificate, startWireProbe, type WireProbe } from './postgresWireProbe';

const PASSWORD = 'pw-7f3a-never-in-clear';

describe('sync: TLS to PostgreSQL', function () {
  this.timeout(60_000);
  const address = nonLoopbackIPv4();
  let home: string;
  const probes: WireProbe[] = [];

  before(async function () {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-pgtls-'));
  });
  after(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const p of probes.splice(0)) await p.close();
  });

  /** A stand-in server on this machine's non-loopback address; the test is skipped when there is none. */
  async function probe(ctx: Mocha.Context, tls?: { key: string; cert: string }): Promise<WireProbe> {
    if (!address) ctx.skip();
    const p = await startWireProbe({ host: address!, tls });
    probes.push(p);
    return p;
  }

  /** Opens the target a `--to` value names, as dq does; the password comes from PGPASSWORD. */
  async function open(to: string, env: NodeJS.ProcessEnv = {}): Promise<DqError> {
    const spec = parseTargetSpec(to, { cwd: home, env: {} });
    const target = createTarget(spec, { logger: new LogLines(), env: { PGPASSWORD: PASSWORD, HOME: home, ...env } });
    try {
      await target.open();
    } catch (err) {
      assert.ok(err instanceof DqError, `a DqError: ${String(err)}`);
      assert.ok(!err.describe().includes(PASSWORD), err.describe());
      assert.ok(!JSON.stringify(err).includes(PASSWORD));
      return err;
    } finally {
      await target.close();
    }
    return assert.fail('opening should have failed');
  }

  it('with no sslmode, asks a server on another machine for TLS first and stops when it has none, before the user name or password leave', async function () {
    const server = await probe(this);
    const err = await open(`postgresql://etl@${address}:${server.port}/warehouse`);
    assert.equal(server.sslRequests, 1, 'the client asked for TLS');
    assert.deepEqual(server.startups, [], 'no StartupMessage');
    assert.deepEqual(server.passwords, [], 'no password');
    assert.equal(err.kind, 'network');
    assert.match(err.message, new RegExp(`PostgreSQL at postgresql://etl@${address!.replace(/\./g, '\\.')}:${server.port}/warehouse does not offer TLS`));
    assert.match(err.message, /Nothing was sent while connecting: not the user name, not the password\./);
    assert.match(err.hint ?? '', /sslmode=disable/);
    assert.match(err.hint ?? '', /sslmode=require \(or no-verify\)/);
  });

  it('sslmode=disable, in the URL or in PGSSLMODE, is the opt-in to plain text: the StartupMessage and password go unencrypted', async function () {
    const server = await probe(this);
    const inUrl = await open(`postgresql://etl@${address}:${server.port}/warehouse?sslmode=disable`);
    assert.equal(inUrl.kind, 'auth', inUrl.describe());
    const fromEnv = await open(`postgresql://etl@${address}:${server.port}/warehouse`, { PGSSLMODE: 'disable' });
    assert.equal(fromEnv.kind, 'auth', fromEnv.describe());
    assert.equal(server.sslRequests, 0);
    assert.deepEqual(server.startups, [
      { user: 'etl', database: 'warehouse', encrypted: false },
      { user: 'etl', database: 'warehouse', encrypted: false },
    ]);
    assert.deepEqual(server.passwords, [PASSWORD, PASSWORD]);
  });

  it('the URL\'s sslmode wins over PGSSLMODE, and sslmode=prefer never falls back to plain text: it says so', async function () {
    const server = await probe(this);
    const prefer = await open(`postgresql://etl@${address}:${server.port}/warehouse?sslmode=prefer`, { PGSSLMODE: 'disable' });
    const fromEnv = await open(`postgresql://etl@${address}:${server.port}/warehouse`, { PGSSLMODE: 'allow' });
    assert.equal(server.sslRequests, 2);
    assert.deepEqual(server.startups, []);
    assert.match(prefer.message, /the URL says sslmode=prefer, which is read as sslmode=require here: the connection is encrypted or not made/);
    assert.match(fromEnv.message, /PGSSLMODE is allow, which is read as sslmode=require here/);
    for (const err of [prefer, fromEnv]) assert.match(err.hint ?? '', /sslmode=disable/);
  });

  it('dq sync --to a URL without sslmode fails with one message and the advice, no stack, and sends nothing but the TLS request', async function () {
    const server = await probe(this);
    let emu: RunningEmulator | undefined;
    try {
      emu = await startEmulator({ limits: false });
      const env = { ...dqEnvOf(emu), HOME: home, TMPDIR: home, PGPASSWORD: PASSWORD };
      const run = await runDq(['sync', 'canvas', 'users', '--to', `postgresql://etl@${address}:${server.port}/warehouse`], { env, cwd: home });
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /does not offer TLS/);
      assert.match(run.stderr, /sslmode=disable/);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack');
      assert.ok(!`${run.stdout}${run.stderr}`.includes(PASSWORD));
      assert.deepEqual([server.sslRequests, server.startups.length, server.passwords.length], [1, 0, 0]);
    } finally {
      await emu?.close();
    }
  });

  describe('with a server that offers TLS', () => {
    let selfSigned: { key: string; cert: string; certFile: string } | undefined;
    let forOtherName: { key: string; cert: string; certFile: string } | undefined;
    let forThisAddress: { key: string; cert: string; certFile: string } | undefined;

    before(async function () {
      if (!address) this.skip();
      selfSigned = await selfSignedCertificate(home, 'self-signed', [`IP:${address}`]);
      forOtherName = await selfSignedCertificate(home, 'elsewhere', ['DNS:elsewhere.example']);
      forThisAddress = await selfSignedCertificate(home, 'this-address', [`IP:${address}`]);
      if (!selfSigned || !forOtherName || !forThisAddress) this.skip(); // openssl makes the certificates
    });

    it('checks the certificate by default: a self-signed one stops before the StartupMessage, with the advice; sslmode=require encrypts without checking it', async function () {
      const server = await probe(this, selfSigned);
      const err = await open(`postgresql://etl@${address}:${server.port}/warehouse`);
      assert.equal(err.kind, 'network');
      assert.match(err.message, /The TLS certificate of PostgreSQL at .* could not be verified \(self-signed certificate\)\. Nothing was sent/);
      assert.match(err.hint ?? '', /sslrootcert=.*sslmode=require \(or no-verify\).*sslmode=disable/);
      assert.deepEqual(server.startups, []);

      const unchecked = await open(`postgresql://etl@${address}:${server.port}/warehouse?sslmode=require`);
      assert.equal(unchecked.kind, 'auth', unchecked.describe());
      assert.deepEqual(server.startups, [{ user: 'etl', database: 'warehouse', encrypted: true }]);
    });

    it('checks the host name: a certificate for another name stops with the advice; one for this address, trusted through sslrootcert, connects encrypted', async function () {
      const other = await probe(this, forOtherName);
      const err = await open(`postgresql://etl@${address}:${other.port}/warehouse?sslrootcert=${forOtherName!.certFile}`);
      assert.equal(err.kind, 'network');
      assert.match(err.message, /is for another host name/);
      assert.match(err.hint ?? '', /verify-ca.*sslmode=require \(or no-verify\).*sslmode=disable/);
      assert.deepEqual(other.startups, []);

      const right = await probe(this, forThisAddress);
      const ok = await open(`postgresql://etl@${address}:${right.port}/warehouse?sslrootcert=${forThisAddress!.certFile}`);
      assert.equal(ok.kind, 'auth', ok.describe());
      assert.deepEqual(right.startups, [{ user: 'etl', database: 'warehouse', encrypted: true }]);
      assert.deepEqual(right.passwords, [PASSWORD]);
    });
  });

  describe('to this machine', () => {
    let pg: PostgresServer;
    before(async function () {
      this.timeout(120_000);
      pg = await startPostgres();
    });
    after(async () => {
      await pg?.stop();
    });

    it('connects without TLS by default (the test server has none), and with PGSSLMODE=require asks for it and says the server has none', async () => {
      const endpoint = new PostgresEndpoint({ url: pg.url, logger: new LogLines(), env: {} });
      const session = await endpoint.connect('connecting');
      try {
        const { rows } = await session.client.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()');
        assert.deepEqual(rows, [{ ssl: false }]);
      } finally {
        await session.close();
      }
      const err = await open(pg.urlWithoutPassword, { PGPASSWORD: pg.password, PGSSLMODE: 'require' });
      assert.equal(err.kind, 'network');
      assert.match(err.message, /does not offer TLS .* PGSSLMODE is require/);
    });
  });
});

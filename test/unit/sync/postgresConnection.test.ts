// How a PostgreSQL URL becomes the driver's settings: sslmode means what it means to psql
// (libpq), the driver prints no warning about it, and the password is kept apart. Without an
// sslmode (in the URL or PGSSLMODE), a server on another machine gets TLS with its certificate
// and name checked, and this machine none.

import * as assert from 'node:assert/strict';
import type { ConnectionOptions } from 'node:tls';
import { connectionConfig, PostgresEndpoint } from '../../../src/sync/postgresConnection';
import { nullLogger } from '../../../src/core/logger';

const BASE = 'postgresql://etl@db.example.org:5432/warehouse';

function tlsOf(url: string, env: NodeJS.ProcessEnv = {}): ConnectionOptions | boolean | undefined {
  return connectionConfig(url, env).config.ssl;
}

/** TLS on, with the certificate and the host name checked (sslmode=verify-full). */
function verified(tls: ConnectionOptions | boolean | undefined): boolean {
  return typeof tls === 'object' && tls.rejectUnauthorized !== false && tls.checkServerIdentity === undefined;
}

describe('PostgreSQL connection settings', () => {
  const warnings: string[] = [];
  const onWarning = (w: Error): void => {
    warnings.push(w.message);
  };
  before(() => process.on('warning', onWarning));
  after(() => process.off('warning', onWarning));

  it('sslmode=require encrypts without checking the certificate, as libpq does', () => {
    const tls = tlsOf(`${BASE}?sslmode=require`);
    assert.ok(typeof tls === 'object', 'TLS is on');
    assert.equal(tls.rejectUnauthorized, false);
    const prefer = tlsOf(`${BASE}?sslmode=prefer`);
    assert.ok(typeof prefer === 'object' && prefer.rejectUnauthorized === false);
  });

  it('sslmode=verify-full checks the certificate and the host name; verify-ca checks the certificate against sslrootcert', () => {
    const full = tlsOf(`${BASE}?sslmode=verify-full`);
    assert.ok(typeof full === 'object', 'TLS is on');
    assert.notEqual(full.rejectUnauthorized, false);
    assert.equal(full.checkServerIdentity, undefined, 'the host name is checked');
    assert.throws(
      () => connectionConfig(`${BASE}?sslmode=verify-ca`),
      (err: Error & { kind?: string; hint?: string }) => err.kind === 'usage' && /sslrootcert/.test(`${err.message} ${err.hint}`),
    );
  });

  it('sslmode=disable turns TLS off; uselibpqcompat in the URL is read as it says', () => {
    assert.equal(tlsOf(`${BASE}?sslmode=disable`), false);
    const own = tlsOf(`${BASE}?uselibpqcompat=true&sslmode=require`);
    assert.ok(typeof own === 'object' && own.rejectUnauthorized === false);
  });

  it('without sslmode, a server on another machine gets TLS with its certificate and host name checked', () => {
    for (const url of [BASE, 'postgresql://etl@192.0.2.2:55432/warehouse', 'postgresql://etl@[2001:db8::1]/warehouse', 'postgresql://etl@127.0.0.1/warehouse?host=db.example.org']) {
      assert.ok(verified(tlsOf(url)), url);
      assert.deepEqual(connectionConfig(url, {}).tls, { mode: 'verify-full', from: 'default', local: false }, url);
    }
    // a PGSSLMODE in the process, not in the environment given, decides nothing
    const saved = process.env.PGSSLMODE;
    process.env.PGSSLMODE = 'disable';
    try {
      assert.ok(verified(tlsOf(BASE)));
    } finally {
      if (saved === undefined) delete process.env.PGSSLMODE;
      else process.env.PGSSLMODE = saved;
    }
  });

  it('without sslmode, this machine (localhost, 127.0.0.0/8, ::1, a Unix socket) is reached without TLS', () => {
    for (const url of [
      'postgresql://etl@localhost/warehouse',
      'postgresql://etl@127.0.0.1:5432/warehouse',
      'postgresql://etl@127.8.9.10/warehouse',
      'postgresql://etl@[::1]:5432/warehouse',
      'postgresql://etl@%2Fvar%2Frun%2Fpostgresql/warehouse',
      'postgresql://etl@db.example.org/warehouse?host=/var/run/postgresql',
    ]) {
      assert.equal(tlsOf(url), false, url);
      assert.equal(connectionConfig(url, {}).tls.local, true, url);
    }
    assert.ok(verified(tlsOf('postgresql://etl@localhost/warehouse?ssl=true')), 'ssl=true asks for TLS even here');
  });

  it('PGSSLMODE in the environment given decides when the URL has no sslmode; the URL\'s sslmode wins', () => {
    assert.equal(tlsOf(BASE, { PGSSLMODE: 'disable' }), false);
    const required = tlsOf('postgresql://etl@127.0.0.1/warehouse', { PGSSLMODE: 'require' });
    assert.ok(typeof required === 'object' && required.rejectUnauthorized === false);
    assert.ok(verified(tlsOf('postgresql://etl@127.0.0.1/warehouse', { PGSSLMODE: 'verify-full' })));
    assert.ok(verified(tlsOf(`${BASE}?sslmode=verify-full`, { PGSSLMODE: 'disable' })));
    assert.equal(tlsOf(`${BASE}?sslmode=disable`, { PGSSLMODE: 'verify-full' }), false);
    assert.deepEqual(connectionConfig(BASE, { PGSSLMODE: 'disable' }).tls, { mode: 'disable', from: 'PGSSLMODE', local: false });
    assert.throws(
      () => connectionConfig(BASE, { PGSSLMODE: 'verify-ca' }),
      (err: Error & { kind?: string; hint?: string }) => err.kind === 'usage' && /PGSSLMODE/.test(err.message) && /sslrootcert/.test(err.hint ?? ''),
    );
  });

  it('prefer, allow and no-verify encrypt without checking the certificate (never plain text); an unknown sslmode is refused', () => {
    for (const mode of ['prefer', 'allow', 'no-verify']) {
      const tls = tlsOf(`${BASE}?sslmode=${mode}`);
      assert.ok(typeof tls === 'object' && tls.rejectUnauthorized === false, mode);
      const fromEnv = tlsOf(BASE, { PGSSLMODE: mode });
      assert.ok(typeof fromEnv === 'object' && fromEnv.rejectUnauthorized === false, `PGSSLMODE=${mode}`);
    }
    for (const [url, env, where] of [
      [`${BASE}?sslmode=verify`, {}, /sslmode in the PostgreSQL URL is "verify"/],
      [BASE, { PGSSLMODE: 'on' }, /PGSSLMODE in the environment is "on"/],
    ] as const) {
      assert.throws(
        () => connectionConfig(url, env),
        (err: Error & { kind?: string; hint?: string }) => err.kind === 'usage' && where.test(err.message) && /verify-full/.test(err.hint ?? ''),
      );
    }
  });

  it('the driver prints no SECURITY WARNING about sslmode', async () => {
    for (const mode of ['prefer', 'require', 'verify-full', 'disable']) new PostgresEndpoint({ url: `${BASE}?sslmode=${mode}`, logger: nullLogger });
    // process warnings are emitted on the next tick
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      warnings.filter((w) => /SECURITY WARNING|sslmode/i.test(w)),
      [],
    );
  });

  it('keeps the password apart from the settings and out of the label', () => {
    const { config, password } = connectionConfig('postgresql://etl:pw-5e1b@db.example.org/warehouse?sslmode=require');
    assert.equal(password, 'pw-5e1b');
    assert.ok(!JSON.stringify(config).includes('pw-5e1b'));
    const endpoint = new PostgresEndpoint({ url: 'postgresql://etl:pw-5e1b@db.example.org/warehouse', logger: nullLogger });
    assert.equal(endpoint.label, 'postgresql://etl@db.example.org/warehouse');
  });

  it('refuses a URL whose password holds an unencoded /, before any connection, without repeating it', () => {
    assert.throws(
      () => new PostgresEndpoint({ url: 'postgresql://etl:2024/Summer!@db.example.org/warehouse', logger: nullLogger }),
      (err: Error & { kind?: string; hint?: string }) => {
        assert.equal(err.kind, 'usage');
        assert.doesNotMatch(`${err.message} ${err.hint}`, /Summer|2024/);
        assert.match(err.hint ?? '', /%2F/);
        return true;
      },
    );
  });
});

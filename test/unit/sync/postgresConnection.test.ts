// How a PostgreSQL URL becomes the driver's settings: sslmode means what it means to psql
// (libpq), the driver prints no warning about it, and the password is kept apart.

import * as assert from 'node:assert/strict';
import type { ConnectionOptions } from 'node:tls';
import { connectionConfig, PostgresEndpoint } from '../../../src/sync/postgresConnection';
import { nullLogger } from '../../../src/core/logger';

const BASE = 'postgresql://etl@db.example.org:5432/warehouse';

function tlsOf(url: string): ConnectionOptions | boolean | undefined {
  return connectionConfig(url).config.ssl;
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

  it('sslmode=disable turns TLS off; no sslmode leaves it to the driver; uselibpqcompat in the URL is read as it says', () => {
    assert.equal(tlsOf(`${BASE}?sslmode=disable`), false);
    assert.equal(tlsOf(BASE), undefined);
    const own = tlsOf(`${BASE}?uselibpqcompat=true&sslmode=require`);
    assert.ok(typeof own === 'object' && own.rejectUnauthorized === false);
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

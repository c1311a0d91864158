// What `--to` names, and how it is shown: a password never appears in a label or an error.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { postgresUrlLabel } from '../../../src/sync/postgresUrl';
import { defaultDatabasePath, parseTargetSpec } from '../../../src/sync/targetSpec';

const context = { cwd: '/work/here', env: { HOME: '/home/ada' } };

describe('sync target spec', () => {
  it('defaults to sync.duckdb in the XDG data folder, else ~/.local/share', () => {
    if (process.platform === 'win32') return;
    assert.equal(defaultDatabasePath({ XDG_DATA_HOME: '/data' }), '/data/data-query/sync.duckdb');
    assert.equal(defaultDatabasePath({ HOME: '/home/ada' }), '/home/ada/.local/share/data-query/sync.duckdb');
    assert.deepEqual(parseTargetSpec(undefined, context), { kind: 'duckdb', path: '/home/ada/.local/share/data-query/sync.duckdb', label: '/home/ada/.local/share/data-query/sync.duckdb' });
    assert.equal(parseTargetSpec('  ', context).kind, 'duckdb');
  });

  it('takes a file path, relative to the working folder, with or without duckdb:', () => {
    assert.equal(parseTargetSpec('out/sync.duckdb', context).label, path.resolve('/work/here', 'out/sync.duckdb'));
    assert.equal(parseTargetSpec('duckdb:/tmp/a.duckdb', context).label, path.resolve('/tmp/a.duckdb'));
    assert.throws(() => parseTargetSpec('duckdb:', context), /needs a file path/);
  });

  it('takes postgresql:// and postgres:// URLs, labelled without the password', () => {
    const spec = parseTargetSpec('postgresql://ada:s3cret-pw@db.example.org:5433/warehouse?sslmode=require&password=other-pw', context);
    assert.equal(spec.kind, 'postgres');
    assert.equal(spec.label, 'postgresql://ada@db.example.org:5433/warehouse?sslmode=require');
    assert.ok(spec.kind === 'postgres' && spec.hasPassword);
    const plain = parseTargetSpec('postgres://ada@localhost/warehouse', context);
    assert.ok(plain.kind === 'postgres' && !plain.hasPassword);
    assert.equal(plain.label, 'postgres://ada@localhost/warehouse');
  });

  /** The spec's usage error, checked to hold none of `secrets`; returned for more checks. */
  function refusal(text: string, secrets: string[]): Error & { kind?: string; hint?: string; details?: { problem?: string } } {
    let caught: (Error & { kind?: string; hint?: string; details?: { problem?: string } }) | undefined;
    try {
      parseTargetSpec(text, context);
    } catch (err) {
      caught = err as Error;
    }
    assert.ok(caught, `${text} was taken`);
    assert.equal(caught.kind, 'usage');
    for (const secret of secrets) assert.ok(!`${caught.message} ${caught.hint}`.includes(secret), `${secret} repeated: ${caught.message} ${caught.hint}`);
    return caught;
  }

  it('refuses a URL whose password holds an unencoded / (read as port and path), saying to percent-encode or use PGPASSWORD', () => {
    for (const url of [
      'postgresql://etl:2024/Summer!@db.example.org/warehouse',
      'postgres://etl:ab/cd@db.example.org/warehouse',
      'postgresql://etl:pa?ss@db.example.org/warehouse',
      'postgresql://etl:pa#ss@db.example.org/warehouse',
      'postgresql://db.example.org/warehouse?user=etl@corp',
    ]) {
      const err = refusal(url, ['2024', 'Summer', 'ab/cd', 'pa?ss', 'pa#ss', 'etl@corp']);
      assert.equal(err.details?.problem, 'invalidUrl');
      assert.match(err.hint ?? '', /percent-encode/i);
      assert.match(err.hint ?? '', /%2F/);
      assert.match(err.hint ?? '', /%40/);
      assert.match(err.hint ?? '', /PGPASSWORD/);
    }
    // encoded, the same password is fine, and the label leaves it out
    const encoded = parseTargetSpec('postgresql://etl:2024%2FSummer!@db.example.org/warehouse', context);
    assert.ok(encoded.kind === 'postgres' && encoded.hasPassword);
    assert.equal(encoded.label, 'postgresql://etl@db.example.org/warehouse');
  });

  it('takes anything starting postgres: or postgresql: for a URL, and refuses it without // (never a DuckDB file)', () => {
    for (const typo of ['postgres:/db.example.org/wh', 'PostgreSQL:db.example.org/wh', 'postgresql:/etl:s3cret-pw@db/wh', 'postgres:']) {
      const err = refusal(typo, ['s3cret-pw']);
      assert.equal(err.details?.problem, 'invalidUrl');
      assert.match(`${err.message} ${err.hint}`, /postgresql:\/\/user@host:5432\/database/);
    }
    // a DuckDB file of such a name stays possible
    assert.equal(parseTargetSpec('duckdb:postgres:x', context).kind, 'duckdb');
    assert.equal(parseTargetSpec('./postgres:x', context).kind, 'duckdb');
  });

  it('never puts the password in the label or an error, however the URL is written', () => {
    for (const [url, label] of [
      ['postgresql://etl:pw-71c2@db.example.org/warehouse', 'postgresql://etl@db.example.org/warehouse'],
      ['postgresql://etl:p@ss-71c2@db.example.org:6432/warehouse', 'postgresql://etl@db.example.org:6432/warehouse'],
      ['POSTGRES://etl:pw-71c2@db.example.org/warehouse?sslpassword=k-71c2&application_name=x', 'postgres://etl@db.example.org/warehouse?application_name=x'],
      ['postgresql://%E0%A4%A:pw-71c2@db.example.org/warehouse', 'postgresql://%E0%A4%A@db.example.org/warehouse'],
    ]) {
      const spec = parseTargetSpec(url, context);
      assert.ok(spec.kind === 'postgres' && spec.hasPassword, url);
      assert.equal(spec.label, label);
    }
    refusal('postgresql://etl:pw-71c2@/warehouse', ['pw-71c2']);
    // a URL read elsewhere, its password taken for port and path, is labelled with none of it
    assert.equal(postgresUrlLabel(new URL('postgresql://etl:2024/Summer!@db.example.org/warehouse')), 'postgresql://***');
  });

  it('refuses other URL schemes without repeating their credentials', () => {
    for (const url of ['sqlserver://root:s3cret-pw@db/x', 'sqlserver://root:2024/s3cret-pw@db/x']) {
      assert.throws(
        () => parseTargetSpec(url, context),
        (err: Error & { kind?: string; hint?: string }) => {
          assert.equal(err.kind, 'usage');
          assert.doesNotMatch(`${err.message} ${err.hint}`, /s3cret-pw/);
          assert.match(err.hint ?? '', /postgresql:\/\//);
          return true;
        },
      );
    }
  });

  it('takes s3://bucket/prefix for the object-store target, and anything starting s3: for one (never a DuckDB file)', () => {
    assert.deepEqual(parseTargetSpec('s3://dq-lake/warehouse/', context), { kind: 'lake', url: 's3://dq-lake/warehouse', bucket: 'dq-lake', prefix: 'warehouse', label: 's3://dq-lake/warehouse' });
    assert.throws(() => parseTargetSpec('s3:dq-lake', context), /s3:\/\/ \(two slashes\)/);
    assert.throws(
      () => parseTargetSpec('s3://key:s3cret-pw@dq-lake/x', context),
      (err: Error & { kind?: string; hint?: string }) => err.kind === 'usage' && !`${err.message} ${err.hint}`.includes('s3cret-pw'),
    );
    assert.throws(() => parseTargetSpec('gs://bucket/x', context), (err: Error & { hint?: string }) => /s3:\/\/bucket\/prefix/.test(err.hint ?? ''));
  });
});

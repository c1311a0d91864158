// What `--to` names, and how it is shown: a password never appears in a label or an error.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
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

  it('refuses other URL schemes without repeating their credentials', () => {
    assert.throws(
      () => parseTargetSpec('mysql://root:s3cret-pw@db/x', context),
      (err: Error & { kind?: string; hint?: string }) => {
        assert.equal(err.kind, 'usage');
        assert.doesNotMatch(`${err.message} ${err.hint}`, /s3cret-pw/);
        assert.match(err.hint ?? '', /postgresql:\/\//);
        return true;
      },
    );
  });
});

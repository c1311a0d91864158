// The MySQL target's pure parts, as a person meets them: the `--to mysql://` URL read and shown
// without its password, the TLS chosen for a server's place, the password found in ~/.my.cnf as
// MySQL's own tools find it, and records turned into the exact text MySQL stores (64-bit
// integers, microseconds in UTC, LOAD DATA's escapes), with bad values refused by line.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { findMysqlPassword, readOptionFile } from '../../../src/sync/mysqlPassword';
import { isoFromDatetime, RecordReader, RecordRows, tsvField, utcDatetime, type LoadColumn } from '../../../src/sync/mysqlRecords';
import { mysqlNameKey, mysqlNameProblem, tableLockName, textKeyChars } from '../../../src/sync/mysqlSql';
import { chooseMysqlTls, driverTls } from '../../../src/sync/mysqlTls';
import { readMysqlUrl } from '../../../src/sync/mysqlUrl';
import type { TargetColumn, TargetTable } from '../../../src/sync/syncTarget';
import { parseTargetSpec } from '../../../src/sync/targetSpec';

const context = { cwd: '/work', env: {} };
const col = (name: string, p: string[], type: TargetColumn['type'], key = false): TargetColumn => ({ name, path: p, type, key });

function refusal(text: string): Error & { kind?: string; hint?: string } {
  try {
    parseTargetSpec(text, context);
  } catch (err) {
    return err as Error & { kind?: string; hint?: string };
  }
  return assert.fail(`${text} should be refused`);
}

describe('MySQL target: URL, TLS, password and records', () => {
  it('takes mysql:// and mariadb:// URLs, labelled without the password, one database named', () => {
    const spec = parseTargetSpec('mysql://etl:pa%2Fss@db.school.edu:3307/warehouse?ssl-mode=REQUIRED', context);
    assert.deepEqual(spec, { kind: 'mysql', url: 'mysql://etl:pa%2Fss@db.school.edu:3307/warehouse?ssl-mode=REQUIRED', label: 'mysql://etl@db.school.edu:3307/warehouse?ssl-mode=REQUIRED', hasPassword: true });
    const url = readMysqlUrl('MariaDB://etl:pa%2Fss@db.school.edu/warehouse?SSL_CA=/etc/ca.pem');
    assert.deepEqual([url.scheme, url.user, url.password, url.host, url.port, url.database, url.params], ['mariadb', 'etl', 'pa/ss', 'db.school.edu', 3306, 'warehouse', { 'ssl-ca': '/etc/ca.pem' }]);
    assert.equal(parseTargetSpec('mysql://etl@localhost/w?socket=/run/mysqld/mysqld.sock', context).label, 'mysql://etl@localhost/w?socket=/run/mysqld/mysqld.sock');
  });

  it('refuses a MySQL URL it cannot read safely, without a database or user, or with an unknown parameter, never repeating the password', () => {
    for (const [text, said] of [
      ['mysql://etl:2024/s3cret-pw@db/x', /an @ comes after the server name/],
      ['mysql:etl@db/x', /must start with mysql:\/\//],
      ['mysql://etl:s3cret-pw@db', /names no database/],
      ['mysql://db/x', /names no user/],
      ['mysql://etl:s3cret-pw@db/x?sslmode=DISABLED&ssl-modes=x', /the parameter "ssl-modes" this target does not know/],
      ['mysql://etl@db/x?password=s3cret-pw', /has a parameter this target does not know/],
    ] as const) {
      const err = refusal(text);
      assert.equal(err.kind, 'usage', text);
      assert.match(err.message, said);
      assert.ok(!`${err.message} ${err.hint}`.includes('s3cret-pw'), `${err.message} ${err.hint}`);
    }
  });

  it('reaches this machine without TLS, another with the certificate and name checked, unless ssl-mode says otherwise; PREFERRED never falls back to plain text', () => {
    const at = (text: string) => chooseMysqlTls(readMysqlUrl(text));
    assert.deepEqual(at('mysql://u@127.0.0.1/d'), { mode: 'DISABLED', from: 'default', local: true });
    assert.deepEqual(at('mysql://u@localhost/d?socket=/tmp/s'), { mode: 'DISABLED', from: 'default', local: true });
    assert.deepEqual(at('mysql://u@db.school.edu/d'), { mode: 'VERIFY_IDENTITY', from: 'default', local: false });
    assert.deepEqual(at('mysql://u@db.school.edu/d?ssl-mode=disabled'), { mode: 'DISABLED', from: 'url', local: false });
    const url = readMysqlUrl('mysql://u@db.school.edu/d?ssl-mode=preferred');
    assert.deepEqual(driverTls(chooseMysqlTls(url), url), { rejectUnauthorized: false, verifyIdentity: false });
    const identity = readMysqlUrl('mysql://u@db.school.edu/d');
    assert.deepEqual(driverTls(chooseMysqlTls(identity), identity), { rejectUnauthorized: true, verifyIdentity: true });
    assert.throws(() => at('mysql://u@db/d?ssl-mode=sometimes'), /not a mode MySQL knows/);
    const ca = readMysqlUrl('mysql://u@db/d?ssl-mode=VERIFY_CA');
    assert.throws(() => driverTls(chooseMysqlTls(ca), ca), /needs the certificate of the authority/);
  });

  it('reads the password of [client] in an option file as MySQL does: quotes, escapes, comments, the last one given', async () => {
    const text = [
      '# options',
      '[mysql]',
      'password = not-this',
      '[client]',
      'user=etl',
      'password = first',
      ';comment',
      'password = "p#ss w\\"ord\\\\"  # trailing comment',
      '[client-server]',
      'password = nor-this',
    ].join('\n');
    assert.equal(readOptionFile(text, 'client', 'password'), 'p#ss w"ord\\');
    assert.equal(readOptionFile('[client]\npassword=bare # note\n', 'client', 'password'), 'bare');
    assert.equal(readOptionFile('[CLIENT]\nPass_Word=x\n', 'client', 'pass-word'), 'x');
    assert.equal(readOptionFile('[mysqld]\npassword=x\n', 'client', 'password'), undefined);

    const home = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-mycnf-'));
    try {
      assert.deepEqual(await findMysqlPassword({ env: {}, homeDir: home }), { origin: 'none' });
      await fs.writeFile(path.join(home, '.my.cnf'), "[client]\npassword='from file'\n", { mode: 0o600 });
      assert.deepEqual(await findMysqlPassword({ env: {}, homeDir: home }), { password: 'from file', origin: 'optionFile', file: path.join(home, '.my.cnf') });
      assert.deepEqual(await findMysqlPassword({ env: { MYSQL_PWD: 'from env' }, homeDir: home }), { password: 'from env', origin: 'MYSQL_PWD' });
      assert.deepEqual(await findMysqlPassword({ fromUrl: 'from url', env: { MYSQL_PWD: 'from env' }, homeDir: home }), { password: 'from url', origin: 'url' });
    } finally {
      await fs.rm(home, { recursive: true, force: true });
    }
  });

  it('names: 64 characters at most, no trailing space, no emoji; one name key without case or accents; a lock name MySQL takes', () => {
    assert.equal(mysqlNameProblem('x'.repeat(64)), undefined);
    assert.match(mysqlNameProblem('é'.repeat(65)) ?? '', /is 65 characters long/);
    assert.match(mysqlNameProblem('a ') ?? '', /ends with a space/);
    assert.match(mysqlNameProblem('a😀') ?? '', /outside the Basic Multilingual Plane/);
    assert.equal(mysqlNameKey('Café'), mysqlNameKey('cafe'));
    assert.notEqual(mysqlNameKey('ａ'), mysqlNameKey('a'));
    const lock = tableLockName('warehouse', 'canvas', `t${'x'.repeat(200)}`);
    assert.ok(lock.length <= 64, lock);
    assert.equal(tableLockName('warehouse', 'canvas', 'Users'), tableLockName('warehouse', 'canvas', 'users'));
  });

  it('gives text keys the longest VARCHAR the primary key index takes', () => {
    const table = (...keys: TargetColumn['type'][]): TargetTable => ({
      namespace: 'n',
      table: 't',
      schemaVersion: 1,
      schema: {},
      columns: keys.map((type, i) => col(`k${i}`, ['key', `k${i}`], type, true)),
    });
    assert.equal(textKeyChars(table('bigint')), undefined);
    assert.equal(textKeyChars(table('text')), 768);
    assert.equal(textKeyChars(table('text', 'text', 'bigint')), 383);
  });

  it('times: any ISO offset to UTC to the microsecond, impossible dates refused; back to ISO as the meta table gives it', () => {
    assert.equal(utcDatetime('2026-11-20T08:00:00Z'), '2026-11-20 08:00:00.000000');
    assert.equal(utcDatetime('2026-11-20T01:30:00.1234567-06:30'), '2026-11-20 08:00:00.123456');
    assert.equal(utcDatetime('2026-01-01T00:30:00+01:00'), '2025-12-31 23:30:00.000000');
    assert.equal(utcDatetime('2026-02-30T00:00:00Z'), undefined);
    assert.equal(utcDatetime('yesterday'), undefined);
    assert.equal(isoFromDatetime('2026-11-20 08:00:00.000000'), '2026-11-20T08:00:00Z');
    assert.equal(isoFromDatetime('2026-11-20 08:00:00.250000'), '2026-11-20T08:00:00.25Z');
  });

  it('records as LOAD DATA rows: every digit of a 64-bit integer, booleans as 1 and 0, JSON kept, escapes for tab, newline, backslash and NUL', async () => {
    const columns: LoadColumn[] = [
      { column: col('id', ['key', 'id'], 'bigint', true) },
      { column: col('code', ['key', 'code'], 'text', true), keyChars: 5 },
      { column: col('on', ['value', 'on'], 'boolean') },
      { column: col('doc', ['value', 'doc'], 'json') },
      { column: col('note', ['value', 'note'], 'text') },
      { column: col('city', ['value', 'address', 'city'], 'text') },
    ];
    const reader = new RecordReader(columns, { table: 'n.t', file: '/tmp/part-1.jsonl.gz' });
    const lines = [
      '{"key":{"id":9223372036854775807,"code":"ab"},"value":{"on":true,"doc":{"n":12345678901234567890,"s":"x"},"note":"a\\tb\\nc\\\\d\\u0001","address":"[truncated]"}}',
      '',
      '{"key":{"id":-1,"code":"é😀"},"value":{"on":"false","doc":null,"note":5}}',
    ];
    const rows = new RecordRows({ reader });
    const out = (await Readable.from([Buffer.from(lines.join('\n'))]).pipe(rows).toArray()).join('');
    assert.equal(out, ['9223372036854775807\tab\t1\t{"n":12345678901234567890,"s":"x"}\ta\\tb\\nc\\\\d\u0001\t\\N', '-1\té😀\t0\t\\N\t5\t\\N', ''].join('\n'));
    assert.deepEqual([rows.rows, rows.lines], [2, 3]);
    assert.equal(tsvField('\0\r'), '\\0\\r');
    const refused = (text: string): string => {
      try {
        reader.row(text, 7);
      } catch (err) {
        return (err as Error).message;
      }
      return assert.fail(`${text} should be refused`);
    };
    assert.match(refused('{"key":{"id":1.5,"code":"a"}}'), /^Line 7 of part-1\.jsonl\.gz, a result file of n\.t, cannot be loaded: the value of "id" is not an integer\.$/);
    assert.match(refused('{"key":{"id":92233720368547758070,"code":"a"}}'), /not a 64-bit integer/);
    assert.match(refused('{"key":{"id":1,"code":"toolong"}}'), /The key "code" on line 7 .* is longer than 5 characters/);
    assert.match(refused('{"key":{"code":"a"}}'), /no value for the key column "id"/);
    assert.match(refused('{"key":{"id":1,"code":"a"},"value":{"on":"maybe"}}'), /"on" is not true or false/);
    assert.match(refused('{"key":'), /is not valid JSON/);
  });
});

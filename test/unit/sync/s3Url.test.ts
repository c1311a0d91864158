// What an `s3://bucket/prefix` target names: a bucket S3 takes, a prefix without stray slashes,
// and never a credential, a query or a fragment (refused, and never repeated).

import * as assert from 'node:assert/strict';
import { bucketNameProblem, readS3Url } from '../../../src/sync/s3Url';

function refused(text: string, pattern: RegExp, secret?: string): void {
  assert.throws(
    () => readS3Url(text),
    (err: Error & { kind?: string; hint?: string; details?: { problem?: string } }) => {
      assert.equal(err.kind, 'usage', text);
      assert.match(`${err.message} ${err.hint}`, pattern, text);
      if (secret) assert.ok(!`${err.message} ${err.hint}`.includes(secret), `${secret} repeated`);
      return true;
    },
  );
}

describe('s3:// target URL', () => {
  it('reads the bucket and the prefix, without leading or trailing slashes', () => {
    assert.deepEqual(readS3Url('s3://dq-lake/warehouse/canvas'), { bucket: 'dq-lake', prefix: 'warehouse/canvas', url: 's3://dq-lake/warehouse/canvas', label: 's3://dq-lake/warehouse/canvas' });
    assert.deepEqual(readS3Url('  S3://dq-lake//exports/daily/  '), { bucket: 'dq-lake', prefix: 'exports/daily', url: 's3://dq-lake/exports/daily', label: 's3://dq-lake/exports/daily' });
    assert.equal(readS3Url('s3://dq-lake').prefix, '');
    assert.equal(readS3Url('s3://dq-lake/').url, 's3://dq-lake');
    assert.equal(readS3Url('s3://my.bucket-2/year=2026').prefix, 'year=2026');
  });

  it("checks the bucket against S3's naming rules, saying which one it breaks", () => {
    assert.equal(bucketNameProblem('dq-lake'), undefined);
    assert.match(bucketNameProblem('ab') ?? '', /3 to 63/);
    assert.match(bucketNameProblem('DQ-Lake') ?? '', /upper-case/);
    assert.match(bucketNameProblem('dq_lake') ?? '', /lower-case letters, digits, dots and hyphens/);
    assert.match(bucketNameProblem('-dq-lake') ?? '', /begin and end/);
    assert.match(bucketNameProblem('dq..lake') ?? '', /two dots/);
    assert.match(bucketNameProblem('192.168.1.1') ?? '', /IP address/);
    assert.match(bucketNameProblem('xn--lake') ?? '', /keeps for itself/);
    refused('s3://DQ_Lake/x', /bucket name "DQ_Lake"/);
    refused('s3:///prefix', /names no bucket/);
  });

  it('refuses credentials, a port, a query or a fragment, without repeating a secret', () => {
    refused('s3://AKIAEXAMPLE:wJalrXUtnFEMI-secret@dq-lake/x', /cannot carry.*AWS_PROFILE/s, 'wJalrXUtnFEMI-secret');
    refused('s3://dq-lake:9000/x', /credentials or a port/);
    refused('s3://dq-lake/x?X-Amz-Signature=abcdef0123', /query or a fragment/, 'abcdef0123');
    refused('s3://dq-lake/x#frag', /query or a fragment/);
  });

  it('refuses a URL without //, prefixes with characters engines may not read, and . or .. parts', () => {
    refused('s3:dq-lake/x', /s3:\/\/ \(two slashes\)/);
    refused('s3://dq-lake/a b', /characters/);
    refused('s3://dq-lake/a/%2F/b', /characters/);
    refused('s3://dq-lake/a/../b', /"\.\."/);
    refused('s3://dq-lake/a/./b', /part/);
  });
});

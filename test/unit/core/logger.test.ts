import * as assert from 'node:assert/strict';
import { redact, safeUrl, withSafeUrls } from '../../../src/core/logger';

/** Pre-signed links of every style the object hosts use, each with its secrets. */
const LINKS: { style: string; url: string; secrets: string[] }[] = [
  {
    style: 'AWS S3',
    url: 'https://b.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261120%2Fus-east-1&X-Amz-Security-Token=FwoSESSION&X-Amz-Signature=5eed',
    secrets: ['AKIAEXAMPLE', 'FwoSESSION', '5eed'],
  },
  {
    style: 'Google Cloud Storage (V4)',
    url: 'https://storage.googleapis.com/b/o?x-goog-algorithm=GOOG4-RSA-SHA256&x-goog-credential=sa%40proj.iam&x-goog-signature=ab12cd',
    secrets: ['sa%40proj', 'ab12cd'],
  },
  {
    style: 'Google Cloud Storage (V2)',
    url: 'https://storage.googleapis.com/b/o?GoogleAccessId=sa@proj.iam&Expires=1790000000&Signature=V2%2BSIG%3D',
    secrets: ['sa@proj', 'V2%2BSIG'],
  },
  {
    style: 'Azure SAS',
    url: 'https://acct.blob.core.windows.net/c/o?sv=2024-11-04&se=2026-11-20T09%3A00%3A00Z&sr=b&sp=r&sig=AZ%2Bsig%3D',
    secrets: ['AZ%2Bsig'],
  },
  {
    style: 'CloudFront',
    url: 'https://d111.cloudfront.net/o?Policy=eyJTdGF0ZW1lbnQiOltdfQ__&Signature=CF~sig__&Key-Pair-Id=K2JCJMDEHXQW5F',
    secrets: ['eyJTdGF0ZW1lbnQiOltdfQ__', 'CF~sig__', 'K2JCJMDEHXQW5F'],
  },
];

function assertHidden(text: string, secrets: string[]): void {
  for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} shows in: ${text}`);
}

describe('redact', () => {
  for (const { style, url, secrets } of LINKS) {
    it(`masks a ${style} link's signature and credential wherever the parameters stand`, () => {
      assertHidden(redact(`GET ${url} failed`), secrets);
      const [base, query] = url.split('?');
      const reordered = `${base}?${query.split('&').reverse().join('&')}`;
      assertHidden(redact(reordered), secrets);
      assertHidden(redact(url.toUpperCase()), secrets.map((s) => s.toUpperCase()));
      assert.match(redact(url), new RegExp(`^${base.replace(/[.]/g, '\\.')}\\?`), 'the host and path stay readable');
    });

    it(`masks a ${style} link that is URL-encoded, HTML-escaped or JSON-escaped`, () => {
      assertHidden(redact(`next=${encodeURIComponent(url)}`), secrets.map((s) => encodeURIComponent(s)));
      assertHidden(redact(`<a href="${url.replace(/&/g, '&amp;')}">`), secrets);
      assertHidden(redact(JSON.stringify({ url }).replace(/&/g, '\\u0026')), secrets);
    });
  }

  it('leaves parameters that merely end like a secret name alone', () => {
    assert.equal(redact('asked for design=a&consignment=b&user_token_count=3'), 'asked for design=a&consignment=b&user_token_count=3');
  });

  /** Signed links whose parameters no list names: Backblaze B2, Alibaba OSS, Akamai, a made-up one. */
  const UNLISTED: { url: string; secrets: string[] }[] = [
    { url: 'https://f002.backblazeb2.com/file/b/o.gz?Authorization=4_0022b3cB2TOKEN', secrets: ['4_0022b3cB2TOKEN'] },
    { url: 'https://b.oss-cn-hangzhou.aliyuncs.com/o.gz?OSSAccessKeyId=LTAIKEY&Expires=1790000000&x-oss-signature=OSSSIG', secrets: ['LTAIKEY', 'OSSSIG'] },
    { url: 'https://cdn.example.com/o.gz?hdnts=exp~1790000000~acl~*~hmac~AKAMAIHMAC', secrets: ['AKAMAIHMAC'] },
    { url: 'http://127.0.0.1:9/o?k=LOCALKEY#frag-SECRET', secrets: ['LOCALKEY', 'frag-SECRET'] },
  ];

  for (const { url, secrets } of UNLISTED) {
    it(`drops the whole query of ${new URL(url).host}'s links, keeping host and path`, () => {
      const base = url.split('?')[0];
      const text = redact(`link ${url} was not valid; "${url}" <${url}> ${JSON.stringify({ url }).replace(/\//g, '\\/')}`);
      assertHidden(text, secrets);
      assert.ok(text.startsWith(`link ${base}?… was not valid; "${base}?…" <${base}?…>`), text);
    });
  }

  it('masks a user name in an http(s) link too, and leaves text without a query as written', () => {
    assert.equal(redact('GET https://reader@objects.example.com/o?x=1 failed'), 'GET https://***@objects.example.com/o?… failed');
    assert.equal(redact('see https://Objects.Example.com and https://h/a/b.'), 'see https://Objects.Example.com and https://h/a/b.');
  });
});

describe('user info in URLs', () => {
  /** URLs with a password, as typed (the password not always percent-encoded), and what must not show. */
  const WITH_PASSWORD: { url: string; shown: string; secrets: string[] }[] = [
    { url: 'http://user:pw-81f2@127.0.0.1:1', shown: 'http://***@127.0.0.1:1', secrets: ['pw-81f2'] },
    { url: 'postgresql://etl:s3cret-pw@db.example.org:5432/warehouse', shown: 'postgresql://***@db.example.org:5432/warehouse', secrets: ['s3cret-pw'] },
    { url: 'postgresql://etl:2024/Summer!@db.example.org/warehouse', shown: 'postgresql://***@db.example.org/warehouse', secrets: ['2024', 'Summer!'] },
    { url: 'mysql://root:p@ss#w?rd@db/x', shown: 'mysql://***@db/x', secrets: ['p@ss', 'w?rd'] },
    { url: 'ftp://:only-pw@files.example.org/in', shown: 'ftp://***@files.example.org/in', secrets: ['only-pw'] },
  ];

  for (const { url, shown, secrets } of WITH_PASSWORD) {
    it(`redact masks the user and password of ${shown}`, () => {
      const text = redact(`could not reach ${url}: refused; again "${url}" (${url.toUpperCase()})`);
      assertHidden(text, [...secrets, ...secrets.map((s) => s.toUpperCase())]);
      assert.ok(text.includes(`could not reach ${shown}: refused`), text);
      assert.ok(text.includes(`"${shown}"`), text);
    });
  }

  it('withSafeUrls and safeUrl show http(s) URLs as ***@host, and mask the user info of other schemes', () => {
    const text = withSafeUrls('GET https://ada:pw-3c1d@api.example.com/dap/x?sig=abc failed; then postgres://etl:2024/Summer!@db/wh');
    assertHidden(text, ['ada', 'pw-3c1d', 'abc', '2024', 'Summer!']);
    assert.equal(text, 'GET https://***@api.example.com/dap/x?… failed; then postgres://***@db/wh');
    assert.equal(safeUrl('http://user:2024/pw@127.0.0.1:8080/p'), 'http://***@127.0.0.1:8080/p');
    assert.equal(safeUrl('https://api.example.com/dap/x'), 'https://api.example.com/dap/x');
  });

  it('leaves URLs without a password alone: a user name, a port, a path', () => {
    for (const text of ['postgresql://ada@db.example.org:5432/warehouse?sslmode=require', 'http://127.0.0.1:8080/dap/query/canvas', 'see https://h/a and mail a@b.org']) {
      assert.equal(redact(text), text);
    }
  });
});

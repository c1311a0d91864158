// The S3 object store against a real S3-compatible server on loopback (s3rver, through the AWS
// SDK over HTTP), with a fault proxy in front of it where a test needs one: objects read and
// written byte for byte, listings and deletes past S3's 1000 keys a call, a 20 MiB file in
// parts, an upload dropped midway that leaves nothing behind, and what a person is told when
// the bucket is missing, the key unknown, writes refused, or http goes to another machine,
// never with a secret of the credential chain in it.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { DqError } from '../../../src/client/errors';
import type { ObjectStore } from '../../../src/sync/objectStore';
import { openS3Store, type S3StoreOptions } from '../../../src/sync/s3Store';
import { S3FaultProxy, S3TestServer, S3RVER_KEY } from '../../support/s3Server';
import { LogLines } from './syncFixture';

const MiB = 1024 * 1024;

async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

/** Every text a person could see of an error: message, hint, describe(), and its causes. */
function allText(err: unknown): string {
  const parts: string[] = [];
  let at: unknown = err;
  for (let depth = 0; at && depth < 6; depth++) {
    const e = at as DqError & { cause?: unknown };
    parts.push(String(e.message), String(e.hint ?? ''), e instanceof DqError ? e.describe() : '', String(e.stack ?? ''), JSON.stringify(e.details ?? {}));
    at = e.cause;
  }
  return parts.join('\n');
}

async function failure(work: Promise<unknown>): Promise<DqError> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof DqError, `not a DqError: ${String(err)}`);
    return err;
  }
  return assert.fail('it succeeded');
}

describe('S3 object store (s3rver on loopback)', function () {
  this.timeout(120_000);
  let server: S3TestServer;
  let store: ObjectStore;
  let work: string;
  const logs = new LogLines();

  const options = (extra: Partial<S3StoreOptions> = {}): S3StoreOptions => ({ bucket: server.bucket, endpoint: server.url, env: server.env(), logger: logs, ...extra });

  /** The multipart uploads the server still holds open. */
  async function pendingUploads(): Promise<number> {
    const client = new S3Client({ endpoint: server.url, forcePathStyle: true, region: 'us-east-1', credentials: S3RVER_KEY });
    try {
      const answer = await client.send(new ListMultipartUploadsCommand({ Bucket: server.bucket }));
      return (answer.Uploads ?? []).length;
    } finally {
      client.destroy();
    }
  }

  before(async () => {
    server = await S3TestServer.start();
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-s3store-'));
    store = await openS3Store(options({ probePrefix: 'lake' }));
  });

  after(async () => {
    await store?.close();
    await server?.stop();
    await fs.rm(work, { recursive: true, force: true });
  });

  it('names its root s3://bucket and finds that s3rver ignores conditional writes, leaving no probe object', async () => {
    assert.equal(store.root, `s3://${server.bucket}`);
    assert.equal(store.enforcesConditions, false);
    assert.deepEqual(await store.list('lake/'), []);
  });

  it('finds a store that enforces conditional writes, and a write whose condition fails writes nothing and says conflict', async () => {
    const proxy = await S3FaultProxy.start(server.url, { enforceConditions: true });
    const strict = await openS3Store(options({ endpoint: proxy.url, probePrefix: 'cond' }));
    try {
      assert.equal(strict.enforcesConditions, true);
      assert.deepEqual(await strict.list('cond/'), [], 'the probe object is removed');
      const first = await strict.putBytes('cond/_dq/lock', 'run-1', { condition: { ifAbsent: true } });
      assert.ok(first.etag && !first.conflict);
      assert.deepEqual(await strict.putBytes('cond/_dq/lock', 'run-2', { condition: { ifAbsent: true } }), { conflict: true });
      assert.deepEqual(await strict.putBytes('cond/_dq/lock', 'run-2', { condition: { ifEtag: '"0000"' } }), { conflict: true });
      assert.equal((await strict.getBytes('cond/_dq/lock'))?.body.toString(), 'run-1');
      const next = await strict.putBytes('cond/_dq/lock', 'run-3', { condition: { ifEtag: first.etag! } });
      assert.ok(next.etag && !next.conflict);
      assert.equal((await strict.getBytes('cond/_dq/lock'))?.body.toString(), 'run-3');
      await strict.delete(['cond/_dq/lock']);
    } finally {
      await strict.close();
      await proxy.stop();
    }
  });

  it('writes, reads back byte for byte, streams, and lists objects with their sizes', async () => {
    const bytes = crypto.randomBytes(70_000);
    const put = await store.putBytes('t/a/bin', bytes, { contentType: 'application/octet-stream' });
    assert.ok(put.etag);
    const got = await store.getBytes('t/a/bin');
    assert.ok(got && got.body.equals(bytes));
    assert.equal(got.etag, put.etag);
    const chunks: Buffer[] = [];
    for await (const c of await store.getStream('t/a/bin')) chunks.push(c as Buffer);
    assert.ok(Buffer.concat(chunks).equals(bytes));
    await store.putBytes('t/b.txt', 'héllo');
    assert.equal((await store.getBytes('t/b.txt'))?.body.toString(), 'héllo');
    assert.deepEqual((await store.list('t/')).map((o) => [o.key, o.size]), [['t/a/bin', 70_000], ['t/b.txt', 6]]);
    assert.equal(await store.getBytes('t/none'), undefined);
    assert.equal((await failure(store.getStream('t/none'))).kind, 'notFound');
    await store.delete(['t/a/bin', 't/b.txt', 't/never-there']);
    assert.deepEqual(await store.list('t/'), []);
  });

  it('a download whose connection is cut midway fails the stream with a network error, not a short read', async () => {
    await store.putBytes('cut/a.bin', crypto.randomBytes(2 * MiB));
    const proxy = await S3FaultProxy.start(server.url, { cutDownloadsAfter: 256 * 1024 });
    const cutting = await openS3Store(options({ endpoint: proxy.url, enforcesConditions: false }));
    try {
      const stream = await cutting.getStream('cut/a.bin');
      let read = 0;
      const err = await failure((async () => {
        for await (const c of stream) read += (c as Buffer).length;
      })());
      assert.equal(err.kind, 'network', err.describe());
      assert.ok(read < 2 * MiB);
    } finally {
      await cutting.close();
      await proxy.stop();
      await store.delete(['cut/a.bin']);
    }
  });

  it('lists more than 1000 keys across pages, in key order, and deletes them in batches', async () => {
    const keys = Array.from({ length: 1205 }, (_, i) => `many/k${String(i).padStart(5, '0')}`);
    await inParallel(keys, 16, (k) => store.putBytes(k, k));
    const listed = await store.list('many/');
    assert.equal(listed.length, 1205);
    assert.deepEqual(listed.map((o) => o.key), keys);
    // through a proxy that holds DeleteObjects to S3's 1000 keys, as S3 does
    const strict = await S3FaultProxy.start(server.url);
    const deleting = await openS3Store(options({ endpoint: strict.url, enforcesConditions: false }));
    try {
      await deleting.delete(keys);
      // (a call may be sent again when a kept-alive connection was closed meanwhile)
      assert.deepEqual([...new Set(strict.counts.deleteCalls)], [1000, 205]);
    } finally {
      await deleting.close();
      await strict.stop();
    }
    assert.deepEqual(await store.list('many/'), []);
  });

  it('uploads a 20 MiB file in parts, byte for byte, reporting progress, and leaves no multipart upload open', async () => {
    const file = path.join(work, 'big.parquet');
    const bytes = crypto.randomBytes(20 * MiB);
    await fs.writeFile(file, bytes);
    let progress = 0;
    const up = await store.uploadFile('big/data/part-0.parquet', file, { onProgress: (b) => (progress = b) });
    assert.equal(up.size, 20 * MiB);
    assert.equal(progress, 20 * MiB);
    const stored = server.objectFile('big/data/part-0.parquet');
    assert.ok(stored, 'no object stored');
    assert.ok((await fs.readFile(stored)).equals(bytes));
    assert.equal(await pendingUploads(), 0);
    await store.delete(['big/data/part-0.parquet']);
  });

  it('an upload whose connection drops midway through a part leaves no object and no pending multipart upload', async () => {
    const proxy = await S3FaultProxy.start(server.url, { dropUploadPartFrom: 2 });
    const faulty = await openS3Store(options({ endpoint: proxy.url, enforcesConditions: false }));
    try {
      const file = path.join(work, 'dropped.parquet');
      await fs.writeFile(file, crypto.randomBytes(20 * MiB));
      const err = await failure(faulty.uploadFile('drop/data/part-0.parquet', file));
      assert.equal(err.kind, 'network', err.describe());
      assert.match(err.message, /dropped the connection/);
      assert.ok(proxy.counts.droppedParts >= 1);
      assert.deepEqual(await store.list('drop/'), []);
      assert.equal(await pendingUploads(), 0);
    } finally {
      await faulty.close();
      await proxy.stop();
    }
  });

  it('a cancelled upload leaves no object and no pending multipart upload', async () => {
    const proxy = await S3FaultProxy.start(server.url, { trickleBytes: 64, trickleMs: 20 });
    const slow = await openS3Store(options({ endpoint: proxy.url, enforcesConditions: false }));
    try {
      const file = path.join(work, 'cancelled.parquet');
      await fs.writeFile(file, crypto.randomBytes(20 * MiB));
      const stop = new AbortController();
      const going = slow.uploadFile('cancel/data/part-0.parquet', file, { signal: stop.signal, onProgress: () => stop.abort() });
      const err = await failure(going);
      assert.equal(err.kind, 'cancelled', err.describe());
      assert.deepEqual(await store.list('cancel/'), []);
      assert.equal(await pendingUploads(), 0);
    } finally {
      await slow.close();
      await proxy.stop();
    }
  });

  it('a bucket that does not exist: notFound naming the bucket, at open', async () => {
    const err = await failure(openS3Store(options({ bucket: 'no-such-bucket' })));
    assert.equal(err.kind, 'notFound');
    assert.match(err.message, /"no-such-bucket" does not exist/);
  });

  it('an access key the store does not know: auth, saying which chain was read, with no secret anywhere', async () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY';
    const token = 'FwoGZXIvYXdzEXAMPLESESSIONTOKENvalue0123456789';
    const keyId = 'AKIAUNKNOWNKEYID0001';
    const env = server.env({ AWS_ACCESS_KEY_ID: keyId, AWS_SECRET_ACCESS_KEY: secret, AWS_SESSION_TOKEN: token });
    const lines = new LogLines();
    const err = await failure(openS3Store({ ...options({ env }), logger: lines }));
    assert.equal(err.kind, 'auth', err.describe());
    assert.match(err.message, /does not know the access key id/);
    assert.match(err.message, /the environment \(AWS_ACCESS_KEY_ID\)/);
    assert.match(err.hint ?? '', /AWS_ACCESS_KEY_ID/);
    const seen = `${allText(err)}\n${lines.lines.join('\n')}`;
    for (const value of [secret, token, keyId]) assert.ok(!seen.includes(value), `${value} shown`);
    assert.doesNotMatch(seen, /X-Amz-Signature=[0-9a-f]|Signature=[0-9a-f]{16}/i);
  });

  it('no credentials anywhere in the chain: auth naming where it looked and what to set', async () => {
    const env = { HOME: work, AWS_EC2_METADATA_DISABLED: 'true', AWS_REGION: 'us-east-1' };
    const err = await failure(openS3Store(options({ env })));
    assert.equal(err.kind, 'auth');
    assert.match(err.message, /No AWS credentials were found/);
    assert.match(err.message, /the profile "default" of ~\/\.aws\/credentials/);
    assert.match(err.hint ?? '', /AWS_PROFILE/);
  });

  it('credentials from the profile AWS_PROFILE names in the shared credentials file of HOME', async () => {
    const home = path.join(work, 'home');
    await fs.mkdir(path.join(home, '.aws'), { recursive: true });
    await fs.writeFile(path.join(home, '.aws', 'credentials'), `[lake]\naws_access_key_id = ${S3RVER_KEY.accessKeyId}\naws_secret_access_key = ${S3RVER_KEY.secretAccessKey}\n`);
    const env = { HOME: home, AWS_PROFILE: 'lake', AWS_EC2_METADATA_DISABLED: 'true', AWS_REGION: 'us-east-1' };
    const viaProfile = await openS3Store(options({ env, enforcesConditions: false }));
    try {
      await viaProfile.putBytes('profile/x', 'x');
      assert.equal((await store.getBytes('profile/x'))?.body.toString(), 'x');
      await viaProfile.delete(['profile/x']);
    } finally {
      await viaProfile.close();
    }
  });

  it('a bucket that refuses writes: auth at open, naming what the credentials need', async () => {
    const proxy = await S3FaultProxy.start(server.url, { refuseWrites: true });
    try {
      const err = await failure(openS3Store(options({ endpoint: proxy.url, probePrefix: 'lake' })));
      assert.equal(err.kind, 'auth', err.describe());
      assert.match(err.message, /Access was denied while writing s3:\/\/dq-lake\/lake\/_dq\//);
      assert.match(err.hint ?? '', /s3:PutObject/);
    } finally {
      await proxy.stop();
    }
  });

  it('takes the endpoint from AWS_ENDPOINT_URL_S3 (before AWS_ENDPOINT_URL) when none is given', async () => {
    const env = server.env({ AWS_ENDPOINT_URL_S3: server.url, AWS_ENDPOINT_URL: 'http://127.0.0.1:9' });
    const fromEnv = await openS3Store({ bucket: server.bucket, env, logger: logs, enforcesConditions: false });
    try {
      await fromEnv.putBytes('env/x', 'from env');
      assert.equal((await store.getBytes('env/x'))?.body.toString(), 'from env');
      await fromEnv.delete(['env/x']);
    } finally {
      await fromEnv.close();
    }
  });

  it('refuses plain http to another machine unless allowed, and an endpoint carrying credentials', async () => {
    const err = await failure(openS3Store(options({ endpoint: 'http://s3.example.com:9000' })));
    assert.equal(err.kind, 'insecure');
    assert.match(err.hint ?? '', /--allow-insecure-http/);
    const fromEnv = await failure(openS3Store({ bucket: server.bucket, env: server.env({ AWS_ENDPOINT_URL: 'http://10.1.2.3:9000' }), logger: logs }));
    assert.equal(fromEnv.kind, 'insecure');
    const withUser = await failure(openS3Store(options({ endpoint: 'https://key:hunter22@s3.example.com' })));
    assert.equal(withUser.kind, 'usage');
    assert.ok(!allText(withUser).includes('hunter22'));
  });

  it("keeps the SDK's Node version warning off stderr, in a process of its own", () => {
    const script = `
      const { openS3Store } = require(${JSON.stringify(path.resolve(__dirname, '../../../src/sync/s3Store.js'))});
      const logger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
      openS3Store({ bucket: ${JSON.stringify(server.bucket)}, endpoint: ${JSON.stringify(server.url)}, env: ${JSON.stringify(server.env())}, logger })
        .then(async (s) => { await s.putBytes('warn/x', 'x'); await s.delete(['warn/x']); await s.close(); console.log('done'); });`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 });
    assert.equal(run.stdout.trim(), 'done', run.stderr);
    assert.equal(run.stderr, '');
  });

  it('a store that cannot be reached: network, within bounded time', async () => {
    const started = Date.now();
    const err = await failure(openS3Store(options({ endpoint: 'http://127.0.0.1:9' })));
    assert.equal(err.kind, 'network', err.describe());
    assert.ok(Date.now() - started < 30_000);
  });
});

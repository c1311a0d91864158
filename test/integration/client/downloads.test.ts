import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isDqError } from '../../../src/client/errors';
import type { DownloadProgress } from '../../../src/client/types';
import { completeJob as job, listDir as listFolder, noise, sha256 as sha, startDownloadBench, type DownloadBench } from '../../support/downloadBench';
import type { LoopbackService } from '../../support/loopbackServer';

function jsonl(rows: number, tag: string): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) lines.push(JSON.stringify({ meta: { action: 'U', ts: '2026-11-20T08:00:00Z' }, key: { id: i }, value: { name: `${tag}-${i}`, pad: 'x'.repeat(i % 50) } }));
  return Buffer.from(`${lines.join('\n')}\n`);
}

describe('downloads over loopback HTTP', function () {
  this.timeout(20_000);
  let bench: DownloadBench;
  let service: LoopbackService;
  let client: DataQueryClient;
  let dir: string;

  beforeEach(async () => {
    bench = await startDownloadBench({ retryBaseMs: 5, retryMaxMs: 20 });
    ({ service, client, dir } = bench);
  });

  afterEach(() => bench.close());

  const listDir = (): Promise<string[]> => listFolder(dir);

  it('downloads every object with a fresh link each, no credentials to the object host, hashes and progress', async () => {
    const originals = [0, 1, 2].map((i) => gzipSync(jsonl(300 + i * 100, `o${i}`)));
    originals.forEach((data, i) => service.objects.set(`obj-${i}`, data));
    const events: DownloadProgress[] = [];
    const files = await client.downloadJob(job('obj-0', 'obj-1', 'obj-2'), { dir, format: 'jsonl', concurrency: 2, sha256: true, onProgress: (p) => events.push(p) });
    assert.equal(files.length, 3);
    for (let i = 0; i < 3; i++) {
      const f = files[i];
      assert.equal(f.objectId, `obj-${i}`);
      assert.equal(path.dirname(f.path), path.resolve(dir));
      assert.match(path.basename(f.path), new RegExp(`^part-0000${i}-[0-9a-f]{10}\\.jsonl\\.gz$`));
      const onDisk = await fs.readFile(f.path);
      assert.deepEqual(onDisk, originals[i]);
      assert.equal(f.sha256, sha(originals[i]));
      assert.equal(f.bytes, originals[i].length);
      assert.equal(f.gzip, true);
    }
    assert.deepEqual([...service.linkRequests].sort(), [['obj-0'], ['obj-1'], ['obj-2']], 'one fresh link per object, each asked for on its own');
    for (const r of service.objectRequests) {
      assert.equal(r.authorization, undefined, 'no Authorization to the object host');
      assert.equal(r.cookie, undefined);
    }
    assert.ok(service.gatewayAuth.some((a) => a.includes(service.token)), 'the gateway did get the token');
    const last = events[events.length - 1];
    assert.equal(last.doneObjects, 3);
    assert.equal(last.totalObjects, 3);
    assert.equal(last.allBytes, originals.reduce((n, b) => n + b.length, 0));
    assert.equal((await listDir()).filter((n) => n.endsWith('.part')).length, 0);
  });

  it('resumes with Range after the connection drops mid-body', async () => {
    const data = gzipSync(noise(200_000, 7), { level: 0 });
    service.objects.set('big', data);
    service.faults.set('big', { dropAt: [50_000, 120_000] });
    const [file] = await client.downloadJob(job('big'), { dir, format: 'csv' });
    assert.deepEqual(await fs.readFile(file.path), data);
    const ranges = service.requestsFor('big').map((r) => r.range);
    assert.equal(ranges[0], undefined);
    assert.match(ranges[1] ?? '', /^bytes=\d+-$/);
    assert.ok(Number(/\d+/.exec(ranges[1] ?? '')?.[0]) > 0);
    assert.equal(ranges.length, 3);
    assert.match(path.basename(file.path), /\.csv\.gz$/);
  });

  it('starts over when the object host ignores Range and answers 200', async () => {
    const data = noise(150_000, 3);
    service.objects.set('p', data);
    service.faults.set('p', { dropAt: [60_000], ignoreRange: true });
    const [file] = await client.downloadJob(job('p'), { dir, format: 'parquet', sha256: true });
    assert.deepEqual(await fs.readFile(file.path), data);
    assert.equal(file.sha256, sha(data));
    assert.match(path.basename(file.path), /\.parquet$/);
  });

  it('asks for a fresh link after a 403 from the object host and carries on', async () => {
    const data = gzipSync(jsonl(500, 'x'));
    service.objects.set('o', data);
    service.faults.set('o', { forbid: 1 });
    const [file] = await client.downloadJob(job('o'), { dir, format: 'tsv' });
    assert.deepEqual(await fs.readFile(file.path), data);
    assert.equal(service.linkRequests.length, 2);
    const sigs = service.requestsFor('o').map((r) => r.sig);
    assert.notEqual(sigs[0], sigs[1]);
    assert.match(path.basename(file.path), /\.tsv\.gz$/);
  });

  it('detects gzip by magic bytes, not by name', async () => {
    const plain = Buffer.from('PAR1 not really parquet but not gzip either PAR1');
    const zipped = gzipSync(Buffer.from('PAR1 pretend parquet PAR1'));
    service.objects.set('looks-like.gz', plain);
    service.objects.set('no-extension', zipped);
    const files = await client.downloadJob(job('looks-like.gz', 'no-extension'), { dir, format: 'parquet' });
    assert.equal(files[0].gzip, false);
    assert.match(path.basename(files[0].path), /\.parquet$/);
    assert.equal(files[1].gzip, true);
    assert.match(path.basename(files[1].path), /\.parquet\.gz$/);
  });

  it('decompresses while writing, even across a resumed connection', async () => {
    const original = Buffer.concat([jsonl(2000, 'a'), Buffer.from(noise(100_000, 11).toString('base64'))]);
    const data = gzipSync(original);
    service.objects.set('z', data);
    service.faults.set('z', { dropAt: [Math.floor(data.length / 2)] });
    const [file] = await client.downloadJob(job('z'), { dir, format: 'jsonl', decompress: true, sha256: true });
    assert.match(path.basename(file.path), /^part-00000-[0-9a-f]{10}\.jsonl$/);
    const onDisk = await fs.readFile(file.path);
    assert.deepEqual(onDisk, original);
    assert.equal(file.gzip, false);
    assert.equal(file.sha256, sha(original));
    assert.equal(file.bytes, original.length);
    assert.equal(service.requestsFor('z').length, 2);
  });

  it('a size that changes between requests is an error and leaves no file', async () => {
    const data = noise(100_000, 5);
    service.objects.set('m', data);
    service.faults.set('m', { dropAt: [40_000], rangeTotal: 123_456 });
    const err = await client.downloadJob(job('m'), { dir, format: 'csv' }).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'invalidResponse');
    assert.match(err.message, /size/);
    assert.deepEqual(await listDir(), []);
  });

  it('keeps odd object ids inside the folder', async () => {
    service.objects.set('../../etc/passwd', gzipSync(Buffer.from('a')));
    service.objects.set('a/b\\c', gzipSync(Buffer.from('b')));
    service.objects.set('CON', gzipSync(Buffer.from('c')));
    const inner = path.join(dir, 'inner');
    const files = await client.downloadJob(job('../../etc/passwd', 'a/b\\c', 'CON'), { dir: inner, format: 'jsonl' });
    for (const f of files) assert.equal(path.dirname(f.path), path.resolve(inner));
    assert.equal(new Set(files.map((f) => f.path)).size, 3);
    assert.deepEqual(await listDir(), ['inner'], 'nothing written beside or above the folder');
  });

  it('cancelling removes every temporary and finished file', async () => {
    service.objects.set('quick', gzipSync(Buffer.from('done')));
    service.objects.set('slow', noise(100_000, 1));
    service.faults.set('slow', { stallAt: 30_000 });
    const controller = new AbortController();
    const download = client.downloadJob(job('quick', 'slow'), {
      dir,
      format: 'csv',
      concurrency: 2,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.objectId === 'slow' && p.bytes >= 30_000) controller.abort();
      },
    });
    await assert.rejects(download, (e: unknown) => isDqError(e) && e.kind === 'cancelled');
    assert.deepEqual(await listDir(), []);
  });

  it('when one object fails, none of the job stays under a final name', async () => {
    service.objects.set('good', gzipSync(Buffer.from('fine')));
    service.objects.set('bad', gzipSync(Buffer.from('never')));
    service.faults.set('bad', { failStatus: 500 });
    const err = await client.downloadJob(job('good', 'bad'), { dir, format: 'jsonl', concurrency: 1 }).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'server');
    assert.equal(err.status, 500);
    assert.deepEqual(await listDir(), []);
  });

  it('a failed download leaves files from an earlier download of the same job as they were', async () => {
    service.objects.set('good', gzipSync(Buffer.from('fine')));
    const first = await client.downloadJob(job('good'), { dir, format: 'jsonl' });
    const before = await fs.readFile(first[0].path);
    service.objects.set('bad', gzipSync(Buffer.from('never')));
    service.faults.set('bad', { failStatus: 500 });
    const err = await client.downloadJob(job('good', 'bad'), { dir, format: 'jsonl', concurrency: 1 }).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.deepEqual(await listDir(), [path.basename(first[0].path)], 'the earlier file stays; no temporary file is left');
    assert.deepEqual(await fs.readFile(first[0].path), before);
  });

  it('names files by their content when the format is not given', async () => {
    service.objects.set('c1', gzipSync(Buffer.from('key.id,value.name\n1,a\n')));
    service.objects.set('t1', Buffer.from('key.id\tvalue.name\n1\ta\n'));
    const files = await client.downloadJob(job('c1', 't1'), { dir });
    assert.match(path.basename(files[0].path), /\.csv\.gz$/);
    assert.match(path.basename(files[1].path), /\.tsv$/);
  });

  it('an expired job (links answer 404) is reported as jobExpired', async () => {
    const err = await client.downloadJob(job('deleted'), { dir, format: 'jsonl' }).catch((e: unknown) => e);
    assert.ok(isDqError(err));
    assert.equal(err.kind, 'jobExpired');
    assert.equal(err.uuid, 'u-obj');
    assert.deepEqual(await listDir(), []);
  });

  it('a link whose host redirects fails at once, follows nowhere, and says to tell the provider', async () => {
    const seen: string[] = [];
    const listen = async (server: http.Server): Promise<string> => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const elsewhere = http.createServer((req, res) => {
      seen.push(`elsewhere ${req.url}`);
      res.end('x');
    });
    const redirecting = http.createServer((req, res) => {
      seen.push(`object host ${req.url?.split('?')[0]}`);
      res.writeHead(302, { location: `${target}/copy/o?X-Amz-Signature=REDIRECT-SIG` });
      res.end();
    });
    const target = await listen(elsewhere);
    try {
      service.objects.set('o', gzipSync(Buffer.from('x')));
      service.linkBase = await listen(redirecting);
      const err = await client.downloadJob(job('o'), { dir, format: 'jsonl' }).catch((e: unknown) => e);
      assert.ok(isDqError(err), String(err));
      assert.equal(err.kind, 'server');
      assert.equal(err.status, 302);
      assert.equal(err.message, `The host of the download link for object 1/1 redirected it to ${new URL(target).host} (HTTP 302), which this client does not follow`);
      assert.match(err.hint ?? '', /Trying again will not help: tell the data provider/);
      assert.doesNotMatch(err.describe(), /Try the download again|REDIRECT-SIG/);
      assert.deepEqual(seen, ['object host /bucket/o'], 'one request, not retried, and nothing sent to the other host');
      assert.deepEqual(service.linkRequests, [['o']], 'no fresh link asked for either');
      assert.deepEqual(await listDir(), []);
    } finally {
      for (const server of [redirecting, elsewhere]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }
  });

  it('talks plain http to loopback, but refuses plain http links and base URLs elsewhere', async () => {
    assert.deepEqual(await client.listTables('canvas'), ['accounts', 'courses']);
    service.objects.set('o', gzipSync(Buffer.from('x')));
    service.linkBase = 'http://objects.example.invalid';
    const refused = await client.downloadJob(job('o'), { dir, format: 'jsonl' }).catch((e: unknown) => e);
    assert.ok(isDqError(refused) && refused.kind === 'insecure', String(refused));
    assert.equal(service.objectRequests.length, 0);
    assert.deepEqual(await listDir(), []);
    const insecure = new DataQueryClient({ baseUrl: 'http://data.example.invalid', credentials: async () => ({ clientId: 'a', clientSecret: 'b' }) });
    const err = await insecure.listTables('canvas').catch((e: unknown) => e);
    await insecure.close();
    assert.ok(isDqError(err) && err.kind === 'insecure');
  });
});

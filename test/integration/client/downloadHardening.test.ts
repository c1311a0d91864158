// Downloads that cannot corrupt: concurrent runs into one folder, budgets counted from the
// highest byte reached, refused links, local disk failures and all-or-nothing renames.

import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, unlinkSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DataQueryClient } from '../../../src/client/dataQueryClient';
import type { DqError } from '../../../src/client/errors';
import { MAX_REFUSALS_IN_A_ROW } from '../../../src/client/retryPolicy';
import type { DownloadProgress } from '../../../src/client/types';
import { completeJob as job, listDir as listFolder, noise, sha256 as sha, startDownloadBench, type DownloadBench } from '../../support/downloadBench';
import { FakeClock } from '../../support/fakeClock';
import { patchFileHandle } from '../../support/fileHandlePatch';
import type { LoopbackService } from '../../support/loopbackServer';
import { dqRejection } from '../../support/dqRejection';
import { tmpfsForSuite } from '../../support/tmpfsMount';

const failure = (p: Promise<unknown>): Promise<DqError> => dqRejection(p, 'the download to fail');

describe('download hardening', function () {
  this.timeout(30_000);
  const maxRetries = 4;
  let bench: DownloadBench;
  let service: LoopbackService;
  let clock: FakeClock;
  let client: DataQueryClient;
  let dir: string;

  beforeEach(async () => {
    clock = new FakeClock(Date.now());
    bench = await startDownloadBench({ clock, maxRetries });
    ({ service, client, dir } = bench);
  });

  afterEach(() => bench.close());

  const listDir = (folder = dir): Promise<string[]> => listFolder(folder);

  describe('two downloads of one job into one folder', () => {
    it('both finish with correct files, each sha256 matching its file, whether decompressed or not', async () => {
      const originals = [0, 1, 2].map((i) => noise(400_000, i + 1).toString('base64'));
      originals.forEach((text, i) => service.objects.set(`o${i}`, gzipSync(text)));
      const j = job('o0', 'o1', 'o2');
      const [kept, unzipped, again] = await clock.run(
        Promise.all([
          client.downloadJob(j, { dir, format: 'jsonl', concurrency: 3, sha256: true }),
          client.downloadJob(j, { dir, format: 'jsonl', concurrency: 3, decompress: true, sha256: true }),
          client.downloadJob(j, { dir, format: 'jsonl', concurrency: 3, sha256: true }),
        ]),
      );
      for (const files of [kept, unzipped, again]) {
        for (const [i, f] of files.entries()) {
          const onDisk = await fs.readFile(f.path);
          assert.equal(sha(onDisk), f.sha256, `${path.basename(f.path)}: the reported sha256 is the file's`);
          assert.equal(onDisk.length, f.bytes);
          assert.equal((f.gzip ? gunzipSync(onDisk) : onDisk).toString(), originals[i]);
        }
      }
      assert.deepEqual(kept, again, 'the same files, reported alike');
      assert.equal((await listDir()).length, 6, `only the final files remain: ${(await listDir()).join(', ')}`);
    });
  });

  describe('attempts counted from the highest byte reached', () => {
    it('gives up on a host that ignores Range and drops at the same byte every time', async () => {
      service.objects.set('p', noise(150_000, 3));
      service.faults.set('p', { dropAt: new Array(100).fill(60_000), ignoreRange: true });
      const err = await failure(clock.run(client.downloadJob(job('p'), { dir, format: 'parquet' })));
      assert.equal(err.kind, 'network');
      // the first request reaches byte 60 000; the maxRetries after it add nothing
      assert.equal(service.requestsFor('p').length, 1 + maxRetries);
      assert.deepEqual(await listDir(), []);
    });

    it('keeps going past maxRetries while each attempt adds bytes', async () => {
      const data = noise(300_000, 4);
      service.objects.set('p', data);
      service.faults.set('p', { dropAt: [40_000, 80_000, 120_000, 160_000, 200_000, 240_000], ignoreRange: true });
      const [file] = await clock.run(client.downloadJob(job('p'), { dir, format: 'parquet' }));
      assert.deepEqual(await fs.readFile(file.path), data);
      assert.equal(service.requestsFor('p').length, 7, `six drops, more than maxRetries (${maxRetries}), each after new bytes`);
    });
  });

  describe('refused links', () => {
    it(`asks for fresh links as long as refusals stay under ${MAX_REFUSALS_IN_A_ROW} in a row`, async () => {
      const data = gzipSync(noise(50_000, 5));
      service.objects.set('o', data);
      service.faults.set('o', { forbid: MAX_REFUSALS_IN_A_ROW - 1 });
      const [file] = await clock.run(client.downloadJob(job('o'), { dir, format: 'csv' }));
      assert.deepEqual(await fs.readFile(file.path), data);
      assert.equal(service.linkRequests.length, MAX_REFUSALS_IN_A_ROW);
    });

    it('refusals between new bytes do not add up', async () => {
      const data = noise(200_000, 6);
      service.objects.set('o', data);
      const faults = { dropAt: [50_000, 100_000, 150_000], forbid: 0 };
      service.faults.set('o', faults);
      const thresholds = [25_000, 75_000, 125_000];
      const onProgress = (p: DownloadProgress): void => {
        if (thresholds.length > 0 && p.bytes >= thresholds[0]) {
          thresholds.shift();
          faults.forbid = 3; // the next three requests are refused, after this one drops
        }
      };
      const [file] = await clock.run(client.downloadJob(job('o'), { dir, format: 'parquet', onProgress }));
      assert.deepEqual(await fs.readFile(file.path), data);
      assert.equal(service.linkRequests.length, 1 + 9, '9 refusals in all, never more than 3 in a row');
    });

    it(`gives up after ${MAX_REFUSALS_IN_A_ROW} refusals in a row that add nothing`, async () => {
      service.objects.set('o', gzipSync(Buffer.from('never')));
      service.faults.set('o', { forbid: 1_000 });
      const err = await failure(clock.run(client.downloadJob(job('o'), { dir, format: 'csv' })));
      assert.equal(err.kind, 'server');
      assert.equal(err.status, 403);
      assert.match(err.message, new RegExp(`${MAX_REFUSALS_IN_A_ROW} times in a row`));
      assert.equal(service.requestsFor('o').length, MAX_REFUSALS_IN_A_ROW);
      assert.deepEqual(await listDir(), []);
    });
  });

  describe('final names', () => {
    const staged = (name: RegExp): string[] => readdirSync(dir).filter((n) => n.startsWith('.') && name.test(n));

    it('a rename failing half-way puts the earlier files back and leaves nothing else', async () => {
      const j = job('a', 'b', 'c');
      ['a', 'b', 'c'].forEach((id, i) => service.objects.set(id, gzipSync(`earlier ${i}`)));
      const earlier = await clock.run(client.downloadJob(j, { dir, format: 'jsonl' }));
      const before = await Promise.all(earlier.map((f) => fs.readFile(f.path)));
      ['a', 'b', 'c'].forEach((id, i) => service.objects.set(id, gzipSync(`later ${i}`)));
      const onProgress = (p: DownloadProgress): void => {
        // once every object is staged, something removes the third one's staging file
        if (p.doneObjects === 3) for (const name of staged(/^\.part-00002-.*\.part$/)) unlinkSync(path.join(dir, name));
      };
      const err = await failure(clock.run(client.downloadJob(j, { dir, format: 'jsonl', onProgress })));
      assert.equal(err.kind, 'io');
      assert.ok(err.message.includes(path.resolve(dir)), err.message);
      assert.deepEqual(await listDir(), earlier.map((f) => path.basename(f.path)).sort(), 'no staging or backup file left');
      for (const [i, f] of earlier.entries()) assert.deepEqual(await fs.readFile(f.path), before[i], `${path.basename(f.path)} is the earlier file`);
    });

    it('replaces earlier files that differ once the whole job is in place, and leaves no backup', async () => {
      service.objects.set('a', gzipSync('earlier'));
      const [first] = await clock.run(client.downloadJob(job('a'), { dir, format: 'jsonl' }));
      service.objects.set('a', gzipSync('later'));
      const [second] = await clock.run(client.downloadJob(job('a'), { dir, format: 'jsonl' }));
      assert.equal(second.path, first.path);
      assert.equal(gunzipSync(await fs.readFile(second.path)).toString(), 'later');
      assert.deepEqual(await listDir(), [path.basename(first.path)]);
    });

    it('replaces an earlier file of the same size whose bytes differ, with no hash asked for', async () => {
      service.objects.set('a', Buffer.from('earlier bytes 1'));
      const [first] = await clock.run(client.downloadJob(job('a'), { dir, format: 'jsonl' }));
      assert.equal(first.sha256, undefined, 'no hash unless asked for');
      service.objects.set('a', Buffer.from('earlier bytes 2'));
      const [second] = await clock.run(client.downloadJob(job('a'), { dir, format: 'jsonl' }));
      assert.equal(second.path, first.path);
      assert.equal((await fs.readFile(second.path)).toString(), 'earlier bytes 2');
      assert.deepEqual(await listDir(), [path.basename(first.path)]);
    });

    for (const concurrency of [Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY]) {
      it(`refuses concurrency ${concurrency} as a usage error before any request`, async () => {
        service.objects.set('a', gzipSync('x'));
        const inner = path.join(dir, 'inner');
        const err = await failure(client.downloadJob(job('a'), { dir: inner, concurrency }));
        assert.equal(err.kind, 'usage');
        assert.match(err.message, /concurrency/);
        assert.equal(service.linkRequests.length, 0);
        assert.deepEqual(await listDir(), []);
      });
    }
  });

  describe('local disk failures', () => {
    const fullDisk = tmpfsForSuite(() => mkdtempSync(path.join(os.tmpdir(), 'dq-full-')), { sizeKiB: 64 });

    it('a full disk is an io error naming the folder, not retried, leaving nothing', async () => {
      service.objects.set('big', noise(400_000, 9));
      const target = path.join(fullDisk(), 'results');
      const err = await failure(clock.run(client.downloadJob(job('big'), { dir: target, format: 'parquet' })));
      assert.equal(err.kind, 'io');
      assert.match(err.message, /disk is full \(ENOSPC\)/);
      assert.ok(err.message.includes(target), err.message);
      assert.doesNotMatch(err.describe(), /proxy|network/i);
      assert.equal(service.requestsFor('big').length, 1, 'a local failure is not retried');
      assert.deepEqual(await listDir(fullDisk()), [], 'no partial file, no folder made for it');
    });

    /** Makes FileHandle.sync fail with `code`, as a disk or a file system may; returns the undo. */
    function syncFails(code: string): Promise<() => void> {
      return patchFileHandle(dir, 'sync', () => () =>
        Promise.reject(Object.assign(new Error(`${code}: fsync failed`), { code, syscall: 'fsync' })));
    }

    it('a file the disk fails to sync is an io error, leaving nothing under a final name', async () => {
      service.objects.set('a', noise(300_000, 3));
      service.objects.set('b', noise(200_000, 4));
      const target = path.join(dir, 'synced');
      const restore = await syncFails('EIO');
      try {
        const err = await failure(clock.run(client.downloadJob(job('a', 'b'), { dir: target, format: 'parquet' })));
        assert.equal(err.kind, 'io');
        assert.match(err.message, /input\/output error \(EIO\)/);
        assert.ok(err.message.includes(target), err.message);
      } finally {
        restore();
      }
      assert.deepEqual(await listDir(dir), [], 'no file, no folder made for it');
    });

    it('a file system that cannot sync at all still gets the download', async () => {
      const data = noise(300_000, 5);
      service.objects.set('a', data);
      const restore = await syncFails('EINVAL');
      try {
        const [file] = await clock.run(client.downloadJob(job('a'), { dir, format: 'parquet' }));
        assert.ok((await fs.readFile(file.path)).equals(data));
      } finally {
        restore();
      }
    });
  });
});

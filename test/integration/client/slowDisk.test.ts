// Downloads onto a disk slower than the network: the client keeps a few write batches per
// object and fills them again, so a batch must never be refilled while its write is under
// way. Objects of many batches arrive byte-identical, raw and decompressed.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import type { DataQueryClient } from '../../../src/client/dataQueryClient';
import { completeJob as job, noise, sha256 as sha, startDownloadBench, type DownloadBench } from '../../support/downloadBench';
import { patchFileHandle } from '../../support/fileHandlePatch';
import type { LoopbackService } from '../../support/loopbackServer';

type Writev = FileHandle['writev'];

/** Makes every FileHandle.writev start late, as on a busy disk; returns the undo. */
function slowDisk(dir: string, delayMs: number): Promise<() => void> {
  return patchFileHandle(dir, 'writev', (writev) =>
    async function (this: FileHandle, ...args: Parameters<Writev>) {
      await sleep(delayMs);
      return writev.apply(this, args);
    } as Writev);
}

describe('downloads onto a disk slower than the network', function () {
  this.timeout(60_000);
  let bench: DownloadBench;
  let service: LoopbackService;
  let client: DataQueryClient;
  let dir: string;
  let restore: (() => void) | undefined;

  beforeEach(async () => {
    bench = await startDownloadBench({});
    ({ service, client, dir } = bench);
    restore = await slowDisk(dir, 15);
  });

  afterEach(async () => {
    restore?.();
    await bench.close();
  });

  it('writes objects of many batches byte-identical, each sha256 that of its file', async () => {
    const originals = [0, 1, 2].map((i) => noise(3 * 1024 * 1024 + 12_345 * i, 11 + i));
    originals.forEach((data, i) => service.objects.set(`o${i}`, data));
    const files = await client.downloadJob(job('o0', 'o1', 'o2'), { dir, format: 'csv', concurrency: 2, sha256: true });
    for (const [i, f] of files.entries()) {
      const onDisk = await fs.readFile(f.path);
      assert.equal(onDisk.length, originals[i].length);
      assert.ok(onDisk.equals(originals[i]), `object ${i} arrived as it was sent`);
      assert.equal(f.sha256, sha(onDisk));
    }
  });

  it('decompresses objects of many batches byte-identical', async () => {
    const text = Buffer.from(noise(2 * 1024 * 1024, 5).toString('base64'));
    service.objects.set('z', gzipSync(text));
    const [file] = await client.downloadJob(job('z'), { dir, format: 'jsonl', decompress: true, sha256: true });
    const onDisk = await fs.readFile(file.path);
    assert.ok(onDisk.equals(text), 'the decompressed file is the original text');
    assert.equal(file.sha256, sha(onDisk));
  });
});

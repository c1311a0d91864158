// Download progress over loopback HTTP: every report names the size of the object it is
// about once the object host has said it, also after a resume, so a progress line can say
// "5.6 MiB of 11 MiB".

import * as assert from 'node:assert/strict';
import type { DownloadProgress } from '../../../src/client/types';
import { completeJob as job, noise, startDownloadBench, type DownloadBench } from '../../support/downloadBench';

describe('download progress', function () {
  this.timeout(20_000);
  let bench: DownloadBench;

  beforeEach(async () => {
    bench = await startDownloadBench({ retryBaseMs: 5, retryMaxMs: 20 });
  });
  afterEach(() => bench.close());

  it('reports each object\'s size with its bytes, from its Content-Length', async () => {
    const sizes: Record<string, number> = { a: 300_000, b: 120_000, c: 7 };
    for (const [id, size] of Object.entries(sizes)) bench.service.objects.set(id, noise(size, size));
    const events: DownloadProgress[] = [];
    await bench.client.downloadJob(job('a', 'b', 'c'), { dir: bench.dir, format: 'csv', concurrency: 2, onProgress: (p) => events.push({ ...p }) });
    for (const id of Object.keys(sizes)) {
      const mine = events.filter((e) => e.objectId === id);
      assert.ok(mine.length > 0, `progress for ${id}`);
      assert.deepEqual([...new Set(mine.map((e) => e.total))], [sizes[id]], `every report on ${id} says its size`);
      assert.equal(mine[mine.length - 1].bytes, sizes[id]);
    }
  });

  it('keeps the size after the connection drops and the download resumes with Range', async () => {
    const data = noise(200_000, 11);
    bench.service.objects.set('big', data);
    bench.service.faults.set('big', { dropAt: [50_000, 120_000] });
    const events: DownloadProgress[] = [];
    await bench.client.downloadJob(job('big'), { dir: bench.dir, format: 'csv', onProgress: (p) => events.push({ ...p }) });
    assert.equal(bench.service.requestsFor('big').length, 3, 'two resumes');
    assert.ok(events.some((e) => e.bytes > 120_000 && e.bytes < data.length), 'reports from the last resume');
    assert.ok(events.every((e) => e.total === data.length), JSON.stringify([...new Set(events.map((e) => e.total))]));
  });
});

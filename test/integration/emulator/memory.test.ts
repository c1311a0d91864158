import * as assert from 'node:assert/strict';
import { startEmulator } from '../../../src/emulator/emulator';
import { ManualClock, completedJob, tokenFor, urlsFor } from '../../support/emulatorHarness';

describe('emulator: memory stays flat for large results', function () {
  this.timeout(60_000);

  it('streams a result larger than the memory bound without holding it', async () => {
    const clock = new ManualClock();
    // Stored gzip (level 0) keeps generation fast while the bytes on the wire stay large.
    const emu = await startEmulator({ clock, limits: false, jobDelayMs: 10, rows: 360_000, rowsPerObject: 120_000, gzipLevel: 0 });
    try {
      const token = await tokenFor(emu);
      const job = await completedJob(emu, clock, token, 'canvas_logs', 'web_logs', { format: 'jsonl' });
      assert.equal(job.objects.length, 3);
      const before = process.memoryUsage();
      let peakRss = before.rss;
      let peakHeap = before.heapUsed;
      const sample = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
      }, 50);
      let total = 0;
      try {
        for (const url of await urlsFor(emu, token, job.objects)) {
          const res = await fetch(url);
          assert.equal(res.status, 200);
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) total += chunk.length;
        }
      } finally {
        clearInterval(sample);
      }
      const mb = 1024 * 1024;
      assert.ok(total > 120 * mb, `the result is large (${Math.round(total / mb)} MB)`);
      // Holding any one object whole would take more heap than half an object; streaming
      // takes a small, constant amount (about 14 MB measured here for 47 MB objects).
      const objectSize = total / job.objects.length;
      assert.ok(peakHeap - before.heapUsed < objectSize / 2, `heap grew by ${Math.round((peakHeap - before.heapUsed) / mb)} MB for ${Math.round(objectSize / mb)} MB objects`);
      // RSS also counts zlib and socket buffers and allocator slack: a coarse bound only.
      assert.ok(peakRss - before.rss < 128 * mb, `RSS grew by ${Math.round((peakRss - before.rss) / mb)} MB`);
    } finally {
      await emu.close();
    }
  });
});

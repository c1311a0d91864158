import * as assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startEmulator } from '../../../src/emulator/emulator';
import { ManualClock, completedJob, tokenFor, urlsFor } from '../../support/emulatorHarness';

describe('emulator: memory stays flat for large results', function () {
  this.timeout(60_000);

  it('streams a result larger than the memory bound without holding it', async () => {
    const clock = new ManualClock();
    // Stored gzip (level 0) keeps generation fast while the bytes on the wire stay large.
    const emu = await startEmulator({ clock, limits: false, jobDelayMs: 10, rows: 360_000, rowsPerObject: 360_000, gzipLevel: 0 });
    try {
      const token = await tokenFor(emu);
      const job = await completedJob(emu, clock, token, 'canvas_logs', 'web_logs', { format: 'jsonl' });
      assert.equal(job.objects.length, 1, 'one large object');
      const before = process.memoryUsage();
      let peakRss = before.rss;
      // Buffers live outside the JS heap: what the process holds is heap plus array buffers,
      // measured after a full collection so garbage awaiting collection does not count.
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      const held = (m: NodeJS.MemoryUsage): number => m.heapUsed + m.arrayBuffers;
      gc();
      const heldBefore = held(process.memoryUsage());
      let peakHeld = heldBefore;
      const sample = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        gc();
        peakHeld = Math.max(peakHeld, held(process.memoryUsage()));
      }, 100);
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
      // Holding any one object whole would take more than half an object; streaming takes a
      // small, constant amount.
      const objectSize = total / job.objects.length;
      const grew = peakHeld - heldBefore;
      assert.ok(grew < objectSize / 2, `heap and buffers grew by ${Math.round(grew / mb)} MB for ${Math.round(objectSize / mb)} MB objects`);
      // RSS also counts zlib and socket buffers and allocator slack: a coarse bound only.
      assert.ok(peakRss - before.rss < 128 * mb, `RSS grew by ${Math.round((peakRss - before.rss) / mb)} MB`);
    } finally {
      await emu.close();
    }
  });
});

// A soak of the whole download path under the reliability fault mix: many small objects in
// several jobs, every one of which must arrive byte-identical to a run without faults.
// DQ_SOAK_OBJECTS sets how many objects (default 1000). Time is a fake clock shared by the
// emulator and the client, so retry waits, 429 storms and rate windows cost no real time.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isDqError } from '../../../src/client/errors';
import type { Format } from '../../../src/core/contract';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { FakeClock } from '../../support/fakeClock';

const FAULTS = '5xx=0.1,drop=0.05,storm=0.05,expireUrl=0.3,tokenReject=0.05';
const OBJECTS = Number(process.env.DQ_SOAK_OBJECTS ?? 1000);
const FORMATS: readonly Format[] = ['jsonl', 'csv', 'tsv', 'parquet'];
const ROWS_PER_OBJECT = 3;
const START = Date.UTC(2026, 10, 20, 9, 0, 0);

interface Outcome {
  /** `<format> <part> <bytes> <sha256>` per object that arrived */
  objects: string[];
  /** one line per job whose download failed */
  failures: string[];
  emu: RunningEmulator;
}

/** Creates one job per format and downloads each, four objects at a time. */
async function soak(faults: string | undefined, dir: string): Promise<Outcome> {
  const clock = new FakeClock(START);
  const perJob = Math.ceil(OBJECTS / FORMATS.length);
  const emu = await startEmulator({ clock, seed: 3, jobDelayMs: 0, rows: perJob * ROWS_PER_OBJECT, rowsPerObject: ROWS_PER_OBJECT, gzipLevel: 1, faults });
  const client = new DataQueryClient({
    baseUrl: emu.baseUrl,
    dataPrefix: emu.dataPrefix,
    credentials: async () => ({ clientId: emu.clientId, clientSecret: emu.clientSecret }),
    clock,
    maxRetries: 8,
  });
  const outcome: Outcome = { objects: [], failures: [], emu };
  const work = async (): Promise<void> => {
    for (const format of FORMATS) {
      try {
        const job = await client.runJob('canvas_logs', 'web_logs', { format });
        assert.equal(job.objects?.length, perJob);
        const files = await client.downloadJob(job, { dir: path.join(dir, format), format, concurrency: 4, sha256: true });
        for (const f of files) outcome.objects.push(`${format} ${path.basename(f.path).slice(0, 10)} ${f.bytes} ${f.sha256}`);
      } catch (err) {
        outcome.failures.push(`${format}: ${isDqError(err) ? err.describe() : String(err)}`);
      }
    }
  };
  try {
    await clock.run(work(), 1_000_000);
  } finally {
    await client.close();
  }
  return outcome;
}

describe('download soak under the reliability fault mix', function () {
  this.timeout(300_000);
  let tmp: string;
  before(async () => (tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-soak-'))));
  after(() => fs.rm(tmp, { recursive: true, force: true }));

  it(`${OBJECTS} objects in ${FORMATS.length} jobs arrive byte-identical through ${FAULTS}`, async () => {
    const clean = await soak(undefined, path.join(tmp, 'clean'));
    await clean.emu.close();
    assert.deepEqual(clean.failures, []);
    const started = Date.now();
    const faulty = await soak(FAULTS, path.join(tmp, 'faulty'));
    const seconds = (Date.now() - started) / 1000;
    try {
      const log = faulty.emu.requestLog.entries();
      const objectGets = log.filter((e) => e.host === 'object');
      console.log(
        `      soak: ${faulty.objects.length}/${clean.objects.length} objects arrived, ${faulty.failures.length} jobs failed, ` +
          `${seconds.toFixed(1)} s; ${objectGets.length} object requests (${objectGets.filter((e) => e.status === 403).length} refused), ` +
          `${log.filter((e) => e.status === 429).length} answers 429, ${log.filter((e) => e.status >= 500).length} answers 5xx, ` +
          `${log.filter((e) => e.status === 401).length} answers 401`,
      );
      assert.deepEqual(faulty.failures, []);
      assert.deepEqual(faulty.objects.sort(), clean.objects.sort());
      assert.ok(clean.objects.length >= OBJECTS);
      assert.ok(objectGets.some((e) => e.status === 403), 'links really expired');
      assert.ok(log.some((e) => e.status === 429) && log.some((e) => e.status >= 500) && log.some((e) => e.status === 401), 'API faults really happened');
    } finally {
      await faulty.emu.close();
    }
  });
});

import * as assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { runDq } from '../../support/cliHarness';
import { api, download, tokenFor, urlsFor } from '../../support/emulatorHarness';
import { FakeClock } from '../../support/fakeClock';

const BYTES_PER_SECOND = 100_000;

describe('emulator: paced object downloads', () => {
  let emu: RunningEmulator;
  let clock: FakeClock;
  let url: string;

  before(async () => {
    clock = new FakeClock();
    emu = await startEmulator({ clock, limits: false, jobDelayMs: 10, rows: 2000, gzipLevel: 0, objectBytesPerSecond: BYTES_PER_SECOND });
    const token = await tokenFor(emu);
    const created = await api(emu, token, 'POST', '/query/canvas_logs/table/web_logs/data', { format: 'jsonl' });
    await clock.advance(60_000);
    const job = await api(emu, token, 'GET', `/job/${encodeURIComponent(created.json.id)}`);
    [url] = await urlsFor(emu, token, job.json.objects);
  });
  after(() => emu.close());

  /** Downloads the object, letting the emulator's clock run as far as the download needs. */
  async function timedDownload(): Promise<{ bytes: Buffer; elapsedMs: number }> {
    const started = clock.now();
    const res = await clock.run(download(url));
    assert.equal(res.status, 200);
    return { bytes: res.bytes, elapsedMs: clock.now() - started };
  }

  it('sends an object at the pace it was given, and the same bytes as unpaced', async () => {
    const paced = await timedDownload();
    const expectedMs = (paced.bytes.length / BYTES_PER_SECOND) * 1000;
    assert.ok(paced.bytes.length > 4 * 65_536, 'the object spans several read chunks');
    assert.ok(Math.abs(paced.elapsedMs - expectedMs) < 1, `took ${paced.elapsedMs} ms of emulator time, expected ${expectedMs}`);

    emu.setObjectBytesPerSecond(undefined);
    const unpaced = await timedDownload();
    assert.equal(unpaced.elapsedMs, 0, 'unpaced downloads do not wait');
    assert.deepEqual(unpaced.bytes, paced.bytes);
  });

  it('dq emulator refuses a pace that is not a positive whole number of bytes', async () => {
    const run = await runDq(['emulator', '--object-rate', '0']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--object-rate must be a whole number of at least 1/);
  });
});

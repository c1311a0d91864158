import * as assert from 'node:assert/strict';
import { request } from 'node:http';
import { parseFaultSpec, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/emulator';
import { ManualClock, api, completedJob, download, tokenFor, urlsFor } from '../../support/emulatorHarness';

/** Status codes of a fixed sequence of schema calls; network failures show as 0. */
async function statusSequence(options: EmulatorOptions, calls: number): Promise<number[]> {
  const emu = await startEmulator({ clock: new ManualClock(), limits: false, ...options });
  try {
    const token = await tokenFor(emu);
    const out: number[] = [];
    for (let i = 0; i < calls; i++) {
      try {
        out.push((await api(emu, token, 'GET', '/query/canvas/table/users/schema')).status);
      } catch {
        out.push(0);
      }
    }
    return out;
  } finally {
    await emu.close();
  }
}

/** Reads a response with node:http so a short body is seen as such. */
function rawGet(url: string): Promise<{ status: number; declared: number; received: number; error?: string }> {
  return new Promise((resolve) => {
    const req = request(url, (res) => {
      let received = 0;
      const declared = Number(res.headers['content-length']);
      res.on('data', (c: Buffer) => (received += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, declared, received }));
      res.on('error', (e) => resolve({ status: res.statusCode ?? 0, declared, received, error: e.message }));
      res.on('aborted', () => resolve({ status: res.statusCode ?? 0, declared, received, error: 'aborted' }));
    });
    req.on('error', (e) => resolve({ status: 0, declared: 0, received: 0, error: e.message }));
    req.end();
  });
}

describe('emulator: fault injection', () => {
  let emu: RunningEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it('parses a full spec and rejects bad ones with a clear message', () => {
    const spec = parseFaultSpec('5xx=0.1,504=0.05,drop=0.2,slow=300,truncate=0.1,storm=0.05,tokenReject=0.1,jobFail=0.5,account=AccountDisabled,seed=7');
    assert.deepEqual(spec, {
      serverError: 0.1,
      gatewayTimeout: 0.05,
      drop: 0.2,
      slowMs: 300,
      truncate: 0.1,
      storm: 0.05,
      tokenReject: 0.1,
      jobFail: 0.5,
      account: 'AccountDisabled',
      seed: 7,
    });
    assert.deepEqual(parseFaultSpec(''), {});
    assert.deepEqual(parseFaultSpec('expireUrl=0.3,ignoreRange=0.1'), { expireUrl: 0.3, ignoreRange: 0.1 });
    assert.throws(() => parseFaultSpec('expireUrl=-1'), /expireUrl.*between 0 and 1/);
    assert.throws(() => parseFaultSpec('5xx=2'), /5xx.*between 0 and 1/);
    assert.throws(() => parseFaultSpec('bogus=1'), /unknown key "bogus"/);
    assert.throws(() => parseFaultSpec('account=Sleepy'), /account must be one of/);
    assert.throws(() => parseFaultSpec('slow=fast'), /slow/);
    assert.throws(() => parseFaultSpec('drop'), /key=value/);
    assert.throws(() => parseFaultSpec('drop=0.1,drop=0.2'), /twice/);
  });

  it('repeats the same faults for the same seed, and others for another seed', async () => {
    const spec = '5xx=0.3,504=0.2';
    const a = await statusSequence({ faults: `${spec},seed=7` }, 30);
    const b = await statusSequence({ faults: `${spec},seed=7` }, 30);
    const c = await statusSequence({ faults: `${spec},seed=8` }, 30);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
    assert.ok(a.includes(200) && a.includes(504) && a.some((s) => s >= 500 && s !== 504));
  });

  it('sends a 504 with a bare message envelope', async () => {
    emu = await startEmulator({ faults: { gatewayTimeout: 1 }, limits: false });
    const res = await api(emu, await tokenFor(emu), 'GET', '/query/canvas/table');
    assert.equal(res.status, 504);
    assert.equal(typeof res.json.error.message, 'string');
  });

  it('answers account errors with 403, or 500 like older gateways, per credential or for all', async () => {
    emu = await startEmulator({
      limits: false,
      extraCredentials: [{ clientId: 'closed', clientSecret: 's', accountError: 'AccountNotOnboarded' }],
    });
    assert.equal((await api(emu, await tokenFor(emu), 'GET', '/query/canvas/table')).status, 200);
    const closed = await api(emu, await tokenFor(emu, 'closed', 's'), 'GET', '/query/canvas/table');
    assert.equal(closed.status, 403);
    assert.equal(closed.json.error.type, 'AccountNotOnboarded');
    await emu.close();
    emu = await startEmulator({ limits: false, faults: 'account=AccountUnderMaintenance,accountStatus=500' });
    const old = await api(emu, await tokenFor(emu), 'GET', '/query/canvas/table');
    assert.equal(old.status, 500);
    assert.equal(old.json.error.type, 'AccountUnderMaintenance');
  });

  it('rejects valid tokens when tokenReject says so', async () => {
    const statuses = await statusSequence({ faults: 'tokenReject=0.5,seed=3' }, 20);
    assert.ok(statuses.includes(401) && statuses.includes(200));
  });

  it('starts 429 storms that last for the configured time', async () => {
    const clock = new ManualClock();
    emu = await startEmulator({ clock, limits: false, faults: 'storm=1,stormMs=5000' });
    const token = await tokenFor(emu);
    const first = await api(emu, token, 'GET', '/query/canvas/table');
    assert.equal(first.status, 429);
    assert.equal(first.headers.get('retry-after'), '5');
  });

  it('cuts API responses short when drop says so', async () => {
    const statuses = await statusSequence({ faults: 'drop=1' }, 3);
    assert.deepEqual(statuses, [0, 0, 0]);
  });

  it('truncates object downloads: Content-Length promises more than arrives', async () => {
    const clock = new ManualClock();
    emu = await startEmulator({ clock, limits: false, jobDelayMs: 10, faults: 'truncate=1' });
    const token = await tokenFor(emu);
    const job = await completedJob(emu, clock, token, 'canvas', 'submissions', { format: 'jsonl' });
    const [url] = await urlsFor(emu, token, job.objects);
    const got = await rawGet(url);
    assert.equal(got.status, 200);
    assert.ok(got.declared > 0 && got.received < got.declared);
  });

  /** Links to every object of a job split into many small objects. */
  async function manyLinks(faults: string): Promise<string[]> {
    const clock = new ManualClock();
    emu = await startEmulator({ clock, limits: false, jobDelayMs: 10, rows: 400, rowsPerObject: 20, gzipLevel: 0, faults });
    const token = await tokenFor(emu);
    const job = await completedJob(emu, clock, token, 'canvas_logs', 'web_logs', { format: 'csv' });
    assert.ok(job.objects.length >= 10, 'many objects');
    return urlsFor(emu, token, job.objects);
  }

  it('expires links early: refused before the first byte or cut part-way, and refused from then on', async () => {
    const urls = await manyLinks('expireUrl=1,seed=4');
    const first = await Promise.all(urls.map((u) => rawGet(u)));
    const refused = first.filter((r) => r.status === 403);
    const partWay = first.filter((r) => r.status === 200);
    assert.equal(refused.length + partWay.length, urls.length);
    assert.ok(refused.length > 0, 'some links are refused before the first byte');
    assert.ok(partWay.length > 0, 'some links expire part-way');
    for (const r of partWay) assert.ok(r.received > 0 && r.received < r.declared, `part of the object, then cut: ${r.received} of ${r.declared}`);
    const again = await Promise.all(urls.map((u) => download(u)));
    for (const r of again) {
      assert.equal(r.status, 403);
      assert.match(r.bytes.toString(), /Request has expired/);
    }
  });

  it('ignores Range when ignoreRange says so: 200 with the whole object from byte 0', async () => {
    const [url] = await manyLinks('ignoreRange=1');
    const whole = await download(url);
    const ranged = await download(url, { range: 'bytes=10-' });
    assert.equal(ranged.status, 200);
    assert.equal(ranged.headers.get('content-range'), null);
    assert.deepEqual(ranged.bytes, whole.bytes);
    await emu?.close();
    const [honoured] = await manyLinks('ignoreRange=0');
    const part = await download(honoured, { range: 'bytes=10-' });
    assert.equal(part.status, 206);
    assert.equal(part.bytes.length, Number(part.headers.get('content-range')?.split('/')[1]) - 10);
  });
});

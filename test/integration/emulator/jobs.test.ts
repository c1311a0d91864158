import * as assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { ManualClock, api, tokenFor } from '../../support/emulatorHarness';

describe('emulator: job lifecycle, dedupe and expiry', () => {
  let emu: RunningEmulator;
  let clock: ManualClock;
  let token: string;

  beforeEach(async () => {
    clock = new ManualClock();
    emu = await startEmulator({
      clock,
      limits: false,
      jobDelayMs: 3000,
      jobTtlSec: 7200,
      dedupeWindowSec: 300,
      extraCredentials: [{ clientId: 'second', clientSecret: 'second-secret' }],
    });
    token = await tokenFor(emu);
  });
  afterEach(() => emu.close());

  const create = (body: unknown, t = token) => api(emu, t, 'POST', '/query/canvas/table/users/data', body);
  const get = (id: string) => api(emu, token, 'GET', `/job/${encodeURIComponent(id)}`);

  it('goes waiting -> running -> complete as time passes, with 202 then 200 from create', async () => {
    const created = await create({ format: 'jsonl' });
    assert.equal(created.status, 202);
    assert.equal(created.json.status, 'waiting');
    assert.ok(Date.parse(created.json.expires_at) > clock.now());
    assert.equal(created.json.objects, undefined);
    clock.advance(1500);
    assert.equal((await get(created.json.id)).json.status, 'running');
    clock.advance(1600);
    const done = await get(created.json.id);
    assert.equal(done.json.status, 'complete');
    assert.ok(done.json.objects.length >= 1);
    const schema = await api(emu, token, 'GET', '/query/canvas/table/users/schema');
    assert.equal(done.json.schema_version, schema.json.version);
    assert.ok(Date.parse(done.json.at) <= clock.now());
    assert.equal(done.json.since, undefined);
    const again = await create({ format: 'jsonl' });
    assert.equal(again.status, 200);
    assert.equal(again.json.id, created.json.id);
  });

  it('reports since and until for incrementals, and until is a valid next since', async () => {
    const since = new Date(clock.now() - 3 * 86_400_000).toISOString();
    const created = await create({ format: 'csv', since });
    clock.advance(5000);
    const done = (await get(created.json.id)).json;
    assert.equal(done.status, 'complete');
    assert.equal(Date.parse(done.since), Date.parse(since));
    assert.ok(Date.parse(done.until) > Date.parse(since));
    assert.equal(done.at, undefined);
    const next = await create({ format: 'csv', since: done.until });
    assert.ok(next.status === 202 || next.status === 200);
  });

  it('returns the same job for identical requests within the window, a new one otherwise', async () => {
    const a = await create({ format: 'csv', mode: 'condensed' });
    const same = await create({ mode: 'condensed', format: 'csv' });
    assert.equal(same.json.id, a.json.id);
    assert.notEqual((await create({ format: 'tsv', mode: 'condensed' })).json.id, a.json.id);
    assert.notEqual((await create({ format: 'csv' })).json.id, a.json.id);
    assert.notEqual((await api(emu, token, 'POST', '/query/canvas/table/users/data?scope=other', { format: 'csv', mode: 'condensed' })).json.id, a.json.id);
    const other = await tokenFor(emu, 'second', 'second-secret');
    assert.notEqual((await create({ format: 'csv', mode: 'condensed' }, other)).json.id, a.json.id);
    clock.advance(301_000);
    assert.notEqual((await create({ format: 'csv', mode: 'condensed' })).json.id, a.json.id);
  });

  it('expires jobs jobTtlSec after start: get-job and object URLs then answer 404', async () => {
    const created = await create({ format: 'jsonl' });
    clock.advance(5000);
    const done = (await get(created.json.id)).json;
    assert.equal((await api(emu, token, 'POST', '/object/url', done.objects)).status, 200);
    clock.advance(7200_000);
    token = await tokenFor(emu);
    const gone = await get(created.json.id);
    assert.equal(gone.status, 404);
    assert.equal(gone.json.error.kind, 'job');
    const urls = await api(emu, token, 'POST', '/object/url', done.objects);
    assert.equal(urls.status, 404);
    assert.equal(urls.json.error.kind, 'object');
    assert.equal(urls.json.error.id, done.objects[0].id);
  });

  it('404s unknown jobs and objects, and refuses URLs for unfinished jobs', async () => {
    const missing = await get('no-such-job');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.kind, 'job');
    const obj = await api(emu, token, 'POST', '/object/url', [{ id: 'a/b==' }]);
    assert.equal(obj.status, 404);
    assert.equal(obj.json.error.kind, 'object');
    const bad = await api(emu, token, 'POST', '/object/url', { id: 'x' });
    assert.equal(bad.status, 400);
    assert.ok(bad.json.error.location);
  });

  it('fails jobs when the jobFail fault says so, with an error record', async () => {
    const failing = await startEmulator({ clock, limits: false, faults: 'jobFail=1', jobDelayMs: 100 });
    try {
      const t = await tokenFor(failing);
      const created = await api(failing, t, 'POST', '/query/canvas/table/users/data', { format: 'csv' });
      clock.advance(200);
      const job = (await api(failing, t, 'GET', `/job/${created.json.id}`)).json;
      assert.equal(job.status, 'failed');
      assert.equal(typeof job.error.message, 'string');
      assert.equal(job.objects, undefined);
    } finally {
      await failing.close();
    }
  });
});

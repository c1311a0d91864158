// The emulator's logs delivered at least once (some records twice) and schema changes made
// while it runs, as a sync sees them over HTTP: the schema endpoint, the job's schema_version
// and the records.

import * as assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { ManualClock, api, completedJob, download, tokenFor, urlsFor } from '../../support/emulatorHarness';

interface Rec {
  key: Record<string, unknown>;
  value?: Record<string, unknown>;
  meta: { action: string; ts: string };
}

async function records(emu: RunningEmulator, token: string, job: { objects: { id: string }[] }): Promise<Rec[]> {
  const out: Rec[] = [];
  for (const url of await urlsFor(emu, token, job.objects)) {
    const text = gunzipSync((await download(url)).bytes).toString('utf8');
    for (const line of text.split('\n')) if (line) out.push(JSON.parse(line) as Rec);
  }
  return out;
}

describe('emulator: logs delivered at least once, and schema changes', () => {
  let emu: RunningEmulator | undefined;
  let clock: ManualClock;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  const start = async (duplicates?: number): Promise<{ emu: RunningEmulator; token: string }> => {
    clock = new ManualClock();
    emu = await startEmulator({ clock, limits: false, jobDelayMs: 1000, rows: 4000, duplicates });
    return { emu, token: await tokenFor(emu) };
  };

  it('repeats some log records exactly when asked to, and none otherwise', async () => {
    const keysOf = async (duplicates?: number): Promise<{ all: string[]; lines: string[] }> => {
      const { emu, token } = await start(duplicates);
      const job = await completedJob(emu, clock, token, 'canvas_logs', 'web_logs', { format: 'jsonl' });
      const recs = await records(emu, token, job);
      await emu.close();
      return { all: recs.map((r) => JSON.stringify(r.key)), lines: recs.map((r) => JSON.stringify(r)) };
    };
    const plain = await keysOf();
    assert.equal(new Set(plain.all).size, plain.all.length, 'no key twice by default');
    const twice = await keysOf(0.05);
    const repeated = twice.all.length - new Set(twice.all).size;
    assert.ok(repeated > 100 && repeated < 400, `about 5% of 4000 records repeated, not ${repeated}`);
    assert.equal(new Set(twice.lines).size, plain.lines.length, 'each repeat is an exact copy of a record that is there anyway');
    await assert.rejects(start(2), /duplicates must be a share from 0 to 1/);
  });

  it('adds a column: a new schema version, jobs report it, and only rows changed later carry values', async () => {
    const { emu, token } = await start();
    const before = await api(emu, token, 'GET', '/query/canvas/table/users/schema');
    const t1 = new Date(clock.now() - 10 * 86_400_000).toISOString();
    const t2 = new Date(clock.now() - 2 * 86_400_000).toISOString();
    const snapshot = await completedJob(emu, clock, token, 'canvas', 'users', { format: 'jsonl', until: t1 });
    const version = emu.evolveTable('canvas', 'users', 'addColumn', Date.parse(snapshot.at));
    assert.equal(version, before.json.version + 1);
    const after = await api(emu, token, 'GET', '/query/canvas/table/users/schema');
    assert.equal(after.json.version, version);
    const added = `added_in_v${version}`;
    assert.equal(after.json.schema.properties.value.properties[added].type, 'string');
    assert.equal(before.json.schema.properties.value.properties[added], undefined);

    assert.equal((await api(emu, token, 'GET', `/job/${snapshot.id}`)).json.schema_version, before.json.version, 'an earlier job keeps its version');
    const later = await completedJob(emu, clock, token, 'canvas', 'users', { format: 'jsonl', since: snapshot.at, until: t2 });
    assert.equal(later.schema_version, version);
    const upserts = (await records(emu, token, later)).filter((r) => r.meta.action === 'U');
    assert.ok(upserts.length > 0, 'rows changed in the later commits');
    for (const r of upserts) assert.ok(r.value?.[added], `a row changed at ${r.meta.ts} carries ${added}`);
    const fresh = await records(emu, token, await completedJob(emu, clock, token, 'canvas', 'users', { format: 'jsonl', until: t2 }));
    const old = fresh.filter((r) => Date.parse(r.meta.ts) <= Date.parse(snapshot.at));
    assert.ok(old.length > 0 && old.every((r) => r.value?.[added] === undefined), 'rows written before the change carry none');
  });

  it('makes a required column optional, and changes a column\'s type', async () => {
    const { emu, token } = await start();
    const required = (s: { schema: { properties: { value: { required?: string[] } } } }): string[] => s.schema.properties.value.required ?? [];
    const before = (await api(emu, token, 'GET', '/query/canvas/table/users/schema')).json;
    assert.ok(required(before).length > 0, 'users has a required value column');
    emu.evolveTable('canvas', 'users', 'relaxRequired');
    const relaxed = (await api(emu, token, 'GET', '/query/canvas/table/users/schema')).json;
    assert.equal(relaxed.version, before.version + 1);
    assert.deepEqual(required(relaxed), required(before).slice(1));

    emu.evolveTable('canvas', 'users', 'retype');
    const retyped = (await api(emu, token, 'GET', '/query/canvas/table/users/schema')).json;
    const changed = Object.entries(retyped.schema.properties.value.properties as Record<string, { type?: string }>).find(
      ([name, s]) => s.type === 'string' && (before.schema.properties.value.properties[name] as { type?: string }).type === 'integer',
    );
    assert.ok(changed, 'an integer column is now a string');
    const job = await completedJob(emu, clock, token, 'canvas', 'users', { format: 'jsonl' });
    const recs = await records(emu, token, job);
    assert.ok(recs.some((r) => typeof r.value?.[changed[0]] === 'string'), `${changed[0]} arrives as text`);
    assert.throws(() => emu.evolveTable('canvas', 'nothing', 'addColumn'), /no table canvas\.nothing/);
  });
});

import * as assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { ManualClock, api, tokenFor } from '../../support/emulatorHarness';

describe('emulator: tables, schemas and create-job validation', () => {
  let emu: RunningEmulator;
  let clock: ManualClock;
  let token: string;

  before(async () => {
    clock = new ManualClock();
    emu = await startEmulator({ clock, limits: false });
    token = await tokenFor(emu);
  });
  after(() => emu.close());

  it('lists the tables of every sample namespace, and 404s an unknown one with kind', async () => {
    assert.ok(emu.namespaces.includes('canvas') && emu.namespaces.includes('catalog'));
    let total = 0;
    for (const ns of emu.namespaces) {
      const res = await api(emu, token, 'GET', `/query/${ns}/table`);
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(res.json.tables) && res.json.tables.length > 0);
      total += res.json.tables.length;
    }
    assert.ok(total >= 8);
    const missing = await api(emu, token, 'GET', '/query/nope/table');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.kind, 'namespace');
    assert.equal(missing.json.error.id, 'nope');
    assert.ok(missing.json.error.uuid);
  });

  it('serves schema envelopes with key, value and meta, $refs that resolve, and versions above 1', async () => {
    let sawRef = false;
    let sawNewVersion = false;
    const types = new Set<string>();
    const visit = (node: any): void => { // eslint-disable-line @typescript-eslint/no-explicit-any
      if (!node || typeof node !== 'object') return;
      if (typeof node.type === 'string') types.add(node.format ? `${node.type}:${node.format}` : node.type);
      if (node.oneOf) types.add('oneOf');
      if (node.enum) types.add('enum');
      if (node.maxLength) types.add('maxLength');
      for (const v of Object.values(node)) visit(v);
    };
    for (const ns of emu.namespaces) {
      const { json } = await api(emu, token, 'GET', `/query/${ns}/table`);
      for (const table of json.tables as string[]) {
        const res = await api(emu, token, 'GET', `/query/${ns}/table/${table}/schema`);
        assert.equal(res.status, 200);
        assert.ok(Number.isInteger(res.json.version) && res.json.version >= 1);
        if (res.json.version > 1) sawNewVersion = true;
        const schema = res.json.schema;
        for (const part of ['key', 'value', 'meta']) assert.equal(schema.properties[part].type, 'object', `${ns}.${table} ${part}`);
        assert.ok(Object.keys(schema.properties.key.properties).length >= 1);
        for (const m of JSON.stringify(schema).matchAll(/"\$ref":"#\/(definitions|\$defs)\/(\w+)"/g)) {
          sawRef = true;
          assert.ok(schema[m[1]]?.[m[2]], `${m[0]} resolves in ${ns}.${table}`);
        }
        visit(schema);
      }
    }
    assert.ok(sawRef && sawNewVersion);
    for (const t of ['integer:int32', 'integer:int64', 'number', 'string', 'string:date-time', 'boolean', 'object', 'array', 'oneOf', 'enum', 'maxLength']) {
      assert.ok(types.has(t), `some column uses ${t}`);
    }
  });

  it('has composite keys somewhere', async () => {
    const res = await api(emu, token, 'GET', '/query/canvas/table/enrollments/schema');
    assert.deepEqual(Object.keys(res.json.schema.properties.key.properties), ['user_id', 'course_id']);
    assert.deepEqual(res.json.schema.properties.key.required, ['user_id', 'course_id']);
  });

  it('404s an unknown table with kind table, and accepts the scope parameter', async () => {
    const res = await api(emu, token, 'GET', '/query/canvas/table/nope/schema');
    assert.equal(res.status, 404);
    assert.equal(res.json.error.kind, 'table');
    const data = await api(emu, token, 'POST', '/query/canvas/table/nope/data', { format: 'csv' });
    assert.equal(data.json.error.kind, 'table');
    assert.equal((await api(emu, token, 'GET', '/query/canvas/table?scope=account-42')).status, 200);
    assert.equal((await api(emu, token, 'GET', '/query/canvas/table/users/schema?scope=account-42')).status, 200);
  });

  it('points at the JSON syntax error with a 1-based location', async () => {
    const res = await api(emu, token, 'POST', '/query/canvas/table/users/data', '{\n  "format": "csv",\n  "mode" "x"\n}');
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.error.location, { line: 3, column: 10, character: 31 });
  });

  it('rejects bad formats, filters, bad dates and since after until, pointing at the field', async () => {
    const post = (body: string) => api(emu, token, 'POST', '/query/canvas/table/users/data', body);
    const badFormat = await post('{"format": "xml"}');
    assert.equal(badFormat.status, 400);
    assert.deepEqual(badFormat.json.error.location, { line: 1, column: 12, character: 12 });
    const missing = await post('{}');
    assert.equal(missing.status, 400);
    assert.match(missing.json.error.message, /format/);
    const filter = await post('{"format": "csv",\n"filter": {"a": 1}}');
    assert.equal(filter.status, 400);
    assert.equal(filter.json.error.location.line, 2);
    const badDate = await post('{"format": "csv", "since": "yesterday"}');
    assert.equal(badDate.status, 400);
    assert.equal(badDate.json.error.location.column, 28);
    const since = new Date(clock.now() - 86_400_000).toISOString();
    const until = new Date(clock.now() - 2 * 86_400_000).toISOString();
    const reversed = await post(JSON.stringify({ format: 'csv', since, until }));
    assert.equal(reversed.status, 400);
    assert.equal(reversed.json.error.type, 'ValidationError');
    assert.ok(reversed.json.error.location);
  });

  it('answers snapshot required with the earliest allowed since', async () => {
    const old = new Date(clock.now() - 90 * 86_400_000).toISOString();
    const res = await api(emu, token, 'POST', '/query/canvas/table/users/data', { format: 'jsonl', since: old });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.type, 'SnapshotRequired');
    const earliest = Date.parse(res.json.error.since);
    assert.ok(earliest > Date.parse(old) && earliest < clock.now());
    const ok = await api(emu, token, 'POST', '/query/canvas/table/users/data', { format: 'jsonl', since: res.json.error.since });
    assert.ok(ok.status === 200 || ok.status === 202);
  });

  it('answers out of range for an until in the future', async () => {
    const res = await api(emu, token, 'POST', '/query/canvas/table/users/data', {
      format: 'jsonl',
      until: new Date(clock.now() + 86_400_000).toISOString(),
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.type, 'OutOfRange');
    assert.ok(res.json.error.since && res.json.error.until);
  });

  it('404s unknown routes and refuses wrong methods', async () => {
    assert.equal((await api(emu, token, 'GET', '/nothing/here')).status, 404);
    assert.equal((await api(emu, token, 'DELETE', '/query/canvas/table')).status, 405);
  });
});

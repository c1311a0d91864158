// The SchemaModel in plain Node, on a fake clock: a kept copy answers for 4 hours and is read
// again after; every list or schema kept, forgotten or failed is told through onDidChange (also
// those Find Column reads); the last failure of each table's schema is kept until a read works.

import * as assert from 'node:assert/strict';
import { DqError } from '../../../src/client/errors';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { STALE_AFTER_MS } from '../../../src/core/schemaCache';
import type { ClientPool } from '../../../src/extension/connections/clientPool';
import type { Connection } from '../../../src/extension/connections/connectionConfig';
import { SchemaModel, type SchemaChange } from '../../../src/extension/schema/schemaModel';
import { FakeClock } from '../../support/fakeClock';
import { MemoryStorage } from '../jobs/memoryStorage';

const envelope = (version: number): SchemaEnvelope => ({
  version,
  schema: { properties: { key: { type: 'object', properties: { id: { type: 'integer' } } }, value: { type: 'object', properties: { name: { type: 'string' } } } } },
});

const connection: Connection = { kind: 'remote', name: 'Prod', baseUrl: 'https://dq.example.com', dataPrefix: 'dap', namespaces: ['canvas'], allowInsecureHttp: false };

/** A service that counts its calls; a table or namespace in `failing` answers with that error. */
function fakeService() {
  const calls: string[] = [];
  const failing = new Map<string, Error>();
  const answer = <T>(what: string, value: T): Promise<T> => {
    calls.push(what);
    const error = failing.get(what);
    return error ? Promise.reject(error) : Promise.resolve(value);
  };
  const client = {
    getSchema: (namespace: string, table: string) => answer(`schema ${namespace}.${table}`, envelope(3)),
    listTables: (namespace: string) => answer(`list ${namespace}`, ['users', 'courses']),
  };
  const pool = { session: () => Promise.resolve({ client, namespaces: ['canvas'], signal: new AbortController().signal }) } as unknown as Pick<ClientPool, 'session'>;
  return { calls, failing, pool };
}

describe('SchemaModel', () => {
  let clock: FakeClock;
  let service: ReturnType<typeof fakeService>;
  let model: SchemaModel;
  let changes: SchemaChange[];

  beforeEach(() => {
    clock = new FakeClock();
    service = fakeService();
    model = new SchemaModel(new MemoryStorage(), service.pool, clock);
    changes = [];
    model.onDidChange((change) => changes.push(change));
  });
  afterEach(() => model.dispose());

  it('answers a kept schema and table list for 4 hours without a call, and reads them again once they are stale', async () => {
    await model.schema(connection, 'canvas', 'users');
    await model.tables(connection, 'canvas');
    assert.deepEqual(service.calls, ['schema canvas.users', 'list canvas']);

    await clock.advance(STALE_AFTER_MS - 1);
    const held = model.heldSchema(connection, 'canvas', 'users')!;
    assert.equal(model.isStale(held), false, 'fresh until 4 hours have passed');
    await model.schema(connection, 'canvas', 'users');
    await model.tables(connection, 'canvas');
    assert.equal(service.calls.length, 2, 'no call within 4 hours');

    await clock.advance(1);
    assert.equal(model.isStale(held), true, 'stale at 4 hours');
    assert.equal(model.heldSchema(connection, 'canvas', 'users'), held, 'the stale copy is still held, for a view to show meanwhile');
    const read = await model.schema(connection, 'canvas', 'users');
    assert.deepEqual(await model.tables(connection, 'canvas'), ['users', 'courses']);
    assert.deepEqual(service.calls.slice(2), ['schema canvas.users', 'list canvas'], 'read again once stale');
    assert.equal(read.readAt, clock.now());
    assert.equal(model.isStale(read), false);
  });

  it('reads again when forced, also within 4 hours', async () => {
    await model.schema(connection, 'canvas', 'users');
    await model.schema(connection, 'canvas', 'users', { force: true });
    assert.deepEqual(service.calls, ['schema canvas.users', 'schema canvas.users']);
  });

  it('tells every list and schema kept or forgotten, by connection name, whoever read it', async () => {
    await model.schema(connection, 'canvas', 'users');
    await model.tables(connection, 'canvas');
    await model.saveSchema(connection, 'canvas', 'courses', envelope(2));
    await model.forget(connection, 'canvas', 'users');
    await model.forget(connection);
    assert.deepEqual(changes, [
      { what: 'saved', connection: 'Prod', namespace: 'canvas', table: 'users' },
      { what: 'saved', connection: 'Prod', namespace: 'canvas', table: undefined },
      { what: 'saved', connection: 'Prod', namespace: 'canvas', table: 'courses' },
      { what: 'forgotten', connection: 'Prod', namespace: 'canvas', table: 'users' },
      { what: 'forgotten', connection: 'Prod', namespace: undefined, table: undefined },
    ]);
    assert.equal(model.heldSchema(connection, 'canvas', 'courses'), undefined, 'forgetting a connection forgets its schemas');
  });

  it('tells of the schemas Find Column reads across a namespace, and keeps them', async () => {
    const read = await model.catalog(connection, ['canvas'], { signal: new AbortController().signal });
    assert.deepEqual(read.tables.map((t) => t.table).sort(), ['courses', 'users']);
    assert.deepEqual(
      changes.filter((c) => c.what === 'saved').map((c) => c.table ?? '(list)').sort(),
      ['(list)', 'courses', 'users'],
    );
    const calls = service.calls.length;
    await model.schema(connection, 'canvas', 'courses');
    assert.equal(service.calls.length, calls, 'what Find Column read is kept for the other readers');
  });

  it('keeps the last failure of each table until a read of it works, and tells of it', async () => {
    service.failing.set('schema canvas.users', new DqError('server', 'The service failed.'));
    await assert.rejects(model.schema(connection, 'canvas', 'users'), /The service failed/);
    await model.schema(connection, 'canvas', 'courses');
    const failure = model.failureOf(connection, 'canvas', 'users');
    assert.match(String((failure?.error as Error).message), /The service failed/);
    assert.equal(failure?.at, clock.now());
    assert.equal(model.failureOf(connection, 'canvas', 'courses'), undefined, 'another table read well');
    assert.equal(model.failureOf(connection, 'canvas'), undefined, 'the list of the namespace did not fail');
    assert.deepEqual(changes[0], { what: 'failed', connection: 'Prod', namespace: 'canvas', table: 'users' });

    await clock.advance(60_000);
    await assert.rejects(model.schema(connection, 'canvas', 'users'));
    assert.equal(model.failureOf(connection, 'canvas', 'users')?.at, clock.now(), 'the last failure is kept');

    service.failing.clear();
    await model.schema(connection, 'canvas', 'users');
    assert.equal(model.failureOf(connection, 'canvas', 'users'), undefined, 'a read that works clears it');
  });

  it('keeps a failed listing per namespace, forgets failures with the connection, and keeps no cancelled read as a failure', async () => {
    service.failing.set('list canvas', new DqError('network', 'No answer.'));
    await assert.rejects(model.tables(connection, 'canvas'));
    assert.ok(model.failureOf(connection, 'canvas'));
    await model.forget(connection);
    assert.equal(model.failureOf(connection, 'canvas'), undefined);

    service.failing.set('schema canvas.users', new DqError('cancelled', 'Stopped.'));
    await assert.rejects(model.schema(connection, 'canvas', 'users'));
    assert.equal(model.failureOf(connection, 'canvas', 'users'), undefined);
    assert.ok(!changes.some((c) => c.what === 'failed' && c.table === 'users'));
  });

  it('keeps the copies of a connection apart from those of one of the same name pointed elsewhere', async () => {
    await model.schema(connection, 'canvas', 'users');
    const moved: Connection = { ...connection, baseUrl: 'https://other.example.com' };
    assert.equal(model.heldSchema(moved, 'canvas', 'users'), undefined);
    await model.schema(moved, 'canvas', 'users');
    assert.equal(service.calls.length, 2);
  });
});

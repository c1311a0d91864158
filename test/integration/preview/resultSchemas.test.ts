// The schema a preview or a console statement reads downloaded results with: the explorer's
// kept copy, or the service's when it answers within a few seconds. A service that takes no
// calls (a dropped VPN, a firewall that swallows packets) must not hold a preview of files
// already on disk: after the wait the kept copy serves, however old, or the columns are read as text.

import * as assert from 'node:assert/strict';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { nullLogger } from '../../../src/core/logger';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { ClientPool } from '../../../src/extension/connections/clientPool';
import type { Connection } from '../../../src/extension/connections/connectionConfig';
import type { ConnectionStore } from '../../../src/extension/connections/connectionStore';
import { SchemaModel } from '../../../src/extension/schema/schemaModel';
import { jobDownloads, schemaFromConnections, SCHEMA_WAIT_MS } from '../../../src/extension/preview/jobDownloads';
import type { JobEntry } from '../../../src/jobs/jobEntry';
import { emulatorClientPool } from '../../support/emulatorClientPool';
import { FakeClock, flushMicrotasks } from '../../support/fakeClock';
import { MemoryStorage } from '../../unit/jobs/memoryStorage';

const STALE_MS = 5 * 60 * 60_000;

describe('the schema a preview of downloaded results reads them with', function () {
  this.timeout(60_000);
  let working: RunningEmulator;
  let silent: RunningEmulator;
  let pool: ClientPool;
  let clock: FakeClock;
  let reader: SchemaModel;
  let warnings: string[];

  const connectionTo = (name: string, emulator: RunningEmulator): Connection => ({
    kind: 'remote',
    name,
    baseUrl: emulator.baseUrl,
    dataPrefix: emulator.dataPrefix,
    namespaces: ['canvas'],
    allowInsecureHttp: false,
  });
  const connections = (): Connection[] => [connectionTo('Working', working), connectionTo('Silent', silent)];
  const store = { list: connections } as unknown as ConnectionStore;

  /** the downloaded job of `connection`'s canvas.users, as the preview and the console see it */
  const downloadedUsers = (connection: string) => {
    const entry = { key: 'k1', connection, namespace: 'canvas', table: 'users', request: { format: 'jsonl' }, jobId: 'job-1', state: 'complete', createdAt: 1, files: [{ path: '/r/part-1.jsonl.gz' }] } as unknown as JobEntry;
    const logger = { ...nullLogger, warn: (text: string) => void warnings.push(text) };
    const [job] = jobDownloads({ list: () => [entry] }, schemaFromConnections(store, reader), logger)();
    return job;
  };

  /** Lets the read start, then moves the clock past the wait. */
  const afterTheWait = async <T>(reading: Promise<T>): Promise<T> => {
    await flushMicrotasks(20);
    await clock.advance(SCHEMA_WAIT_MS);
    return reading;
  };

  beforeEach(async () => {
    working = await startEmulator({ port: 0 });
    // answers nothing for an hour: the client's own timeouts would wait minutes
    silent = await startEmulator({ port: 0, clientId: working.clientId, clientSecret: working.clientSecret, faults: { slowMs: 3_600_000 } });
    pool = emulatorClientPool(working, 'result-schemas-test');
    clock = new FakeClock(Date.now());
    reader = new SchemaModel(new MemoryStorage(), pool, clock);
    warnings = [];
  });
  afterEach(async () => {
    await pool.dispose();
    await Promise.all([working.close(), silent.close()]);
  });

  it("reads the table's schema from the service and keeps it, so the next preview makes no call", async () => {
    const job = downloadedUsers('Working');
    const schema = await job.schema();
    assert.equal(schema?.version, working.table('canvas', 'users')?.version);
    const calls = working.requestLog.entries().filter((e) => e.operation === 'getSchema').length;
    assert.equal(calls, 1);
    assert.deepEqual(await job.schema(), schema);
    assert.equal(working.requestLog.entries().filter((e) => e.operation === 'getSchema').length, calls, 'answered from the kept copy');
  });

  it('opens the results with their columns as text once the wait is over when the service does not answer', async () => {
    const schema = await afterTheWait(downloadedUsers('Silent').schema());
    assert.equal(schema, undefined, 'no schema: the engine reads the columns as text');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /The schema of canvas\.users could not be fetched, so its columns are read as text \(objects and lists as JSON\): The service did not send the schema of canvas\.users within 5 s/);
  });

  it('uses the kept copy, however old, when the service does not answer', async () => {
    const connection = connectionTo('Silent', silent);
    const kept: SchemaEnvelope = { version: 7, schema: { type: 'object', properties: { key: { type: 'object', properties: { id: { type: 'integer' } } } } } };
    await reader.saveSchema(connection, 'canvas', 'users', kept);
    assert.deepEqual(await downloadedUsers('Silent').schema(), kept, 'a fresh copy is used at once');
    await clock.advance(STALE_MS);
    assert.deepEqual(await afterTheWait(downloadedUsers('Silent').schema()), kept, 'a stale copy after the wait');
    assert.deepEqual(warnings, []);
  });
});

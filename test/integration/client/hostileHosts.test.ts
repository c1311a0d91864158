// Hosts that answer without end or without hurry: a gateway trickling its answer, an object
// host trickling or sending an object that never ends or is larger than the limit, and a job
// with more result files than the client downloads. Nothing hangs, nothing fills the disk,
// and each failure says what happened. The limits are set small so the tests stay short;
// no assertion depends on how long anything takes.

import * as assert from 'node:assert/strict';
import type { DataQueryClient } from '../../../src/client/dataQueryClient';
import type { DqError } from '../../../src/client/errors';
import { completeJob as job, listDir, noise, startDownloadBench, type DownloadBench } from '../../support/downloadBench';
import { dqRejection } from '../../support/dqRejection';
import type { LoopbackService } from '../../support/loopbackServer';

const failure = (p: Promise<unknown>): Promise<DqError> => dqRejection(p);

describe('hosts that trickle or never end', function () {
  this.timeout(20_000);
  const maxRetries = 2;
  let bench: DownloadBench;
  let service: LoopbackService;
  let client: DataQueryClient;
  let dir: string;

  beforeEach(async () => {
    bench = await startDownloadBench({ maxRetries, retryBaseMs: 5, retryMaxMs: 20, answerDeadlineMs: 300, downloadStallWindowMs: 300, minDownloadBytesPerSecond: 1024 });
    ({ service, client, dir } = bench);
  });

  afterEach(() => bench.close());

  it('a table list that trickles in a byte at a time fails as too slow after the retries, instead of waiting for it', async () => {
    service.trickleTablesMs = 20;
    const err = await failure(client.listTables('canvas'));
    assert.equal(err.kind, 'network');
    assert.match(err.message, /^Listing tables failed: the service sent its answer too slowly: not all of it had arrived after 0\.3 s/);
    assert.match(err.hint ?? '', /try again later/);
    assert.equal(service.tableRequests, maxRetries + 1, 'retried like a dropped connection');
  });

  it('an object host that trickles is dropped and resumed, then given up as too slow, leaving no file', async () => {
    service.objects.set('slow', noise(50_000, 1));
    service.faults.set('slow', { trickleMs: 10 });
    const err = await failure(client.downloadJob(job('slow'), { dir }));
    assert.equal(err.kind, 'network');
    assert.match(err.message, /^The object host sent object 1\/1 too slowly: \d+ bytes in 0\.3 s, less than 1\.0 KiB a second/);
    const requests = service.requestsFor('slow');
    assert.equal(requests.length, maxRetries + 1);
    assert.ok(requests.slice(1).every((r) => r.range !== undefined && r.range !== 'bytes=0-'), 'each new attempt resumes where the last stopped');
    assert.deepEqual(await listDir(dir), []);
  });

  it('an object that never ends stops at the size limit, is not retried and leaves no staging file', async () => {
    service.objects.set('endless', noise(64 * 1024, 2));
    service.faults.set('endless', { endless: true });
    const err = await failure(client.downloadJob(job('endless'), { dir, maxObjectBytes: 1024 * 1024 }));
    assert.equal(err.kind, 'invalidResponse');
    assert.match(err.message, /^Object 1\/1 is larger than the 1\.0 MiB this client downloads for one result file/);
    assert.match(err.hint ?? '', /not kept.*maxObjectBytes/);
    assert.equal(service.requestsFor('endless').length, 1);
    assert.deepEqual(await listDir(dir), []);
  });

  it('an object announced larger than the limit is refused before its body is read', async () => {
    service.objects.set('big', noise(5_000, 3));
    const err = await failure(client.downloadJob(job('big'), { dir, maxObjectBytes: 4096 }));
    assert.equal(err.kind, 'invalidResponse');
    assert.match(err.message, /^Object 1\/1 is 4\.9 KiB, more than the 4\.0 KiB this client downloads/);
    assert.equal(service.requestsFor('big').length, 1);
    assert.deepEqual(await listDir(dir), []);
  });

  it('a job with more result files than the limit is refused before any link request, with the time its links would take', async () => {
    const huge = { ...job(), objects: Array.from({ length: 500_000 }, (_, i) => ({ id: `o${i}` })) };
    const err = await failure(client.downloadJob(huge, { dir }));
    assert.equal(err.kind, 'usage');
    assert.match(err.message, /^Job job-1 has 500000 result files, more than the 10000 this client downloads: link requests alone would take about 42 hours at 200 a minute/);
    assert.match(err.hint ?? '', /maxObjects/);
    assert.deepEqual(service.linkRequests, []);

    service.objects.set('a', noise(100, 4));
    service.objects.set('b', noise(100, 5));
    const refused = await failure(client.downloadJob(job('a', 'b'), { dir, maxObjects: 1 }));
    assert.match(refused.message, /has 2 result files, more than the 1 this client downloads/);
    assert.equal((await client.downloadJob(job('a', 'b'), { dir, maxObjects: 2 })).length, 2, 'within the limit it downloads');
  });
});

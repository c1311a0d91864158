// When the extension copies a downloaded result for its preview: once per set of files, after
// the download (not when the job merely completes), only while the setting is on, one job at a
// time, and never after the extension stops.

import * as assert from 'node:assert/strict';
import type { SchemaEnvelope } from '../../../src/core/contract';
import { nullLogger } from '../../../src/core/logger';
import type { ResultSource } from '../../../src/engine/engineProtocol';
import type { DownloadedJob } from '../../../src/extension/preview/downloadedJobs';
import { prepareDownloads } from '../../../src/extension/preview/prepareDownloads';
import { Emitter } from '../../../src/core/emitter';
import type { JobEntry } from '../../../src/jobs/jobEntry';

const schema: SchemaEnvelope = { version: 3, schema: { type: 'object' } };

const file = (path: string): JobEntry['files'][number] => ({ path, bytes: 10, objectId: path, gzip: true });

function entry(patch: Partial<JobEntry>): JobEntry {
  return {
    key: 'k1',
    connection: 'Sample data',
    namespace: 'canvas',
    table: 'users',
    request: { format: 'jsonl' },
    state: 'complete',
    createdAt: 1,
    updatedAt: 2,
    jobId: 'job-1',
    download: true,
    files: [file('/r/part-1.jsonl.gz')],
    ...patch,
  } as JobEntry;
}

function downloaded(e: JobEntry): DownloadedJob {
  return { key: e.key, connection: e.connection, namespace: e.namespace, table: e.table, jobId: e.jobId!, paths: e.files.map((f) => f.path), format: e.request.format, createdAt: e.createdAt, schema: () => Promise.resolve(schema) };
}

describe('copying downloaded results for their preview', () => {
  let changes: Emitter<JobEntry | undefined>;
  let entries: JobEntry[];
  let prepared: ResultSource[];
  let enabled: boolean;
  let release: () => void;
  let signals: AbortSignal[];

  beforeEach(() => {
    changes = new Emitter();
    entries = [];
    prepared = [];
    signals = [];
    enabled = true;
    release = () => undefined;
  });

  function start(wait = false): { dispose(): void } {
    return prepareDownloads({
      onDidChange: changes.event,
      jobs: () => entries.filter((e) => e.state === 'complete' && e.files.length > 0).map(downloaded),
      engine: {
        prepare: async (source, signal) => {
          prepared.push(source);
          if (signal) signals.push(signal);
          if (wait) await new Promise<void>((resolve) => (release = resolve));
          return { rows: 1, kept: true };
        },
      },
      enabled: () => enabled,
      logger: nullLogger,
    });
  }

  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));
  function change(e: JobEntry): void {
    entries = [e, ...entries.filter((x) => x.key !== e.key)];
    changes.fire(e);
  }

  it('copies a job once its files are downloaded, with the table\'s schema, and only once', async () => {
    start();
    change(entry({ files: [] }));
    change(entry({ progress: { bytes: 5 } as JobEntry['progress'] }));
    await settle();
    assert.deepEqual(prepared, [], 'not before the files are in place');
    change(entry({}));
    change(entry({ updatedAt: 3 }));
    await settle();
    assert.deepEqual(prepared, [{ paths: ['/r/part-1.jsonl.gz'], name: 'canvas.users', format: 'jsonl', schema }]);
    change(entry({ files: [file('/r/again/part-1.jsonl.gz')] }));
    await settle();
    assert.equal(prepared.length, 2, 'a new download of the job is copied too');
  });

  it('copies nothing while the setting is off', async () => {
    start();
    enabled = false;
    change(entry({}));
    await settle();
    assert.deepEqual(prepared, []);
  });

  it('copies one job at a time, and stops with the extension', async () => {
    const running = start(true);
    change(entry({ key: 'a', jobId: 'a', files: [file('/a.jsonl.gz')] }));
    change(entry({ key: 'b', jobId: 'b', files: [file('/b.jsonl.gz')] }));
    await settle();
    assert.deepEqual(prepared.map((s) => s.paths[0]), ['/a.jsonl.gz']);
    running.dispose();
    assert.ok(signals[0].aborted, 'the copy under way is cancelled');
    release();
    await settle();
    assert.equal(prepared.length, 1, 'the next one never starts');
  });
});

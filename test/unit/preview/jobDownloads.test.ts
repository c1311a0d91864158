import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../src/core/logger';
import type { JobEntry } from '../../../src/jobs/jobEntry';
import { jobDownloads } from '../../../src/extension/preview/jobDownloads';

describe('downloaded jobs without their schema', () => {
  /** What the log says when the schema of a job of `format` cannot be had. */
  async function warningFor(format: string): Promise<string[]> {
    const warnings: string[] = [];
    const entry = { key: 'k1', connection: 'Work', namespace: 'canvas', table: 'users', request: { format }, jobId: 'job-1', state: 'complete', createdAt: 1, files: [{ path: `/r/part-1.${format}` }] } as unknown as JobEntry;
    const noSchema = (): Promise<never> => Promise.reject(new Error('The service did not send the schema of canvas.users within 5 s.'));
    const [job] = jobDownloads({ list: () => [entry] }, noSchema, { ...nullLogger, warn: (text: string) => void warnings.push(text) })();
    assert.equal(await job.schema(), undefined, 'the files open without it');
    return warnings;
  }

  it('logs that CSV and TSV columns are read as text', async () => {
    for (const format of ['csv', 'tsv']) {
      assert.deepEqual(await warningFor(format), [
        'The schema of canvas.users could not be fetched, so its columns are read as text: The service did not send the schema of canvas.users within 5 s.',
      ]);
    }
  });

  it('logs that JSONL columns are read as text, objects and lists as JSON', async () => {
    assert.deepEqual(await warningFor('jsonl'), [
      'The schema of canvas.users could not be fetched, so its columns are read as text (objects and lists as JSON): The service did not send the schema of canvas.users within 5 s.',
    ]);
  });

  it('logs that Parquet columns keep the types of their files', async () => {
    assert.deepEqual(await warningFor('parquet'), [
      'The schema of canvas.users could not be fetched, so its columns keep the types of its Parquet files: The service did not send the schema of canvas.users within 5 s.',
    ]);
  });
});

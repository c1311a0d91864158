import * as assert from 'node:assert/strict';
import { viewNames, type DownloadedJob } from '../../../src/extension/preview/downloadedJobs';
import { fileTarget, resolvePreviewTarget, sourceOf } from '../../../src/extension/preview/previewTargets';
import type { SchemaEnvelope } from '../../../src/core/contract';

const schema: SchemaEnvelope = { version: 3, schema: { type: 'object' } };

function job(patch: Partial<DownloadedJob>): DownloadedJob {
  return {
    key: 'k1',
    connection: 'Sample data',
    namespace: 'canvas',
    table: 'users',
    jobId: '6F2A9C01-aaaa-bbbb',
    paths: ['/r/part-1.jsonl.gz'],
    format: 'jsonl',
    createdAt: 1,
    schema: () => Promise.resolve(schema),
    ...patch,
  };
}

describe('downloaded jobs as SQL views', () => {
  it('names each job by table and job id prefix, and each table by its newest download', () => {
    const older = job({ key: 'a', jobId: '11111111-x', createdAt: 1 });
    const newer = job({ key: 'b', jobId: '22222222-y', createdAt: 2 });
    const logs = job({ key: 'c', namespace: 'canvas_logs', table: 'web-logs', jobId: 'abc', createdAt: 3 });
    assert.deepEqual(
      viewNames([older, newer, logs]).map((v) => `${v.name}=${v.job.key}`),
      ['canvas.users=b', 'canvas_logs.web_logs=c', 'canvas.users__11111111=a', 'canvas.users__22222222=b', 'canvas_logs.web_logs__abc=c'],
    );
  });
});

describe('what a preview opens', () => {
  const jobs = (): DownloadedJob[] => [job({})];
  const opened = (arg: unknown): Promise<unknown> => {
    const target = resolvePreviewTarget(arg, jobs);
    return target ? sourceOf(target) : Promise.resolve(undefined);
  };

  it('opens a job by connection and job id, or by its Jobs view node, with the table\'s schema', async () => {
    const expected = { paths: ['/r/part-1.jsonl.gz'], name: 'canvas.users', format: 'jsonl', schema };
    assert.deepEqual(await opened({ connection: 'Sample data', jobId: '6F2A9C01-aaaa-bbbb' }), expected);
    assert.deepEqual(await opened({ kind: 'job', id: 'job/k1', key: 'k1' }), expected);
    assert.deepEqual(await opened({ kind: 'file', id: 'f', key: 'k1', path: '/r/part-1.jsonl.gz' }), { paths: ['/r/part-1.jsonl.gz'], name: 'part-1.jsonl.gz', format: 'jsonl', schema });
  });

  it('opens loose files and file URIs as given', async () => {
    assert.deepEqual(await opened({ paths: ['/a.csv.gz', '/b.csv.gz'], title: 'Mine' }), { paths: ['/a.csv.gz', '/b.csv.gz'], name: 'Mine' });
    assert.deepEqual(await opened({ paths: ['/a.csv.gz', '/b.csv.gz'] }), { paths: ['/a.csv.gz', '/b.csv.gz'] }, 'untitled: the grid names them by their files');
    assert.deepEqual(await opened({ scheme: 'file', fsPath: '/d/x.parquet' }), { paths: ['/d/x.parquet'], name: 'x.parquet' });
  });

  it('reads a file a downloaded job holds, opened from VS Code\'s explorer, with its table\'s schema', async () => {
    const expected = { paths: ['/r/part-1.jsonl.gz'], name: 'part-1.jsonl.gz', format: 'jsonl', schema };
    assert.deepEqual(await opened({ scheme: 'file', fsPath: '/r/part-1.jsonl.gz' }), expected);
    assert.deepEqual(await sourceOf(fileTarget('/r/./part-1.jsonl.gz', jobs)), { ...expected, paths: ['/r/./part-1.jsonl.gz'] }, 'the same file, written another way');
    assert.deepEqual(await sourceOf(fileTarget('/r/part-2.jsonl.gz', jobs)), { paths: ['/r/part-2.jsonl.gz'], name: 'part-2.jsonl.gz' }, 'a file no job holds');
  });

  it('says to download first when the job has no files on disk', async () => {
    assert.throws(() => resolvePreviewTarget({ connection: 'Sample data', jobId: 'other' }, jobs), /The job other has no downloaded files to preview/);
    assert.equal(resolvePreviewTarget(undefined, jobs), undefined, 'nothing given: the command asks');
  });
});

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/core/logger';
import { EngineError } from '../../../src/engine/engineErrors';
import type { ResultSource } from '../../../src/engine/engineProtocol';
import { ConsoleViews, type ViewsEngine } from '../../../src/extension/preview/consoleViews';
import type { DownloadedJob } from '../../../src/extension/preview/downloadedJobs';
import { isCancellation } from '../../../src/extension/ui/cancellation';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function job(key: string, jobId: string, paths: string[], createdAt = 1): DownloadedJob {
  return { key, connection: 'c', namespace: 'canvas', table: key, jobId, paths, format: 'jsonl', createdAt, schema: () => Promise.resolve(undefined) };
}

/** An engine whose views are made at once, except over files named `broken`. */
function fakeEngine(): ViewsEngine & { made: string[]; tries: string[] } {
  const made: string[] = [];
  const tries: string[] = [];
  return {
    made,
    tries,
    registerView: async (name: string, source: ResultSource) => {
      tries.push(name);
      if (source.paths.some((p) => p.includes('broken'))) throw new EngineError('corrupt', `IO Error: ${source.paths[0]} is not a gzip file.`);
      made.push(name);
    },
    listViews: async () => made.map((name) => ({ name, columns: [] })),
  };
}

function logLines(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (m) => void warnings.push(m), error: () => undefined };
}

describe('SQL console views', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-console-views-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('lets Cancel stop a statement at once while a new job\'s schema is still on its way, and runs the next one', async () => {
    const engine = fakeEngine();
    const schemaWaits: (() => void)[] = [];
    let schemaReads = 0;
    // the service holds the schema back: each read waits until the test lets it go
    const sourceOf = (j: DownloadedJob): Promise<ResultSource> =>
      new Promise((resolve) => {
        schemaReads++;
        schemaWaits.push(() => resolve({ paths: j.paths, name: `${j.namespace}.${j.table}` }));
      });
    const views = new ConsoleViews(engine, () => [job('users', 'abcdef1234', [path.join(dir, 'u.jsonl.gz')])], logLines(), undefined, sourceOf);

    const run = new AbortController();
    let outcome: unknown = 'waiting';
    const synced = views.sync(run.signal).then(
      () => 'synced',
      (err: unknown) => err,
    );
    void synced.then((o) => (outcome = o));
    await settle();
    assert.equal(outcome, 'waiting', 'the statement waits for the new job\'s view');
    run.abort();
    await settle();
    assert.ok(isCancellation(outcome), `Cancel ends the wait at once: ${String(outcome)}`);
    assert.deepEqual(engine.tries, [], 'no view is begun after Cancel');

    // the next statement is not held up by the cancelled one, and makes both names of the job
    const next = views.sync(new AbortController().signal);
    await settle();
    for (const go of schemaWaits.splice(0)) go();
    await next;
    assert.deepEqual(engine.made, ['canvas.users', 'canvas.users__abcdef12']);
    assert.equal(schemaReads, 2, 'the schema is read once for both names of the job (and once by the statement cancelled)');
  });

  it('does not try a job whose files cannot be read again, nor wait for its schema, until its files change', async () => {
    const engine = fakeEngine();
    const logger = logLines();
    const broken = path.join(dir, 'broken.jsonl.gz');
    await fs.writeFile(broken, 'not gzip');
    let schemaReads = 0;
    const sourceOf = async (j: DownloadedJob): Promise<ResultSource> => (schemaReads++, { paths: j.paths });
    const jobs = [job('courses', 'c0ffee0001', [broken]), job('users', 'abcdef1234', [path.join(dir, 'u.jsonl.gz')])];
    const views = new ConsoleViews(engine, () => jobs, logger, undefined, sourceOf);

    await views.sync();
    assert.deepEqual(engine.made, ['canvas.users', 'canvas.users__abcdef12'], 'the other job\'s views are made');
    assert.equal(logger.warnings.length, 1, `the log says once which view is missing: ${logger.warnings.join('\n')}`);
    assert.match(logger.warnings[0], /no view canvas\.courses, as the files of job c0ffee0001 cannot be read/);
    const tries = engine.tries.length;
    const reads = schemaReads;

    for (let statement = 0; statement < 3; statement++) await views.sync();
    assert.equal(engine.tries.length, tries, 'the broken job is not tried on every statement');
    assert.equal(schemaReads, reads, 'nor is its schema waited for');
    assert.equal(logger.warnings.length, 1);

    // downloaded again: the files changed, so its views are tried again
    await fs.writeFile(broken, 'still not gzip, but new');
    await views.sync();
    assert.ok(engine.tries.length > tries, 'a job whose files changed is tried again');
    assert.equal(logger.warnings.length, 2, 'and said again when it still fails');
  });

  it('tries a job again on the next statement when the engine stopped while making its view', async () => {
    const engine = fakeEngine();
    let down = true;
    const registerView = engine.registerView;
    engine.registerView = (name, source) => (down ? Promise.reject(new EngineError('crashed', 'The SQL engine stopped unexpectedly (SIGKILL).')) : registerView(name, source));
    const views = new ConsoleViews(engine, () => [job('users', 'abcdef1234', [path.join(dir, 'u.jsonl.gz')])], logLines(), undefined, async (j) => ({ paths: j.paths }));
    await views.sync();
    assert.deepEqual(engine.made, []);
    down = false;
    await views.sync();
    assert.deepEqual(engine.made, ['canvas.users', 'canvas.users__abcdef12'], 'the files were never at fault');
    assert.deepEqual((await views.list()).map((v) => v.name), ['canvas.users', 'canvas.users__abcdef12']);
  });
});

// Sync of a whole namespace: `dq sync canvas --all` of the emulator's 90 canvas tables (the
// service's list, small tables) into a fresh DuckDB file, against the floor the create-job
// limit sets: with 5 job creations a minute, 90 tables cannot take less than 90 / 5 = 18
// minutes, however fast each table is. To keep the run short, the limit's window is scaled
// down on both sides (the emulator's `limitWindowSec`, and the client's `rateWindowMs`, which
// dq keeps at 60 s): 5 job creations per 5 s, so the floor is 90 s, 12 times faster than the
// service. That is why the sync runs in this process, as dq sync runs it (the client dq makes,
// the DuckDB target, runSync with its default concurrency of 4), rather than as the built CLI,
// whose window is the service's minute. The ratio is the floor over the time: near 1, the
// limit alone decides how long a namespace takes; a client that earned 429s would also wait
// out the Retry-After it was given.

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DataQueryClient } from '../../src/client/dataQueryClient';
import { nullLogger } from '../../src/core/logger';
import { startEmulator } from '../../src/emulator/emulator';
import { runSync } from '../../src/sync/syncRunner';
import { sourceIdentity } from '../../src/sync/syncSource';
import { createTarget, parseTargetSpec } from '../../src/sync/targetSpec';
import { compared, type Figure } from '../figure';

/** job creations per window, as the service allows */
const CREATE_JOB_LIMIT = 5;
const FULL = { windowSec: 5 };
const QUICK = { windowSec: 2 };
/** the service's window */
const SERVICE_WINDOW_SEC = 60;

export const syncAllFigure: Figure = {
  name: 'sync-all',
  title: 'Sync of a whole namespace: dq sync canvas --all (90 tables) against the floor the create-job limit sets',
  async run(ctx) {
    const { windowSec } = ctx.quick ? QUICK : FULL;
    const dir = join(ctx.scratch, 'sync-all');
    await mkdir(join(dir, 'work'), { recursive: true });
    const emulator = await startEmulator({
      limits: { createJob: CREATE_JOB_LIMIT },
      limitWindowSec: windowSec,
      namespaces: ['canvas'],
      cacheDir: join(dir, 'emulator'),
    });
    const client = new DataQueryClient({
      baseUrl: emulator.baseUrl,
      dataPrefix: emulator.dataPrefix,
      credentials: async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }),
      rateWindowMs: windowSec * 1000,
    });
    const target = createTarget(parseTargetSpec(join(dir, 'canvas.duckdb'), { cwd: dir, env: {} }), { logger: nullLogger });
    try {
      await target.open();
      let done = 0;
      const started = Date.now();
      const reports = await runSync({
        client,
        target,
        source: sourceIdentity({ baseUrl: client.baseUrl, dataPrefix: client.dataPrefix, clientId: emulator.clientId }),
        namespace: 'canvas',
        tables: 'all',
        workDir: join(dir, 'work'),
        onProgress: (p) => {
          if (p.stage === 'done' && ++done % 10 === 0) ctx.log(`sync-all: ${done} tables done after ${Math.round((Date.now() - started) / 1000)} s`);
        },
      });
      const seconds = (Date.now() - started) / 1000;
      const failed = reports.filter((r) => r.outcome !== 'synced');
      if (failed.length > 0) throw new Error(`${failed.length} tables did not sync, first ${failed[0].table}: ${failed[0].error?.message ?? failed[0].outcome}`);
      const tables = reports.length;
      const floor = (tables / CREATE_JOB_LIMIT) * windowSec;
      const refused = emulator.requestLog.entries().filter((e) => e.status === 429).length;
      const scale = SERVICE_WINDOW_SEC / windowSec;
      ctx.log(`sync-all: ${tables} tables in ${seconds.toFixed(1)} s, floor ${floor} s; at the service's limit about ${((seconds * scale) / 60).toFixed(1)} min against ${((floor * scale) / 60).toFixed(0)} min`);
      return [
        compared(
          `dq sync canvas --all, ${tables} tables into DuckDB, ${CREATE_JOB_LIMIT} job creations per ${windowSec} s (the service's per minute, ${scale} times faster)`,
          seconds,
          's',
          { label: `the floor: ${tables} tables / ${CREATE_JOB_LIMIT} per ${windowSec} s`, value: floor },
        ),
        compared('429 answers from the emulator during that sync', refused, 'responses', { label: 'a sync paced within the limit' }),
      ];
    } finally {
      await target.close().catch(() => undefined);
      await client.close();
      await emulator.close();
    }
  },
};

// A JobRunner against the emulator over loopback HTTP, with one fake clock for both, so job
// progress, rate windows, polling and paced downloads move only when a test says. A model
// and runner over the same storage stand in for the extension's; `reload` builds new ones
// (a window reload), `clientFor` hands out one client per connection until it is closed.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { nullLogger } from '../../../src/core/logger';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/emulator';
import type { JobEntry, JobState } from '../../../src/jobs/jobEntry';
import { JobRunner, type JobClient } from '../../../src/jobs/jobRunner';
import { JobStore } from '../../../src/jobs/jobStore';
import { JobsModel } from '../../../src/jobs/jobsModel';
import { SincePointStore } from '../../../src/jobs/sincePoints';
import { FakeClock } from '../../support/fakeClock';
import { MemoryStorage } from './memoryStorage';

export interface RunnerFixture {
  clock: FakeClock;
  emu: RunningEmulator;
  storage: MemoryStorage;
  root: string;
  model: JobsModel;
  runner: JobRunner;
  sincePoints: SincePointStore;
  clients: DataQueryClient[];
  /** a fresh model and runner over the same storage: a window reload */
  reload(): { model: JobsModel; runner: JobRunner };
  close(): Promise<void>;
}

export async function startRunner(emulator: EmulatorOptions = {}): Promise<RunnerFixture> {
  const clock = new FakeClock();
  const emu = await startEmulator({ clock, jobDelayMs: 4_000, rows: 300, gzipLevel: 1, namespaces: ['canvas'], ...emulator });
  const storage = new MemoryStorage();
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-runner-'));
  const clients: DataQueryClient[] = [];
  let current: DataQueryClient | undefined;
  const clientFor = async (): Promise<JobClient> => {
    if (!current) {
      current = new DataQueryClient({
        baseUrl: emu.baseUrl,
        dataPrefix: emu.dataPrefix,
        credentials: async () => ({ clientId: emu.clientId, clientSecret: emu.clientSecret }),
        clock,
        random: () => 0.5,
      });
      const mine = current;
      clients.push(mine);
      const close = mine.close.bind(mine);
      mine.close = async () => {
        if (current === mine) current = undefined;
        await close();
      };
    }
    return current;
  };
  const runners: JobRunner[] = [];
  const build = (): { model: JobsModel; runner: JobRunner } => {
    const model = new JobsModel(new JobStore(storage), clock, nullLogger);
    const runner = new JobRunner({
      model,
      sincePoints: new SincePointStore(storage),
      clientFor,
      resultsRoot: async () => root,
      downloadSettings: () => ({ decompress: false, concurrency: 2, sha256: false }),
      clock,
      logger: nullLogger,
    });
    runners.push(runner);
    return { model, runner };
  };
  const { model, runner } = build();
  return {
    clock,
    emu,
    storage,
    root,
    model,
    runner,
    sincePoints: new SincePointStore(storage),
    clients,
    reload: build,
    async close() {
      for (const r of runners) r.dispose();
      for (const c of clients) await c.close();
      await emu.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** Resolves when the entry reaches `state` (and `also` holds). */
export function waitFor(model: JobsModel, key: string, state: JobState, also: (e: JobEntry) => boolean = () => true): Promise<void> {
  return waitUntil(model, key, (e) => e.state === state && also(e));
}

/** Resolves when the entry found by `key` satisfies `test`. */
export function waitUntil(model: JobsModel, key: string, test: (e: JobEntry) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const e = model.get(key);
      return e !== undefined && test(e);
    };
    if (check()) return resolve();
    const sub = model.onDidChange(() => {
      if (!check()) return;
      sub.dispose();
      resolve();
    });
  });
}

/** Every regular file below `dir` whose name does not start with a dot. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => path.join(e.parentPath, e.name));
}

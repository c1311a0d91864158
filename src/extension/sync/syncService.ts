// Runs the editor's syncs through the sync host and keeps the synced-tables model current.
// Runs on one target take turns (a second waits for the first, saying so), and so does reading
// the target's meta table, so this window never competes with itself for the database file.
// A PostgreSQL server that a workspace's settings name is connected to only once the user
// allowed it (see syncTargetConsent.ts): a run asks first or is refused, and its meta table is
// not read before. Pure apart from the host it is given: no `vscode` import.


import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { cancelledError, DqError, isDqError } from '../../client/errors';
import type { Logger } from '../../core/logger';
import type { SyncHostClient } from '../../sync/syncHostClient';
import type { SyncServiceConfig } from '../../sync/syncProtocol';
import type { SyncProgress, TableSyncReport } from '../../sync/syncReport';
import type { SyncedTablesModel } from './syncedTablesModel';
import type { ConsentAnswer, ConsentQuestion, SyncTargetConsent } from './syncTargetConsent';
import type { SyncTargetChoice } from './syncTargetSetting';
import { failureReason } from './syncTexts';
import { makeFolder } from '../../core/makeFolder';

export interface SyncRequest {
  connection: string;
  namespace: string;
  /** the tables, or every table of the namespace */
  tables: string[] | 'all';
  resnapshot: boolean;
}

export interface SyncRunOptions {
  onProgress?(progress: SyncProgress): void;
  /** the run waits for another run (or a reading) of the same target to end */
  onWaiting?(): void;
  signal?: AbortSignal;
  /** asks the user to allow a server the workspace's settings name; without it, such a run is refused until allowed */
  ask?(question: ConsentQuestion): Thenable<ConsentAnswer>;
}

export interface SyncOutcome {
  reports: TableSyncReport[];
  target: SyncTargetChoice;
}

export interface SyncServiceDeps {
  host: Pick<SyncHostClient, 'run' | 'listStates'>;
  model: SyncedTablesModel;
  /** the connection's service and credentials, read at the moment of the run */
  serviceFor(connection: string): Promise<SyncServiceConfig>;
  /** the target the settings name now; throws a usage DqError when the setting cannot be used */
  target(): SyncTargetChoice;
  /** where runs keep their downloads while applying them */
  workDir: string;
  logger: Logger;
  /** whether the user allowed the target (a server named by a workspace's settings); every target is allowed without it */
  consent?: Pick<SyncTargetConsent, 'confirm' | 'mayConnect'>;
}

export class SyncService {
  /** per target: the tail of the runs and readings waiting their turn */
  private readonly turns = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: SyncServiceDeps) {}

  async run(request: SyncRequest, options: SyncRunOptions = {}): Promise<SyncOutcome> {
    const { model, logger } = this.deps;
    const target = this.deps.target();
    await this.deps.consent?.confirm(target, options.ask);
    model.useTarget(target.spec, target.label);
    const service = await this.deps.serviceFor(request.connection);
    const reports = await this.inTurn(target.spec, options, async () => {
      if (target.kind === 'duckdb') await makeDatabaseFolder(path.dirname(target.path));
      const what = request.tables === 'all' ? `every table of ${request.namespace}` : request.tables.map((t) => `${request.namespace}.${t}`).join(', ');
      logger.info(`Sync of ${what} from "${request.connection}" to ${target.label}${request.resnapshot ? ' (fresh snapshot)' : ''} started.`);
      try {
        const done = await this.deps.host.run(
          { service, target: target.spec, namespace: request.namespace, tables: request.tables, resnapshot: request.resnapshot, workDir: this.deps.workDir },
          (p) => {
            model.progress(request.connection, p);
            options.onProgress?.(p);
          },
          options.signal,
        );
        await model.applyReports(target.spec, request.connection, done, service.source);
        for (const r of done) {
          if (r.outcome === 'failed') logger.error(`Sync of ${r.namespace}.${r.table} to ${target.label} failed: ${failureReason(r)}`);
          else logger.info(`Sync of ${r.namespace}.${r.table} to ${target.label}: ${r.outcome}${r.rows === undefined ? '' : `, ${r.rows} rows`}${r.point ? `, data as of ${r.point}` : ''}.`);
        }
        return done;
      } finally {
        model.endActivity(request.connection, request.namespace);
      }
    });
    void this.refresh();
    return { reports, target };
  }

  /** Asks the user to allow the target now, when it needs that; throws as `run` would refuse it. */
  async confirmTarget(ask: NonNullable<SyncRunOptions['ask']>): Promise<void> {
    await this.deps.consent?.confirm(this.deps.target(), ask);
  }

  /** Reads the target's meta table into the model. Failures are logged, never thrown. */
  async refresh(): Promise<void> {
    let target: SyncTargetChoice;
    try {
      target = this.deps.target();
    } catch (err) {
      this.deps.logger.warn(`Synced tables are not shown: ${isDqError(err) ? err.describe() : String(err)}`);
      return;
    }
    this.deps.model.useTarget(target.spec, target.label);
    if (this.deps.consent && !this.deps.consent.mayConnect(target)) {
      this.deps.model.replaceStates(target.spec, []);
      this.deps.logger.info(`The synced tables of ${target.label} are read once a sync to it is allowed (the workspace's settings name it).`);
      return;
    }
    if (target.kind === 'duckdb' && !existsSync(target.path)) {
      this.deps.model.replaceStates(target.spec, []);
      return;
    }
    try {
      const states = await this.inTurn(target.spec, {}, () => this.deps.host.listStates(target.spec));
      this.deps.model.replaceStates(target.spec, states);
    } catch (err) {
      this.deps.logger.warn(`The synced tables of ${target.label} could not be read: ${isDqError(err) ? err.describe() : String(err)}`);
    }
  }

  /** Runs `task` when the runs before it on the same target have ended. */
  private async inTurn<T>(spec: string, options: SyncRunOptions, task: () => Promise<T>): Promise<T> {
    const before = this.turns.get(spec) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = before.then(() => mine);
    this.turns.set(spec, tail);
    try {
      if (!(await settledQuickly(before))) {
        options.onWaiting?.();
        await waitOrCancel(before, options.signal);
      }
      return await task();
    } finally {
      release();
      if (this.turns.get(spec) === tail) this.turns.delete(spec);
    }
  }
}

async function makeDatabaseFolder(folder: string): Promise<void> {
  try {
    await makeFolder(folder);
  } catch (err) {
    throw new DqError('io', `The folder ${folder} for the sync database cannot be made (${(err as NodeJS.ErrnoException).code ?? String(err)}).`, {
      hint: 'Choose another place in the dataQuery.sync.target setting.',
    });
  }
}

/** True when `promise` has already settled (checked after the current microtasks). */
async function settledQuickly(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([promise.then(() => undefined, () => undefined), Promise.resolve().then(() => pending)]);
  return first !== pending;
}

function waitOrCancel(promise: Promise<unknown>, signal?: AbortSignal): Promise<void> {
  const settled = promise.then(() => undefined, () => undefined);
  if (!signal) return settled;
  if (signal.aborted) return Promise.reject(cancelledError('The sync', { after: ' while it waited for another sync of the same database.' }));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(cancelledError('The sync', { after: ' while it waited for another sync of the same database.' }));
    signal.addEventListener('abort', onAbort, { once: true });
    void settled.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

// The data-lake sync target: each table as Parquet files in an object store (S3 or one like it)
// under `<prefix>/<namespace>/<table>/`, listed by a Hive symlink manifest that Athena, Trino,
// Spark and DuckDB read as the table, with `_dq/state.json` as its meta row (see lakeState.ts).
// Its parts: the layout of a table's folder (lakeLayout.ts), the state and manifest
// (lakeStateFile.ts), the lock object (lakeLock.ts), the apply (lakeApply.ts, with the DuckDB
// work in lakeParquet.ts) and what is kept and deleted (lakeRetention.ts). The target knows the
// store only through `ObjectStore`; opened read-only (sync status) it writes nothing.

import * as os from 'node:os';
import { DqError } from '../client/errors';
import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { applyToLake, type LakeApplyResult } from './lakeApply';
import { DEFAULT_TUNING, newRunId, parquetName, TableLayout, type LakeTuning } from './lakeLayout';
import { holdsLakeLock, takeLakeLock } from './lakeLock';
import { DEFAULT_RETAIN_HOURS, type LakeTargetOptions } from './lakeOptions';
import type { LakeState, LakeStateReader } from './lakeState';
import { listLakeStates, mendManifest, readLakeState, storeFailure, writeLakeState } from './lakeStateFile';
import type { ObjectStore } from './objectStore';
import type { ApplyPlan, SyncedTable, SyncState, SyncTarget } from './syncTarget';
import { DEFAULT_LOCK_WAIT_MS, type ReleaseLock } from './targetLock';
import { checkColumnNames, tableKey } from './targetNames';

const HOUR = 3_600_000;

function syncStateOf(s: LakeState): SyncState {
  return {
    namespace: s.namespace,
    table: s.table,
    point: s.point,
    schemaVersion: s.schemaVersion,
    schema: s.schema,
    rows: s.rows,
    ranAt: s.ranAt,
    ...(s.source === undefined ? {} : { source: s.source }),
  };
}

export class LakeTarget implements SyncTarget, LakeStateReader {
  readonly label: string;
  readonly namingRule = 'Athena, Trino and Spark take column names in lower case, with a-z, 0-9 and _ only (any other character is stored as _)';
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly tuning: LakeTuning;
  private store?: ObjectStore;
  /** the run id of each table this target holds the lock of, by table key */
  private readonly held = new Map<string, { run: string; release: ReleaseLock; previousHolderGone: boolean }>();
  /** what the last apply of each table wrote (for figures and tests) */
  readonly lastApply = new Map<string, LakeApplyResult>();

  constructor(
    private readonly options: LakeTargetOptions,
    tuning: Partial<LakeTuning> = {},
  ) {
    this.label = options.label;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger;
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
  }

  async open(): Promise<void> {
    if (this.store) return;
    this.store = await this.options.openStore();
  }

  nameKey(name: string): string {
    return parquetName(name);
  }

  tableLocation(namespace: string, table: string): string {
    return `s3://${this.options.bucket}/${this.layout(namespace, table).folder}`;
  }

  async lakeState(namespace: string, table: string): Promise<LakeState | undefined> {
    try {
      return (await readLakeState(this.opened(), this.layout(namespace, table))).state;
    } catch (err) {
      throw storeFailure(err, `the state of ${namespace}.${table}`);
    }
  }

  async lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
    if (this.options.readOnly) throw this.readOnlyError();
    const key = tableKey(this, namespace, table);
    const run = newRunId(this.clock.now());
    const layout = this.layout(namespace, table);
    const release = await takeLakeLock({
      store: this.opened(),
      key: layout.lock,
      name: `${namespace}.${table}`,
      clock: this.clock,
      logger: this.logger,
      waitMs: this.options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
      ttlMs: this.tuning.lockTtlMs,
      run,
      signal,
    }).catch((err) => Promise.reject(storeFailure(err, `the lock of ${namespace}.${table}`)));
    const entry = { run, previousHolderGone: release.previousHolderGone, release: async () => {
      if (this.held.get(key) === entry) this.held.delete(key);
      await release();
    } };
    this.held.set(key, entry);
    try {
      // a run killed between its state and its manifest: the manifest first, whether this run applies anything or not
      const { state } = await readLakeState(this.opened(), layout, signal);
      if (state && (await mendManifest(this.opened(), layout, state, signal))) {
        this.logger.info(`${namespace}.${table}: the manifest did not match the state (a sync stopped between them); wrote it again.`);
      }
    } catch (err) {
      await entry.release().catch(() => undefined);
      throw storeFailure(err, `the manifest of ${namespace}.${table}`);
    }
    return entry.release;
  }

  async readState(namespace: string, table: string): Promise<SyncState | undefined> {
    const state = await this.lakeState(namespace, table);
    return state && syncStateOf(state);
  }

  async listStates(): Promise<SyncState[]> {
    return (await this.allStates()).map(syncStateOf);
  }

  async syncedTables(): Promise<SyncedTable[]> {
    return (await this.allStates()).map((s) => ({ namespace: s.namespace, table: s.table }));
  }

  /** The table is there when its state is and every file the state lists is too. */
  async hasTable(namespace: string, table: string): Promise<boolean> {
    const state = await this.lakeState(namespace, table);
    if (!state) return false;
    const store = this.opened();
    const present = new Set((await store.list(this.layout(namespace, table).data)).map((o) => o.key));
    return state.files.every((f) => present.has(f.key));
  }

  async adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    if (this.options.readOnly) return;
    const store = this.opened();
    const layout = this.layout(namespace, table);
    const read = await readLakeState(store, layout);
    if (!read.state || !(read.state.source === undefined || read.state.source === replacing)) return;
    await writeLakeState(store, layout, { ...read.state, source }, read).catch((err) => Promise.reject(storeFailure(err, `the state of ${namespace}.${table}`)));
  }

  async apply(plan: ApplyPlan): Promise<LakeApplyResult> {
    checkColumnNames(this, plan.table);
    if (this.options.readOnly) throw this.readOnlyError();
    const { namespace, table } = plan.table;
    const key = tableKey(this, namespace, table);
    let held = this.held.get(key);
    let own: ReleaseLock | undefined;
    if (!held) {
      own = await this.lockTable(namespace, table, plan.signal);
      held = this.held.get(key)!;
    }
    const store = this.opened();
    const layout = this.layout(namespace, table);
    const run = held.run;
    try {
      const result = await applyToLake(
        {
          store,
          layout,
          tuning: this.tuning,
          clock: this.clock,
          logger: this.logger,
          workDir: this.options.workDir ?? os.tmpdir(),
          retainMs: (this.options.retainHours ?? DEFAULT_RETAIN_HOURS) * HOUR,
          compact: this.options.compact === true,
          run: held.run,
          strayOwnersGone: held.previousHolderGone,
          checkLock: async () => {
            if (await holdsLakeLock(store, layout.lock, run)) return;
            throw new DqError('io', `The lock of ${namespace}.${table} was taken over by another sync while this one ran (it could not be renewed in time); this run's files are not part of the table.`, {
              hint: 'Sync the table again once the other sync has finished.',
            });
          },
        },
        plan,
      );
      this.lastApply.set(`${namespace}.${table}`, result);
      return result;
    } finally {
      await own?.();
    }
  }

  async close(): Promise<void> {
    const store = this.store;
    if (!store) return;
    for (const { release } of [...this.held.values()]) await release().catch(() => undefined);
    this.store = undefined;
    await store.close();
  }

  private async allStates(): Promise<LakeState[]> {
    try {
      return await listLakeStates(this.opened(), this.options.prefix);
    } catch (err) {
      throw storeFailure(err, `the tables under ${this.label}`);
    }
  }

  private layout(namespace: string, table: string): TableLayout {
    return new TableLayout(this.options.prefix, namespace, table);
  }

  private opened(): ObjectStore {
    if (!this.store) throw new DqError('usage', `The lake target ${this.label} is not open.`, { hint: 'Call open() first.' });
    return this.store;
  }

  private readOnlyError(): DqError {
    return new DqError('usage', `The lake target ${this.label} was opened read-only.`);
  }
}

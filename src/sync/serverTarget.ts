// What the sync targets on a database server (MySQL, PostgreSQL) share: their options, and the
// calls that are the same for both. The meta table answers what was synced and takes the
// sources; each table's lock is held on a session of its own (serverTableLock.ts); an apply is
// refused when the target was opened only to read or the table has no key columns, before the
// server's own apply; closing releases every lock still held, then the meta table's session.
// Each server's SQL, sessions and errors stay in its own files.

import { DqError } from '../client/errors';
import { systemClock, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { keepAliveOption, type LockSession, type ServerTableLockOptions, type ServerTableLocks } from './serverTableLock';
import type { ApplyPlan, ApplyResult, SyncedTable, SyncState, SyncTarget } from './syncTarget';
import { DEFAULT_LOCK_WAIT_MS, type ReleaseLock } from './targetLock';

/** What a server target is told besides where the server is (its endpoint's options: URL, password sources). */
export interface ServerTargetOptions {
  logger: Logger;
  clock?: Clock;
  /** how long `lockTable` waits for another sync to finish the table (default 30 s) */
  lockWaitMs?: number;
  /**
   * how often a session holding a table's lock runs a light statement while the job runs and
   * its files download (default 30 s; a third of the server's idle timeout when that is
   * shorter), so that nothing closes it as idle
   */
  keepAliveMs?: number;
  /** only reads the meta table (dq sync-status): creates and changes nothing */
  readOnly?: boolean;
}

/** The meta table `dq_sync_state` as a server target keeps it. */
export interface ServerMetaTable {
  open(): Promise<void>;
  read(namespace: string, table: string): Promise<SyncState | undefined>;
  list(): Promise<SyncState[]>;
  syncedTables(): Promise<SyncedTable[]>;
  adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void>;
  close(): Promise<void>;
}

/** The server as messages name it, and how it says a step was stopped. */
export interface ServerKind {
  /** `MySQL` */
  name: string;
  cancelled(doing: string): DqError;
}

export abstract class ServerTarget<E extends { readonly label: string }> implements SyncTarget {
  readonly label: string;
  abstract readonly namingRule: string;
  protected abstract readonly meta: ServerMetaTable;
  protected abstract readonly locks: ServerTableLocks<LockSession, unknown>;
  protected readonly logger: Logger;
  protected readonly clock: Clock;
  protected readonly readOnly: boolean;
  protected readonly lockWaitMs: number;
  /** the keep-alive interval the locks are given */
  private readonly keepAliveMs: number;

  constructor(
    /** the server the target's sessions are opened on */
    protected readonly endpoint: E,
    private readonly kind: ServerKind,
    options: ServerTargetOptions,
  ) {
    this.label = endpoint.label;
    this.logger = options.logger;
    this.clock = options.clock ?? systemClock;
    this.readOnly = options.readOnly === true;
    this.lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
    this.keepAliveMs = keepAliveOption(options.keepAliveMs);
  }

  /** What the target's locks are given. */
  protected lockOptions(): ServerTableLockOptions<E> {
    return { endpoint: this.endpoint, logger: this.logger, clock: this.clock, lockWaitMs: this.lockWaitMs, keepAliveMs: this.keepAliveMs };
  }

  abstract nameKey(name: string): string;

  abstract hasTable(namespace: string, table: string): Promise<boolean>;

  /** Applies a plan the checks of `apply` let through. */
  protected abstract applyChecked(plan: ApplyPlan): Promise<ApplyResult>;

  async open(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw this.kind.cancelled('connecting');
    await this.meta.open();
  }

  lockTable(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
    return this.locks.take(namespace, table, signal);
  }

  readState(namespace: string, table: string): Promise<SyncState | undefined> {
    return this.meta.read(namespace, table);
  }

  listStates(): Promise<SyncState[]> {
    return this.meta.list();
  }

  syncedTables(): Promise<SyncedTable[]> {
    return this.meta.syncedTables();
  }

  adoptSource(namespace: string, table: string, source: string, replacing?: string): Promise<void> {
    return this.meta.adoptSource(namespace, table, source, replacing);
  }

  async apply(plan: ApplyPlan): Promise<ApplyResult> {
    const { table } = plan;
    if (this.readOnly) throw new DqError('usage', `${this.kind.name} at ${this.label} was opened only to read what was synced.`);
    if (!table.columns.some((c) => c.key)) throw new DqError('usage', `${table.namespace}.${table.table} has no key columns, so its rows cannot be merged.`);
    return this.applyChecked(plan);
  }

  async close(): Promise<void> {
    await this.locks.releaseAll();
    await this.meta.close();
  }
}

// Table lists and schemas of each connection, the one source the Explorer, the schema page, the
// schema commands, the jobs, the preview and the sync read. Copies are kept in the extension's
// storage with the time they were read: a fresh one is answered without a call, a stale one
// (older than 4 hours) or a forced one is read from the service and kept. Every change (a list
// or schema kept, forgotten, or a read that failed) fires onDidChange; the last failure of each
// table's schema read (and each namespace's listing) is kept until a read of it works or it is
// forgotten. Pure: no `vscode` import, so plain Node tests drive it with a fake clock.

import { DqError, isCancelled } from '../../client/errors';
import type { CallOptions, Priority } from '../../client/types';
import type { Clock } from '../../core/clock';
import { readCatalog, type CatalogRead, type CatalogReadOptions, type CatalogSource } from '../../core/columnSearch';
import type { SchemaEnvelope } from '../../core/contract';
import { SchemaCache, type CacheStorage, type Cached } from '../../core/schemaCache';
import { Emitter } from '../../core/emitter';
import type { ClientPool } from '../connections/clientPool';
import { connectionIdentity, type Connection } from '../connections/connectionConfig';

export interface SchemaRead {
  priority?: Priority;
  /** read from the service even when a fresh copy is kept */
  force?: boolean;
  signal?: AbortSignal;
}

/**
 * What changed, by connection name: a namespace's table list (no table) or a table's schema was
 * kept (`saved`) or forgotten (no namespace: everything of the connection), or a read failed.
 */
export interface SchemaChange {
  what: 'saved' | 'forgotten' | 'failed';
  connection: string;
  namespace?: string;
  table?: string;
}

/** A read that failed, kept until one of the same list or schema works. */
export interface SchemaFailure {
  error: unknown;
  /** ms since the epoch */
  at: number;
}

/** The cache, telling the model of each change as it is made (also those readCatalog makes). */
class ObservedCache extends SchemaCache {
  constructor(
    storage: CacheStorage,
    clock: Pick<Clock, 'now'>,
    private readonly changed: (key: string, what: 'saved' | 'forgotten', namespace?: string, table?: string) => void,
  ) {
    super(storage, clock);
  }

  override saveTables(key: string, namespace: string, tables: string[]): Promise<Cached<string[]>> {
    const saving = super.saveTables(key, namespace, tables);
    this.changed(key, 'saved', namespace);
    return saving;
  }

  override saveSchema(key: string, namespace: string, table: string, envelope: SchemaEnvelope): Promise<Cached<SchemaEnvelope>> {
    const saving = super.saveSchema(key, namespace, table, envelope);
    this.changed(key, 'saved', namespace, table);
    return saving;
  }

  override forget(key: string, namespace?: string, table?: string): Promise<void> {
    const forgetting = super.forget(key, namespace, table);
    this.changed(key, 'forgotten', namespace, table);
    return forgetting;
  }
}

export class SchemaModel {
  private readonly cache: ObservedCache;
  private readonly changes = new Emitter<SchemaChange>();
  readonly onDidChange = this.changes.event;
  /** connection name by key, for the events (a key names the service and account too) */
  private readonly names = new Map<string, string>();
  /** by failureKey */
  private readonly failures = new Map<string, SchemaFailure>();

  constructor(
    storage: CacheStorage,
    private readonly pool: Pick<ClientPool, 'session'>,
    private readonly clock: Clock,
  ) {
    this.cache = new ObservedCache(storage, clock, (key, what, namespace, table) => {
      this.clearFailures(key, namespace, table);
      this.changes.fire({ what, connection: this.names.get(key) ?? key, namespace, table });
    });
  }

  /** Whose lists and schemas: a connection's name and the service and account it points at. */
  keyOf(connection: Connection): string {
    const key = connectionIdentity(connection);
    this.names.set(key, connection.name);
    return key;
  }

  isStale(entry: Cached<unknown>): boolean {
    return this.cache.isStale(entry);
  }

  /** The table list kept for a namespace, fresh or stale, without reading. */
  heldTables(connection: Connection, namespace: string): Cached<string[]> | undefined {
    return this.cache.tables(this.keyOf(connection), namespace);
  }

  /** The schema kept for a table, fresh or stale, without reading. */
  heldSchema(connection: Connection, namespace: string, table: string): Cached<SchemaEnvelope> | undefined {
    return this.cache.schema(this.keyOf(connection), namespace, table);
  }

  saveTables(connection: Connection, namespace: string, tables: string[]): Promise<Cached<string[]>> {
    return this.cache.saveTables(this.keyOf(connection), namespace, tables);
  }

  saveSchema(connection: Connection, namespace: string, table: string, envelope: SchemaEnvelope): Promise<Cached<SchemaEnvelope>> {
    return this.cache.saveSchema(this.keyOf(connection), namespace, table, envelope);
  }

  /** Forgets a table's schema, a namespace's table list, or everything of a connection. */
  forget(connection: Connection, namespace?: string, table?: string): Promise<void> {
    return this.cache.forget(this.keyOf(connection), namespace, table);
  }

  /** The last failed read of a table's schema (with a table) or a namespace's list, until one works. */
  failureOf(connection: Connection, namespace: string, table?: string): SchemaFailure | undefined {
    return this.failures.get(failureKey(this.keyOf(connection), namespace, table));
  }

  async schema(connection: Connection, namespace: string, table: string, read: SchemaRead = {}): Promise<Cached<SchemaEnvelope>> {
    const held = this.heldSchema(connection, namespace, table);
    if (held && !read.force && !this.cache.isStale(held)) return held;
    return this.failing(connection, namespace, table, async () => {
      const session = await this.pool.session(connection);
      const signal = read.signal ? AbortSignal.any([read.signal, session.signal]) : session.signal;
      const envelope = await session.client.getSchema(namespace, table, { priority: read.priority ?? 'user', signal });
      return this.saveSchema(connection, namespace, table, envelope);
    });
  }

  /**
   * A table's schema for reading its result files: a fresh kept copy at once, else the service's
   * when it answers within `waitMs`, else the kept copy however old; rejects when there is none.
   */
  async schemaWithin(connection: Connection, namespace: string, table: string, waitMs: number): Promise<SchemaEnvelope> {
    const held = this.heldSchema(connection, namespace, table);
    if (held && !this.cache.isStale(held)) return held.value;
    const stop = new AbortController();
    const reading = this.schema(connection, namespace, table, { force: true, signal: stop.signal });
    const late = this.clock.sleep(waitMs, stop.signal).then(
      (): never => {
        throw new DqError('network', `The service did not send the schema of ${namespace}.${table} within ${waitMs / 1000} s.`);
      },
      (): never => {
        throw new DqError('cancelled', 'The schema was not needed any more.');
      },
    );
    try {
      return (await Promise.race([reading, late])).value;
    } catch (err) {
      if (held) return held.value;
      throw err;
    } finally {
      stop.abort();
      reading.catch(() => undefined);
      late.catch(() => undefined);
    }
  }

  async tables(connection: Connection, namespace: string, signal?: AbortSignal, onQueued?: CallOptions['onQueued']): Promise<string[]> {
    const held = this.heldTables(connection, namespace);
    if (held && !this.cache.isStale(held)) return held.value;
    return this.failing(connection, namespace, undefined, async () => {
      const session = await this.pool.session(connection);
      const tables = await session.client.listTables(namespace, { priority: 'user', signal: signal ? AbortSignal.any([signal, session.signal]) : session.signal, onQueued });
      return (await this.saveTables(connection, namespace, tables)).value;
    });
  }

  /**
   * Every table's columns in these namespaces (Find Column): fresh copies as they are, the rest
   * read at background priority, so user actions go first, and kept.
   */
  catalog(connection: Connection, namespaces: readonly string[], options: CatalogReadOptions): Promise<CatalogRead> {
    return readCatalog(this.keyOf(connection), namespaces, this.source(connection), this.cache, options);
  }

  dispose(): void {
    this.changes.dispose();
  }

  /** The service calls behind catalog(): background priority, so user actions go first. */
  private source(connection: Connection): CatalogSource {
    const backgroundCall = async (signal: AbortSignal) => {
      const session = await this.pool.session(connection);
      return { client: session.client, opts: { priority: 'background' as const, signal: AbortSignal.any([signal, session.signal]) } };
    };
    return {
      async listTables(namespace, signal) {
        const { client, opts } = await backgroundCall(signal);
        return client.listTables(namespace, opts);
      },
      async getSchema(namespace, table, signal) {
        const { client, opts } = await backgroundCall(signal);
        return client.getSchema(namespace, table, opts);
      },
    };
  }

  /** Runs a read, keeping its failure (a cancelled read is no failure) and telling of it. */
  private async failing<T>(connection: Connection, namespace: string, table: string | undefined, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (!isCancelled(err)) {
        this.failures.set(failureKey(this.keyOf(connection), namespace, table), { error: err, at: this.clock.now() });
        this.changes.fire({ what: 'failed', connection: connection.name, namespace, table });
      }
      throw err;
    }
  }

  /** Forgets the failures a change supersedes: of that list or schema, or all under a forgotten namespace or connection. */
  private clearFailures(key: string, namespace?: string, table?: string): void {
    if (namespace === undefined) {
      for (const k of [...this.failures.keys()]) if (k.startsWith(`${key}\u0000`)) this.failures.delete(k);
      return;
    }
    this.failures.delete(failureKey(key, namespace, table));
  }
}

function failureKey(key: string, namespace: string, table?: string): string {
  return `${key}\u0000${namespace}\u0000${table ?? ''}`;
}

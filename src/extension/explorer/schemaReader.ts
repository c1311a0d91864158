// Reads table lists and schemas of a connection through the cache kept in the extension's
// storage: a fresh copy is answered without a call, a missing or forced one is read from the
// service and kept. Shared by the tree, the schema page and the schema commands.

import { DqError } from '../../client/errors';
import type { CallOptions, Priority } from '../../client/types';
import type { Clock } from '../../core/clock';
import type { CatalogSource } from '../../core/columnSearch';
import type { SchemaEnvelope } from '../../core/contract';
import type { Cached, SchemaCache } from '../../core/schemaCache';
import type { ClientPool } from '../connections/clientPool';
import { connectionIdentity, type Connection } from '../connections/connectionConfig';

export interface SchemaRead {
  priority?: Priority;
  /** read from the service even when a fresh copy is kept */
  force?: boolean;
  signal?: AbortSignal;
}

export class SchemaReader {
  constructor(
    readonly cache: SchemaCache,
    private readonly pool: ClientPool,
    private readonly clock: Clock,
  ) {}

  /** Whose lists and schemas: a connection's name and the service and account it points at. */
  keyOf(connection: Connection): string {
    return connectionIdentity(connection);
  }

  async schema(connection: Connection, namespace: string, table: string, read: SchemaRead = {}): Promise<Cached<SchemaEnvelope>> {
    const held = this.cache.schema(this.keyOf(connection), namespace, table);
    if (held && !read.force && !this.cache.isStale(held)) return held;
    const session = await this.pool.session(connection);
    const signal = read.signal ? AbortSignal.any([read.signal, session.signal]) : session.signal;
    const envelope = await session.client.getSchema(namespace, table, { priority: read.priority ?? 'user', signal });
    return this.cache.saveSchema(this.keyOf(connection), namespace, table, envelope);
  }

  /**
   * A table's schema for reading its result files: a fresh kept copy at once, else the service's
   * when it answers within `waitMs`, else the kept copy however old; rejects when there is none.
   */
  async schemaWithin(connection: Connection, namespace: string, table: string, waitMs: number): Promise<SchemaEnvelope> {
    const held = this.cache.schema(this.keyOf(connection), namespace, table);
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
    const held = this.cache.tables(this.keyOf(connection), namespace);
    if (held && !this.cache.isStale(held)) return held.value;
    const session = await this.pool.session(connection);
    const tables = await session.client.listTables(namespace, { priority: 'user', signal: signal ? AbortSignal.any([signal, session.signal]) : session.signal, onQueued });
    return (await this.cache.saveTables(this.keyOf(connection), namespace, tables)).value;
  }

  /** The service calls behind find-column: background priority, so user actions go first. */
  source(connection: Connection): CatalogSource {
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
}

// Reads table lists and schemas of a connection through the cache kept in the extension's
// storage: a fresh copy is answered without a call, a missing or forced one is read from the
// service and kept. Shared by the tree, the schema page and the schema commands.

import type { Priority } from '../../client/types';
import type { CatalogSource } from '../../core/columnSearch';
import type { SchemaEnvelope } from '../../core/contract';
import type { Cached, SchemaCache } from '../../core/schemaCache';
import type { ClientPool } from '../connections/clientPool';
import type { Connection } from '../connections/connectionConfig';

export interface SchemaRead {
  priority?: Priority;
  /** read from the service even when a fresh copy is kept */
  force?: boolean;
}

export class SchemaReader {
  constructor(
    readonly cache: SchemaCache,
    private readonly pool: ClientPool,
  ) {}

  /** Whose lists and schemas: a connection's name and the service and account it points at. */
  keyOf(connection: Connection): string {
    return JSON.stringify(connection.kind === 'sample' ? [connection.name] : [connection.name, connection.baseUrl, connection.dataPrefix, connection.scope ?? null]);
  }

  async schema(connection: Connection, namespace: string, table: string, read: SchemaRead = {}): Promise<Cached<SchemaEnvelope>> {
    const held = this.cache.schema(this.keyOf(connection), namespace, table);
    if (held && !read.force && !this.cache.isStale(held)) return held;
    const session = await this.pool.session(connection);
    const envelope = await session.client.getSchema(namespace, table, { priority: read.priority ?? 'user', signal: session.signal });
    return this.cache.saveSchema(this.keyOf(connection), namespace, table, envelope);
  }

  async tables(connection: Connection, namespace: string, signal?: AbortSignal): Promise<string[]> {
    const held = this.cache.tables(this.keyOf(connection), namespace);
    if (held && !this.cache.isStale(held)) return held.value;
    const session = await this.pool.session(connection);
    const tables = await session.client.listTables(namespace, { priority: 'user', signal: signal ? AbortSignal.any([signal, session.signal]) : session.signal });
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

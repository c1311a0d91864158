// Table lists and schemas of each connection, kept in a key-value storage (VS Code's global
// state, or a file for dq) with the time they were read. Listing tables is allowed only a few
// times a minute and the service refreshes its data every 4 hours, so a copy is fresh for 4
// hours and stale after; stale copies are still returned, for callers to show while they ask again.
// The storage is read once per connection and then only written: VS Code's global state can
// answer an older copy for a while after a write (the window's echo of an earlier one), and
// reading it back would lose what was saved meanwhile. Writes made close together go out as one.

import type { Clock } from './clock';
import type { SchemaEnvelope } from './contract';
import { isRecord } from './isRecord';

export const STALE_AFTER_MS = 4 * 60 * 60 * 1000;

export interface CacheStorage {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export interface Cached<T> {
  value: T;
  /** when it was read from the service, ms since the epoch */
  readAt: number;
}

interface ConnectionCatalog {
  tables: Record<string, Cached<string[]>>;
  schemas: Record<string, Cached<SchemaEnvelope>>;
}

const KEY_PREFIX = 'dataQuery.catalog.';

export class SchemaCache {
  /** each connection's catalog as read from the storage once, then kept current here */
  private readonly catalogs = new Map<string, ConnectionCatalog>();
  /** per connection: the write that has not started yet (it will carry every change made before it starts) */
  private readonly queued = new Map<string, Promise<void>>();
  /** per connection: the last write asked for, so writes go out in order */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly storage: CacheStorage,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  isStale(entry: Cached<unknown>): boolean {
    return this.clock.now() - entry.readAt >= STALE_AFTER_MS;
  }

  tables(connection: string, namespace: string): Cached<string[]> | undefined {
    return this.read(connection).tables[namespace];
  }

  schema(connection: string, namespace: string, table: string): Cached<SchemaEnvelope> | undefined {
    return this.read(connection).schemas[schemaKey(namespace, table)];
  }

  saveTables(connection: string, namespace: string, tables: string[]): Promise<Cached<string[]>> {
    return this.change(connection, (c) => (c.tables[namespace] = { value: tables, readAt: this.clock.now() }));
  }

  saveSchema(connection: string, namespace: string, table: string, envelope: SchemaEnvelope): Promise<Cached<SchemaEnvelope>> {
    return this.change(connection, (c) => (c.schemas[schemaKey(namespace, table)] = { value: envelope, readAt: this.clock.now() }));
  }

  /** Forgets a table's schema, a namespace's table list, or everything of a connection. */
  async forget(connection: string, namespace?: string, table?: string): Promise<void> {
    await this.change(connection, (c) => {
      if (namespace === undefined) {
        c.tables = {};
        c.schemas = {};
      } else if (table !== undefined) {
        delete c.schemas[schemaKey(namespace, table)];
      } else {
        delete c.tables[namespace];
      }
    });
  }

  private read(connection: string): ConnectionCatalog {
    const known = this.catalogs.get(connection);
    if (known) return known;
    const catalog = parseCatalog(this.storage.get<unknown>(KEY_PREFIX + connection));
    this.catalogs.set(connection, catalog);
    return catalog;
  }

  /** Edits the catalog now (readers see it at once); resolves once a write that includes the edit is done. */
  private async change<T>(connection: string, edit: (catalog: ConnectionCatalog) => T): Promise<T> {
    const result = edit(this.read(connection));
    await this.persist(connection);
    return result;
  }

  private persist(connection: string): Promise<void> {
    const queued = this.queued.get(connection);
    if (queued) return queued;
    const write = async (): Promise<void> => {
      this.queued.delete(connection);
      const catalog = this.read(connection);
      const empty = Object.keys(catalog.tables).length === 0 && Object.keys(catalog.schemas).length === 0;
      await this.storage.update(KEY_PREFIX + connection, empty ? undefined : catalog);
    };
    // after the previous write, whether it worked or not: this one writes everything anyway
    const next = (this.writing.get(connection) ?? Promise.resolve()).then(write, write);
    this.queued.set(connection, next);
    this.writing.set(connection, next);
    return next;
  }
}

function parseCatalog(raw: unknown): ConnectionCatalog {
  const catalog: ConnectionCatalog = { tables: {}, schemas: {} };
  if (!isRecord(raw)) return catalog;
  for (const [ns, entry] of Object.entries(isRecord(raw.tables) ? raw.tables : {})) {
    if (isCached(entry) && Array.isArray(entry.value) && entry.value.every((t) => typeof t === 'string')) catalog.tables[ns] = entry as Cached<string[]>;
  }
  for (const [key, entry] of Object.entries(isRecord(raw.schemas) ? raw.schemas : {})) {
    if (isCached(entry) && isRecord(entry.value) && typeof entry.value.version === 'number' && isRecord(entry.value.schema)) {
      catalog.schemas[key] = entry as Cached<SchemaEnvelope>;
    }
  }
  return catalog;
}

function schemaKey(namespace: string, table: string): string {
  return `${namespace}/${table}`;
}

function isCached(entry: unknown): entry is Cached<unknown> {
  return isRecord(entry) && typeof entry.readAt === 'number' && 'value' in entry;
}

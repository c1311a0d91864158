// Database files (synced databases) a console statement runs on: attached read-only for the
// requests that use them and detached as soon as none does, so a file is never held idle.
// ATTACH and DETACH run one at a time, with the results' tables' own attachments (resultStore.ts).

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { EngineError, toEngineError } from './engineErrors';
import type { AttachedDatabase } from './engineProtocol';
import { lockHolder } from './lockHolder';
import { quoteIdent, quoteString } from './sqlText';
import { SerialQueue } from '../core/serialQueue';

/** Catalog names DuckDB keeps for itself: a database is never attached under them. */
const RESERVED_ALIASES = new Set(['memory', 'system', 'temp', 'main']);

/** A database file attached read-only, and how many requests use it now. */
interface Attachment {
  path: string;
  users: number;
}

export class AttachedDatabases {
  private readonly attachments = new Map<string, Attachment>();
  /** ATTACH and DETACH run one at a time, so a detach never races an attach of the same name */
  private readonly catalogWork = new SerialQueue();

  constructor(
    private readonly db: DuckDBInstance,
    private readonly log: (message: string) => void,
  ) {}

  /** Runs `task` with `database` attached and as the connection's default catalog. */
  async onDatabase<T>(conn: DuckDBConnection, database: AttachedDatabase | undefined, task: () => Promise<T>): Promise<T> {
    if (!database) return task();
    await this.attach(database);
    try {
      await conn.run(`USE ${quoteIdent(database.alias)}`);
      return await task();
    } finally {
      await this.detach(database);
    }
  }

  /** Runs `task` (an ATTACH or DETACH) after those before it: the catalog changes one at a time. */
  oneAtATime<T>(task: () => Promise<T>): Promise<T> {
    return this.catalogWork.run(task);
  }

  private attach(database: AttachedDatabase): Promise<void> {
    return this.oneAtATime(async () => {
      const held = this.attachments.get(database.alias);
      if (held && held.path === database.path) {
        held.users++;
        return;
      }
      if (held) throw new EngineError('io', `Another database is open as "${database.alias}" for a statement still running. Run this one again when it has finished.`);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database.alias) || RESERVED_ALIASES.has(database.alias.toLowerCase())) {
        throw new EngineError('syntax', `"${database.alias}" cannot name an attached database: use a plain name other than ${[...RESERVED_ALIASES].join(', ')}.`);
      }
      const conn = await this.db.connect();
      try {
        await conn.run(`ATTACH ${quoteString(database.path)} AS ${quoteIdent(database.alias)} (READ_ONLY)`);
      } catch (err) {
        throw attachError(database, err);
      } finally {
        conn.closeSync();
      }
      this.attachments.set(database.alias, { path: database.path, users: 1 });
    });
  }

  private detach(database: AttachedDatabase): Promise<void> {
    return this.oneAtATime(async () => {
      const held = this.attachments.get(database.alias);
      if (!held || held.path !== database.path || --held.users > 0) return;
      this.attachments.delete(database.alias);
      const conn = await this.db.connect();
      try {
        await conn.run(`DETACH ${quoteIdent(database.alias)}`);
      } catch (err) {
        this.log(`database ${database.alias} could not be detached: ${toEngineError(err).message}`);
      } finally {
        conn.closeSync();
      }
    });
  }
}

/** Why a database file could not be opened, in words that say what to do. */
function attachError(database: AttachedDatabase, err: unknown): EngineError {
  const raw = err instanceof Error ? err.message : String(err);
  const holder = lockHolder(raw);
  if (holder) {
    const who = [holder.program, holder.pid === undefined ? undefined : `PID ${holder.pid}`].filter(Boolean).join(', ');
    return new EngineError(
      'io',
      `The database ${database.path} is open for writing by another process${who ? ` (${who})` : ''}, such as a sync that is running. Run the statement again when it has finished.`,
    );
  }
  if (/database does not exist/i.test(raw)) {
    return new EngineError('io', `There is no database at ${database.path} yet. Sync a table first, then run the statement again.`);
  }
  return toEngineError(err);
}

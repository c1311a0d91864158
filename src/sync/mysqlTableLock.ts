// The table locks of the MySQL target: a user-level lock (GET_LOCK) per table, named from the
// database and the table's name key (see mysqlSql.ts), so names MySQL may hold as one table share
// one lock, across processes and machines. Each table is applied on the session that holds its
// lock, from before the job is made until the apply ends; while the job runs and its files
// download, that session runs a light statement now and then, so that nothing (wait_timeout, a
// proxy, a firewall) closes it as idle. The session's end releases the lock in any case, so a
// killed sync holds nothing. A lock another session holds is waited for a bounded time, saying
// so once (as a warning) and naming the holder: its connection id, user and host.

import { DqError } from '../client/errors';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { MysqlEndpoint, MysqlSession } from './mysqlConnection';
import { maskPassword, mysqlCancelled, mysqlError } from './mysqlErrors';
import { mysqlNameKey, shownTable, tableLockName, tableName } from './mysqlSql';
import { releaseOnce, type ReleaseLock } from './targetLock';
import { formatDuration } from '../core/durationText';

export interface MysqlTableLockOptions {
  endpoint: MysqlEndpoint;
  logger: Logger;
  clock: Clock;
  /** how long `take` waits for another sync to finish the table */
  lockWaitMs: number;
  /** how often the lock's session runs a light statement (less when the server's wait_timeout asks for it) */
  keepAliveMs: number;
}

/** A table's lock as this target holds it: the session an apply of the table runs on. */
export interface MysqlTableLock {
  session: MysqlSession;
  release: ReleaseLock;
  /** stops the keep-alive statements, so the apply has the session to itself */
  quiet: () => Promise<void>;
  /** what the driver reported when the connection was lost */
  lostWith?: Error;
}

/** statements are never sent more often than this */
export const MIN_KEEP_ALIVE_MS = 100;

export class MysqlTableLocks {
  private readonly held = new Map<string, MysqlTableLock>();

  constructor(private readonly o: MysqlTableLockOptions) {}

  private get label(): string {
    return this.o.endpoint.label;
  }

  /** Takes the table's lock on a new session, waiting up to `lockWaitMs` for another sync that holds it; the release ends the session. */
  async take(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
    const { endpoint, logger, clock, lockWaitMs } = this.o;
    const name = shownTable(namespace, table);
    const key = mysqlNameKey(tableName(namespace, table));
    if (this.held.has(key)) throw new DqError('usage', `${name} is already being synced by this run.`);
    const lockName = tableLockName(endpoint.database, namespace, table);
    const session = await endpoint.connect(`locking ${name}`);
    const lock: MysqlTableLock = { session, release: async () => undefined, quiet: async () => undefined };
    session.connection.on('error', (err: Error) => (lock.lostWith ??= err));
    const started = clock.now();
    let pause = 200;
    let keepAliveMs: number;
    try {
      keepAliveMs = await this.keepAliveInterval(session);
      let told = false;
      for (;;) {
        signal?.throwIfAborted();
        const [row] = (await session.query('SELECT GET_LOCK(?, 0) AS got', [lockName])) as { got: unknown }[];
        if (Number(row?.got) === 1) break;
        const waited = clock.now() - started;
        if (waited >= lockWaitMs) throw await this.heldElsewhere(session, name, lockName, waited);
        if (!told) {
          told = true;
          logger.warn(`waiting up to ${formatDuration(lockWaitMs - waited, 'long')} for ${name} in MySQL at ${this.label}: another sync${await this.holderOf(session, lockName)} is applying it.`);
        }
        await clock.sleep(Math.min(pause, keepAliveMs, lockWaitMs - waited), signal);
        pause = Math.min(pause * 2, 2_000);
      }
    } catch (err) {
      session.destroy();
      throw signal?.aborted ? mysqlCancelled(`waiting for the lock of ${name}`) : mysqlError(err, endpoint.errorContext(`locking ${name}`));
    }
    const stopKeepAlive = new AbortController();
    const keepingAlive = this.keepAlive(session, name, keepAliveMs, stopKeepAlive.signal);
    lock.quiet = async () => {
      stopKeepAlive.abort();
      await keepingAlive;
    };
    lock.release = releaseOnce(async () => {
      this.held.delete(key);
      await lock.quiet();
      try {
        if (session.usable) await session.query('DO RELEASE_LOCK(?)', [lockName]);
      } catch (err) {
        logger.debug(`mysql: unlocking ${name}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        // the session's end releases the lock in any case
        await session.close();
      }
    });
    this.held.set(key, lock);
    logger.debug(`mysql: ${this.label}: locked ${name} on connection ${session.threadId} (a statement every ${formatDuration(keepAliveMs, 'long')} keeps it alive)`);
    return lock.release;
  }

  /** The lock this target holds on the table, if any. */
  of(namespace: string, table: string): MysqlTableLock | undefined {
    return this.held.get(mysqlNameKey(tableName(namespace, table)));
  }

  /** Releases every lock still held (a target closed mid-run). */
  async releaseAll(): Promise<void> {
    for (const lock of [...this.held.values()]) await lock.release();
  }

  /** The lock's session was gone when the apply came to use it. */
  lost(name: string, lock: MysqlTableLock): DqError {
    const said = lock.lostWith?.message ? ` (${maskPassword(lock.lostWith.message, this.o.endpoint.errorContext('').password)})` : '';
    return new DqError('network', `The connection that held the lock of ${name} in MySQL at ${this.label} was lost while the data was fetched${said}. The table keeps its last complete run.`, {
      hint: 'Run the sync again. If it keeps happening, ask whoever runs the database whether something closes idle connections (wait_timeout, a proxy or a firewall in between).',
      operation: 'mysql',
    });
  }

  /** How often the lock's session runs a statement: the configured interval, or less for the server's wait_timeout. */
  private async keepAliveInterval(session: MysqlSession): Promise<number> {
    const [row] = (await session.query('SELECT @@SESSION.wait_timeout AS wait')) as { wait: unknown }[];
    const idleMs = Number(row?.wait) * 1000;
    const every = Number.isFinite(idleMs) && idleMs > 0 ? Math.min(this.o.keepAliveMs, idleMs / 3) : this.o.keepAliveMs;
    return Math.max(MIN_KEEP_ALIVE_MS, Math.floor(every));
  }

  private async keepAlive(session: MysqlSession, name: string, everyMs: number, stop: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.o.clock.sleep(everyMs, stop);
      } catch {
        return; // stopped
      }
      if (stop.aborted || !session.usable) return;
      try {
        await session.query('SELECT 1');
      } catch (err) {
        this.o.logger.debug(`mysql: keeping the session that holds the lock of ${name} alive: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
    }
  }

  /** Who holds a lock, as ` (connection 42, etl@10.0.0.5)`; empty when unknown. */
  async holderOf(session: MysqlSession, lockName: string): Promise<string> {
    try {
      const [row] = (await session.query('SELECT IS_USED_LOCK(?) AS id', [lockName])) as { id: unknown }[];
      const id = Number(row?.id);
      if (!Number.isInteger(id) || id <= 0) return '';
      const [who] = (await session.query('SELECT USER AS user, HOST AS host FROM information_schema.PROCESSLIST WHERE ID = ?', [id])) as { user: string | null; host: string | null }[];
      const at = who?.user ? `, ${who.user}${who.host ? `@${who.host}` : ''}` : '';
      return ` (connection ${id}${at})`;
    } catch {
      // who holds it is a courtesy; the message stands without it
      return '';
    }
  }

  private async heldElsewhere(session: MysqlSession, name: string, lockName: string, waited: number): Promise<DqError> {
    const holder = await this.holderOf(session, lockName);
    return new DqError('io', `Another sync${holder} is applying ${name} in MySQL at ${this.label}; waited ${formatDuration(waited, 'long')}.`, {
      hint: 'Run the sync again when it has finished.',
      operation: 'mysql',
    });
  }
}

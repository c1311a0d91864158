// The table locks of the PostgreSQL target. Each table is applied on a session of its own,
// which holds the table's advisory lock (one per physical table: names PostgreSQL holds as one
// table share one lock), so two syncs (cron, editor) never apply the same table at once and
// tables can run side by side. That session holds the lock from before the job is created
// until the apply ends, so while the job runs and its files download it runs a light statement
// now and then: a server with idle_session_timeout, a pooler or a firewall would otherwise
// close it as idle, and the lock with it. (Taking the lock again at apply time would leave a gap
// in which another sync could apply the table; keeping the one lock leaves none.) The session
// ending releases the lock in any case, so a killed sync holds nothing.

import { DqError } from '../client/errors';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { PostgresEndpoint, PostgresSession } from './postgresConnection';
import { IDLE_SESSION_TIMED_OUT, maskPassword, postgresCancelled, postgresError } from './postgresErrors';
import { LOCK_HOLDER, LOCK_KEYS, lockKeyName, lockName } from './postgresSql';
import { releaseOnce, type ReleaseLock } from './targetLock';
import { formatDuration } from '../core/durationText';

export interface PostgresTableLockOptions {
  endpoint: PostgresEndpoint;
  logger: Logger;
  clock: Clock;
  /** how long `take` waits for another sync to finish the table */
  lockWaitMs: number;
  /** how often the lock's session runs a light statement (less when the server's idle_session_timeout asks for it) */
  keepAliveMs: number;
}

/** A table's lock as this target holds it: the session an apply of the table runs on. */
export interface PostgresTableLock {
  session: PostgresSession;
  release: ReleaseLock;
  /** stops the keep-alive statements, so the apply has the session to itself */
  quiet: () => Promise<void>;
  /** what the driver reported when the connection was lost */
  lostWith?: Error & { code?: string };
}

/** statements are never sent more often than this, whatever the server's idle timeout */
export const MIN_KEEP_ALIVE_MS = 100;
/** the server's idle_session_timeout for this session, in ms (PostgreSQL 14 and later; 0 = off) */
const IDLE_SESSION_TIMEOUT = `SELECT setting FROM pg_settings WHERE name = 'idle_session_timeout' AND unit = 'ms'`;
const KEEP_ALIVE = 'SELECT 1';

export class PostgresTableLocks {
  private readonly held = new Map<string, PostgresTableLock>();

  constructor(private readonly o: PostgresTableLockOptions) {}

  private get label(): string {
    return this.o.endpoint.label;
  }

  /**
   * Takes the table's advisory lock on a new session, waiting up to `lockWaitMs` for another
   * sync that holds it; the returned release ends the session.
   */
  async take(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
    const { endpoint, logger, clock, lockWaitMs } = this.o;
    const name = lockName(namespace, table);
    const key = lockKeyName(namespace, table);
    if (this.held.has(key)) throw new DqError('usage', `${name} is already being synced by this run.`);
    const session = await endpoint.connect(`locking ${name}`);
    const lock: PostgresTableLock = { session, release: async () => undefined, quiet: async () => undefined };
    // the first error the driver reports is why the connection was lost (the session's own listener only logs it)
    session.client.on('error', (err: Error & { code?: string }) => (lock.lostWith ??= err));
    const started = clock.now();
    let pause = 200;
    let keepAliveMs: number;
    try {
      keepAliveMs = await this.keepAliveInterval(session);
      let told = false;
      for (;;) {
        signal?.throwIfAborted();
        const { rows } = await session.client.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${LOCK_KEYS}) AS got`, [key]);
        if (rows[0]?.got) break;
        const waited = clock.now() - started;
        if (waited >= lockWaitMs) throw await this.heldElsewhere(session, name, key, waited);
        if (!told) {
          told = true;
          logger.warn(`waiting up to ${formatDuration(lockWaitMs - waited, 'long')} for ${name} in PostgreSQL at ${this.label}: another sync${await this.holderOf(session, key)} is applying it.`);
        }
        // the pause between tries stays under the server's idle timeout too
        await clock.sleep(Math.min(pause, keepAliveMs, lockWaitMs - waited), signal);
        pause = Math.min(pause * 2, 2_000);
      }
    } catch (err) {
      await session.close();
      throw signal?.aborted ? postgresCancelled(`waiting for the lock of ${name}`) : postgresError(err, endpoint.errorContext(`locking ${name}`));
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
        if (session.usable) await session.client.query(`SELECT pg_advisory_unlock(${LOCK_KEYS})`, [key]);
      } catch (err) {
        logger.debug(`postgres: unlocking ${name}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        // the session's end releases the lock in any case
        await session.close();
      }
    });
    this.held.set(key, lock);
    logger.debug(`postgres: ${this.label}: locked ${name} (a statement every ${formatDuration(keepAliveMs, 'long')} keeps the lock's session alive)`);
    return lock.release;
  }

  /** The lock this target holds on the table, if any. */
  of(namespace: string, table: string): PostgresTableLock | undefined {
    return this.held.get(lockKeyName(namespace, table));
  }

  /** Releases every lock still held (a target closed mid-run). */
  async releaseAll(): Promise<void> {
    for (const lock of [...this.held.values()]) await lock.release();
  }

  /** The lock's session was gone when the apply came to use it: what most likely closed it. */
  lost(name: string, lock: PostgresTableLock): DqError {
    const lost = lock.lostWith;
    const said = lost?.message ? ` (the server said: ${maskPassword(lost.message, this.o.endpoint.errorContext('').password)})` : '';
    const why =
      lost?.code === IDLE_SESSION_TIMED_OUT
        ? `the server closed it as idle (idle_session_timeout)${said}`
        : `most likely something closed it as idle: the server (idle_session_timeout), a connection pooler or a firewall${said}`;
    return new DqError('network', `The connection that held the lock of ${name} in PostgreSQL at ${this.label} was lost while the data was fetched: ${why}. The table keeps its last complete run.`, {
      hint: 'Run the sync again. If it keeps happening, ask whoever runs the database to let idle connections live longer (idle_session_timeout, or the idle timeout of a pooler or firewall in between).',
      operation: 'postgres',
    });
  }

  /** How often the lock's session runs a statement: the configured interval, or less for the server's idle_session_timeout. */
  private async keepAliveInterval(session: PostgresSession): Promise<number> {
    const { rows } = await session.client.query<{ setting: string }>(IDLE_SESSION_TIMEOUT);
    const idleMs = Number(rows[0]?.setting);
    const every = Number.isFinite(idleMs) && idleMs > 0 ? Math.min(this.o.keepAliveMs, idleMs / 3) : this.o.keepAliveMs;
    return Math.max(MIN_KEEP_ALIVE_MS, Math.floor(every));
  }

  /** Runs a light statement on the lock's session every `everyMs` until stopped or the session is lost. */
  private async keepAlive(session: PostgresSession, name: string, everyMs: number, stop: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.o.clock.sleep(everyMs, stop);
      } catch {
        return; // stopped
      }
      if (stop.aborted || !session.usable) return;
      try {
        await session.client.query(KEEP_ALIVE);
      } catch (err) {
        this.o.logger.debug(`postgres: keeping the session that holds the lock of ${name} alive: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
    }
  }

  /** Who holds the lock of a table, as ` (application, server process N from host)`; empty when unknown. */
  private async holderOf(session: PostgresSession, key: string): Promise<string> {
    try {
      const { rows } = await session.client.query<{ pid: number; application_name: string | null; client_addr: string | null }>(LOCK_HOLDER, [key]);
      const row = rows[0];
      if (!row) return '';
      const who = row.application_name ? `${row.application_name}, ` : '';
      const from = row.client_addr ? ` from ${row.client_addr}` : '';
      return ` (${who}server process ${row.pid}${from})`;
    } catch {
      // who holds it is a courtesy; the message stands without it
      return '';
    }
  }

  private async heldElsewhere(session: PostgresSession, name: string, key: string, waited: number): Promise<DqError> {
    const holder = await this.holderOf(session, key);
    return new DqError('io', `Another sync${holder} is applying ${name} in PostgreSQL at ${this.label}; waited ${formatDuration(waited, 'long')}.`, {
      hint: 'Run the sync again when it has finished.',
      operation: 'postgres',
    });
  }
}

// The table locks of the PostgreSQL target. Each table is applied on a session of its own,
// which holds the table's advisory lock (one per physical table: names PostgreSQL holds as one
// table share one lock), so two syncs (cron, editor) never apply the same table at once and
// tables can run side by side. That session holds the lock from before the job is created
// until the apply ends, so while the job runs and its files download it runs a light statement
// now and then: a server with idle_session_timeout, a pooler or a firewall would otherwise
// close it as idle, and the lock with it. (Taking the lock again at apply time would leave a gap
// in which another sync could apply the table; keeping the one lock leaves none.) The session
// ending releases the lock in any case, so a killed sync holds nothing. How a lock is taken,
// kept and released is serverTableLock.ts; what PostgreSQL is asked is here.

import { DqError } from '../client/errors';
import type { PostgresEndpoint, PostgresSession } from './postgresConnection';
import { IDLE_SESSION_TIMED_OUT, maskPassword, postgresCancelled, postgresError } from './postgresErrors';
import { LOCK_HOLDER, LOCK_KEYS, lockKeyName } from './postgresSql';
import { ServerTableLocks, type ServerTableLockOptions, type SessionTableLock } from './serverTableLock';

/** A table's lock as this target holds it: the session an apply of the table runs on. */
export type PostgresTableLock = SessionTableLock<PostgresSession>;

/** the server's idle_session_timeout for this session, in ms (PostgreSQL 14 and later; 0 = off) */
const IDLE_SESSION_TIMEOUT = `SELECT setting FROM pg_settings WHERE name = 'idle_session_timeout' AND unit = 'ms'`;
const KEEP_ALIVE = 'SELECT 1';

export class PostgresTableLocks extends ServerTableLocks<PostgresSession, PostgresEndpoint> {
  constructor(o: ServerTableLockOptions<PostgresEndpoint>) {
    super(o, { name: 'PostgreSQL', logName: 'postgres' });
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

  /** The advisory lock's key: one per physical table. */
  protected keyOf(namespace: string, table: string): string {
    return lockKeyName(namespace, table);
  }

  protected connect(doing: string): Promise<PostgresSession> {
    return this.o.endpoint.connect(doing);
  }

  protected onDriverError(session: PostgresSession, lost: (err: Error & { code?: string }) => void): void {
    session.client.on('error', lost);
  }

  protected async idleTimeoutMs(session: PostgresSession): Promise<number> {
    const { rows } = await session.client.query<{ setting: string }>(IDLE_SESSION_TIMEOUT);
    return Number(rows[0]?.setting);
  }

  protected async tryLock(session: PostgresSession, key: string): Promise<boolean> {
    const { rows } = await session.client.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${LOCK_KEYS}) AS got`, [key]);
    return Boolean(rows[0]?.got);
  }

  /** Who holds the lock of a table, as ` (application, server process N from host)`; empty when unknown. */
  protected async holderOf(session: PostgresSession, key: string): Promise<string> {
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

  protected unlock(session: PostgresSession, key: string): Promise<unknown> {
    return session.client.query(`SELECT pg_advisory_unlock(${LOCK_KEYS})`, [key]);
  }

  protected ping(session: PostgresSession): Promise<unknown> {
    return session.client.query(KEEP_ALIVE);
  }

  protected abandon(session: PostgresSession): Promise<void> {
    return session.close();
  }

  protected cancelled(doing: string): DqError {
    return postgresCancelled(doing);
  }

  protected failed(err: unknown, doing: string): DqError {
    return postgresError(err, this.o.endpoint.errorContext(doing));
  }
}

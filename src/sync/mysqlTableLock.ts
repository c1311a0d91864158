// The table locks of the MySQL target: a user-level lock (GET_LOCK) per table, named from the
// database and the table's name key (see mysqlSql.ts), so names MySQL may hold as one table share
// one lock, across processes and machines. Each table is applied on the session that holds its
// lock, from before the job is made until the apply ends; while the job runs and its files
// download, that session runs a light statement now and then, so that nothing (wait_timeout, a
// proxy, a firewall) closes it as idle. The session's end releases the lock in any case, so a
// killed sync holds nothing. A lock another session holds is waited for a bounded time, saying
// so once (as a warning) and naming the holder: its connection id, user and host. How a lock is
// taken, kept and released is serverTableLock.ts; what MySQL is asked is here.

import { DqError } from '../client/errors';
import type { MysqlEndpoint, MysqlSession } from './mysqlConnection';
import { maskPassword, mysqlCancelled, mysqlError } from './mysqlErrors';
import { mysqlNameKey, tableLockName, tableName } from './mysqlSql';
import { ServerTableLocks, type ServerTableLockOptions, type SessionTableLock } from './serverTableLock';

/** A table's lock as this target holds it: the session an apply of the table runs on. */
export type MysqlTableLock = SessionTableLock<MysqlSession>;

export class MysqlTableLocks extends ServerTableLocks<MysqlSession, MysqlEndpoint> {
  constructor(o: ServerTableLockOptions<MysqlEndpoint>) {
    super(o, { name: 'MySQL', logName: 'mysql' });
  }

  /** The lock's session was gone when the apply came to use it. */
  lost(name: string, lock: MysqlTableLock): DqError {
    const said = lock.lostWith?.message ? ` (${maskPassword(lock.lostWith.message, this.o.endpoint.errorContext('').password)})` : '';
    return new DqError('network', `The connection that held the lock of ${name} in MySQL at ${this.label} was lost while the data was fetched${said}. The table keeps its last complete run.`, {
      hint: 'Run the sync again. If it keeps happening, ask whoever runs the database whether something closes idle connections (wait_timeout, a proxy or a firewall in between).',
      operation: 'mysql',
    });
  }

  protected keyOf(namespace: string, table: string): string {
    return mysqlNameKey(tableName(namespace, table));
  }

  protected override lockNameOf(namespace: string, table: string): string {
    return tableLockName(this.o.endpoint.database, namespace, table);
  }

  protected connect(doing: string): Promise<MysqlSession> {
    return this.o.endpoint.connect(doing);
  }

  protected onDriverError(session: MysqlSession, lost: (err: Error) => void): void {
    session.connection.on('error', lost);
  }

  /** The server's wait_timeout for the session. */
  protected async idleTimeoutMs(session: MysqlSession): Promise<number> {
    const [row] = (await session.query('SELECT @@SESSION.wait_timeout AS wait')) as { wait: unknown }[];
    return Number(row?.wait) * 1000;
  }

  protected async tryLock(session: MysqlSession, lockName: string): Promise<boolean> {
    const [row] = (await session.query('SELECT GET_LOCK(?, 0) AS got', [lockName])) as { got: unknown }[];
    return Number(row?.got) === 1;
  }

  /** Who holds a lock, as ` (connection 42, etl@10.0.0.5)`; empty when unknown. */
  protected async holderOf(session: MysqlSession, lockName: string): Promise<string> {
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

  protected unlock(session: MysqlSession, lockName: string): Promise<unknown> {
    return session.query('DO RELEASE_LOCK(?)', [lockName]);
  }

  protected ping(session: MysqlSession): Promise<unknown> {
    return session.query('SELECT 1');
  }

  protected abandon(session: MysqlSession): void {
    session.destroy();
  }

  protected cancelled(doing: string): DqError {
    return mysqlCancelled(doing);
  }

  protected failed(err: unknown, doing: string): DqError {
    return mysqlError(err, this.o.endpoint.errorContext(doing));
  }

  protected override sessionNote(session: MysqlSession): string {
    return ` on connection ${session.threadId}`;
  }
}

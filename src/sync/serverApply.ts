// What one run's apply to a server target (MySQL, PostgreSQL) does around the server's own
// steps. It runs on the session that holds the table's lock (taken here, and released after,
// when the caller holds none), with that session's keep-alive statements stopped. A session
// lost while the job ran fails as such before anything is sent to it; an abort is handed to the
// server's own way of stopping the session's work; and a failure is said as a person acts on
// it: stopped, the lock's session lost before it answered, or the server's own error.

import type { DqError } from '../client/errors';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { LockSession, ServerTableLocks, SessionTableLock } from './serverTableLock';
import type { ApplyPlan } from './syncTarget';
import type { ReleaseLock } from './targetLock';

export interface LockedApply<S extends LockSession> {
  locks: ServerTableLocks<S, unknown>;
  plan: ApplyPlan;
  logger: Logger;
  clock: Clock;
  /** how log lines begin: `mysql` */
  logName: string;
  /** Stops what runs on the lock's session, when the plan's signal aborts. */
  onAbort(lock: SessionTableLock<S>): void;
  /** The failure of an apply stopped while `doing`. */
  cancelled(doing: string): DqError;
  /** The server's error `err`, met while `doing`, as a failure. */
  failed(err: unknown, doing: string): DqError;
}

/** What the server's steps are given. */
export interface ApplyStep<S extends LockSession> {
  lock: SessionTableLock<S>;
  /** the table as messages name it: `canvas.users` */
  name: string;
  /** `applying the snapshot of canvas.users` */
  doing: string;
  /** when the apply began (the clock's time) */
  started: number;
  /** Says the lock's session answered its first statement of the apply: it outlived the wait. */
  reached(): void;
}

/** Runs `steps` on the session that holds the table's lock; a failure is logged and thrown as a person acts on it. */
export async function applyOnLockedSession<S extends LockSession, R>(a: LockedApply<S>, steps: (step: ApplyStep<S>) => Promise<R>): Promise<R> {
  const { locks, plan, logger } = a;
  const { table, signal } = plan;
  const name = `${table.namespace}.${table.table}`;
  let lock = locks.of(table.namespace, table.table);
  let ownRelease: ReleaseLock | undefined;
  if (!lock) {
    ownRelease = await locks.take(table.namespace, table.table, signal);
    lock = locks.of(table.namespace, table.table)!;
  }
  const held = lock;
  const { session } = held;
  await held.quiet();
  const doing = `applying the ${plan.kind === 'snapshot' ? 'snapshot' : 'changes'} of ${name}`;
  const started = a.clock.now();
  const onAbort = (): void => a.onAbort(held);
  let reached = false;
  try {
    if (!session.usable) throw locks.lost(name, held);
    signal?.addEventListener('abort', onAbort, { once: true });
    signal?.throwIfAborted();
    return await steps({ lock: held, name, doing, started, reached: () => (reached = true) });
  } catch (err) {
    const failure = signal?.aborted ? a.cancelled(doing) : !reached && !session.usable ? locks.lost(name, held) : a.failed(err, doing);
    logger.debug(`${a.logName}: ${name}: ${failure.message}`);
    throw failure;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (ownRelease) await ownRelease();
  }
}

// What the table locks of the targets on a database server (MySQL, PostgreSQL) share. Each
// table's lock is held by a session of its own, from before the job is made until the apply
// ends, and names the server holds as one table share one lock. Taking it, a lock another sync
// holds is tried again for a bounded time, saying so once (as a warning) and naming the holder,
// then given up. Held, the session runs a light statement now and then, so that nothing (the
// server's idle timeout, a pooler, a firewall) closes it as idle while the job runs and its
// files download. Released, it is unlocked and its session ended; the session's end releases
// the lock in any case, so a killed sync holds nothing. Each server's SQL, and what it says of
// a holder or a lost session, stays in its own file (mysqlTableLock.ts, postgresTableLock.ts).

import { DqError } from '../client/errors';
import type { Clock } from '../core/clock';
import { formatDuration } from '../core/durationText';
import type { Logger } from '../core/logger';
import { releaseOnce, type ReleaseLock } from './targetLock';

/** statements are never sent more often than this, whatever the server's idle timeout */
export const MIN_KEEP_ALIVE_MS = 100;
/** how often a lock's session runs a statement, unless told otherwise */
export const DEFAULT_KEEP_ALIVE_MS = 30_000;

/** The keep-alive interval a target was given (`keepAliveMs` of its options), as its locks use it. */
export function keepAliveOption(keepAliveMs: number | undefined): number {
  return Math.max(MIN_KEEP_ALIVE_MS, keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS);
}

/** How often a lock's session runs a statement: `configuredMs`, or a third of the server's idle timeout (`idleMs`, none when not above 0) when that is less. */
export function keepAliveEvery(configuredMs: number, idleMs: number): number {
  const every = Number.isFinite(idleMs) && idleMs > 0 ? Math.min(configuredMs, idleMs / 3) : configuredMs;
  return Math.max(MIN_KEEP_ALIVE_MS, Math.floor(every));
}

export interface TableLockWait {
  clock: Clock;
  logger: Logger;
  /** how long to wait for another sync to let go of the table */
  lockWaitMs: number;
  /** the longest pause between tries: the session must not sit idle longer than its keep-alive interval */
  maxPauseMs: number;
  /** the table as messages name it: `canvas.users` */
  name: string;
  /** the target as messages name it: `MySQL at mysql://etl@db:3306/dw` */
  where: string;
  /** the failure's `operation`: `mysql` */
  operation: string;
  /** One try; true when the lock is now held. */
  tryLock(): Promise<boolean>;
  /** Who holds the lock, as ` (connection 42, etl@10.0.0.5)`; empty when unknown. */
  holder(): Promise<string>;
}

/**
 * Tries the table's lock until it is held, pausing between tries (200 ms at first, twice as long
 * each time up to 2 s, never longer than `maxPauseMs`) for up to `lockWaitMs`: says once, as a
 * warning, that it waits and who holds the lock, then fails (`io`) naming the holder. An abort
 * ends the wait with the signal's reason.
 */
export async function waitForTableLock(w: TableLockWait, signal?: AbortSignal): Promise<void> {
  const started = w.clock.now();
  let pause = 200;
  let told = false;
  for (;;) {
    signal?.throwIfAborted();
    if (await w.tryLock()) return;
    const waited = w.clock.now() - started;
    if (waited >= w.lockWaitMs) {
      throw new DqError('io', `Another sync${await w.holder()} is applying ${w.name} in ${w.where}; waited ${formatDuration(waited, 'long')}.`, {
        hint: 'Run the sync again when it has finished.',
        operation: w.operation,
      });
    }
    if (!told) {
      told = true;
      w.logger.warn(`waiting up to ${formatDuration(w.lockWaitMs - waited, 'long')} for ${w.name} in ${w.where}: another sync${await w.holder()} is applying it.`);
    }
    await w.clock.sleep(Math.min(pause, w.maxPauseMs, w.lockWaitMs - waited), signal);
    pause = Math.min(pause * 2, 2_000);
  }
}

/** A session a table's lock is held on. */
export interface LockSession {
  readonly usable: boolean;
  close(): Promise<void>;
}

/** A table's lock as a target holds it: the session an apply of the table runs on. */
export interface SessionTableLock<S extends LockSession> {
  session: S;
  release: ReleaseLock;
  /** stops the keep-alive statements, so the apply has the session to itself */
  quiet: () => Promise<void>;
  /** what the driver reported when the connection was lost */
  lostWith?: Error & { code?: string };
}

export interface ServerTableLockOptions<E> {
  /** where the locks' sessions are opened */
  endpoint: E & { readonly label: string };
  logger: Logger;
  clock: Clock;
  /** how long `take` waits for another sync to finish the table */
  lockWaitMs: number;
  /** how often a lock's session runs a light statement (less when the server's idle timeout asks for it) */
  keepAliveMs: number;
}

/** The server as the locks' messages name it (`MySQL`), and how their log lines begin (`mysql`). */
export interface LockServer {
  name: string;
  logName: string;
}

/** A target's table locks, one session each; what the server is asked, and how, is up to its subclass. */
export abstract class ServerTableLocks<S extends LockSession, E> {
  private readonly held = new Map<string, SessionTableLock<S>>();

  constructor(
    protected readonly o: ServerTableLockOptions<E>,
    private readonly server: LockServer,
  ) {}

  protected get label(): string {
    return this.o.endpoint.label;
  }

  /** The key of the table's name: names the server holds as one table have one key, and one lock. */
  protected abstract keyOf(namespace: string, table: string): string;
  /** The name of the table's lock on the server; its key unless said otherwise. */
  protected lockNameOf(namespace: string, table: string): string {
    return this.keyOf(namespace, table);
  }
  /** Opens a session of its own for a lock; `doing` is what a failure says. */
  protected abstract connect(doing: string): Promise<S>;
  /** Calls `lost` with the first error the driver reports for the session. */
  protected abstract onDriverError(session: S, lost: (err: Error & { code?: string }) => void): void;
  /** The server's idle timeout for the session, in ms (none when not above 0). */
  protected abstract idleTimeoutMs(session: S): Promise<number>;
  /** One try at the lock; true when it is now held. */
  protected abstract tryLock(session: S, lockName: string): Promise<boolean>;
  /** Who holds the lock, as ` (connection 42, etl@10.0.0.5)`; empty when unknown. */
  protected abstract holderOf(session: S, lockName: string): Promise<string>;
  protected abstract unlock(session: S, lockName: string): Promise<unknown>;
  /** The light statement that keeps the session alive. */
  protected abstract ping(session: S): Promise<unknown>;
  /** Ends the session of a lock that was not taken. */
  protected abstract abandon(session: S): Promise<void> | void;
  /** The failure of a wait stopped while `doing`. */
  protected abstract cancelled(doing: string): DqError;
  /** The server's error `err`, met while `doing`, as a failure. */
  protected abstract failed(err: unknown, doing: string): DqError;
  /** How the session is named in the log line that says the table is locked: ` on connection 42`, or empty. */
  protected sessionNote(_session: S): string {
    return '';
  }
  /** The lock's session was gone when the apply came to use it: what most likely closed it. */
  abstract lost(name: string, lock: SessionTableLock<S>): DqError;

  /** Takes the table's lock on a new session, waiting up to `lockWaitMs` for another sync that holds it; the release ends the session. */
  async take(namespace: string, table: string, signal?: AbortSignal): Promise<ReleaseLock> {
    const { logger, clock, lockWaitMs } = this.o;
    const { logName } = this.server;
    const name = `${namespace}.${table}`;
    const key = this.keyOf(namespace, table);
    if (this.held.has(key)) throw new DqError('usage', `${name} is already being synced by this run.`);
    const lockName = this.lockNameOf(namespace, table);
    const session = await this.connect(`locking ${name}`);
    const lock: SessionTableLock<S> = { session, release: async () => undefined, quiet: async () => undefined };
    // the first error the driver reports is why the connection was lost (the session's own listener only logs it)
    this.onDriverError(session, (err) => (lock.lostWith ??= err));
    let keepAliveMs: number;
    try {
      keepAliveMs = keepAliveEvery(this.o.keepAliveMs, await this.idleTimeoutMs(session));
      await waitForTableLock(
        {
          clock,
          logger,
          lockWaitMs,
          // the pause between tries stays under the server's idle timeout too
          maxPauseMs: keepAliveMs,
          name,
          where: `${this.server.name} at ${this.label}`,
          operation: logName,
          tryLock: () => this.tryLock(session, lockName),
          holder: () => this.holderOf(session, lockName),
        },
        signal,
      );
    } catch (err) {
      await this.abandon(session);
      throw signal?.aborted ? this.cancelled(`waiting for the lock of ${name}`) : this.failed(err, `locking ${name}`);
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
        if (session.usable) await this.unlock(session, lockName);
      } catch (err) {
        logger.debug(`${logName}: unlocking ${name}: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        // the session's end releases the lock in any case
        await session.close();
      }
    });
    this.held.set(key, lock);
    logger.debug(`${logName}: ${this.label}: locked ${name}${this.sessionNote(session)} (a statement every ${formatDuration(keepAliveMs, 'long')} keeps the lock's session alive)`);
    return lock.release;
  }

  /** The lock this target holds on the table, if any. */
  of(namespace: string, table: string): SessionTableLock<S> | undefined {
    return this.held.get(this.keyOf(namespace, table));
  }

  /** Releases every lock still held (a target closed mid-run). */
  async releaseAll(): Promise<void> {
    for (const lock of [...this.held.values()]) await lock.release();
  }

  /** Runs the light statement on the lock's session every `everyMs` until stopped or the session is lost. */
  private async keepAlive(session: S, name: string, everyMs: number, stop: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.o.clock.sleep(everyMs, stop);
      } catch {
        return; // stopped
      }
      if (stop.aborted || !session.usable) return;
      try {
        await this.ping(session);
      } catch (err) {
        this.o.logger.debug(`${this.server.logName}: keeping the session that holds the lock of ${name} alive: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
    }
  }
}

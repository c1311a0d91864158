// The locks of the DuckDB target. DuckDB lets one process open a file read-write and then no
// other process can open it at all, so the file itself is the lock between processes: a sync
// holds it from open() to close(), its whole run, and a second sync (or a viewer) warns that
// it waits, waits a bounded time, then fails naming the process that holds it. Inside one
// process, a table (every name DuckDB holds as that one table) is applied by one run at a
// time: a second run of it waits for the first to release it, then fails. A killed process
// holds nothing: the file lock ends with it.

import { cancelledError, DqError } from '../client/errors';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { lockHolder, type LockHolder } from '../engine/lockHolder';
import { releaseOnce, type ReleaseLock } from './targetLock';
import { formatDuration } from '../core/durationText';

export interface DuckdbLockOptions {
  clock: Clock;
  logger: Logger;
  /** how long to wait for a file or table another sync holds */
  lockWaitMs: number;
}

const LOCK_RETRY_MS = 500;

/** Tables being synced in this process, by file and table key: resolves when released. */
const heldTables = new Map<string, Promise<void>>();

/** `process 4242 (/usr/bin/node)`, or as much of it as DuckDB could tell. */
function holderText({ program, pid }: LockHolder): string {
  if (pid === undefined) return program ?? 'another process';
  return program ? `process ${pid} (${program})` : `process ${pid}`;
}

/**
 * Runs `attempt` (opening the file) again while it fails for a lock another process holds,
 * up to `lockWaitMs`; any other failure is thrown as it came.
 */
export async function whileFileHeld<T>(file: string, attempt: () => Promise<T>, o: DuckdbLockOptions, signal?: AbortSignal): Promise<T> {
  const deadline = o.clock.now() + o.lockWaitMs;
  let told = false;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const holder = lockHolder(message);
      if (!holder) throw err;
      const who = holderText(holder);
      const left = deadline - o.clock.now();
      if (left <= 0) {
        throw new DqError('io', `The sync database ${file} is in use by ${who}; waited ${formatDuration(o.lockWaitMs, 'long')} for it.`, {
          hint: 'Another sync may still be running, or a program has the file open (a SQL console on it): wait for it or close it, then run again.',
        });
      }
      // a warning, shown without DQ_DEBUG: otherwise nothing would say why nothing happens
      if (!told) o.logger.warn(`waiting up to ${formatDuration(left, 'long')} for the sync database ${file}: it is in use by ${who}.`);
      told = true;
      try {
        await o.clock.sleep(Math.min(left, LOCK_RETRY_MS), signal);
      } catch {
        throw cancelledError('The sync', { after: ` while waiting for ${file}.` });
      }
    }
  }
}

/** Takes the lock of the table `name` (`key`: its file and table key) in this process, waiting for another run of it a bounded time. */
export async function lockDuckdbTable(file: string, key: string, name: string, o: DuckdbLockOptions, signal?: AbortSignal): Promise<ReleaseLock> {
  const deadline = o.clock.now() + o.lockWaitMs;
  let told = false;
  for (let held = heldTables.get(key); held; held = heldTables.get(key)) {
    const left = deadline - o.clock.now();
    if (left <= 0) {
      throw new DqError('io', `Another sync in this program is still applying ${name} to ${file}.`, {
        hint: 'Wait for it to finish, then sync the table again.',
      });
    }
    if (!told) o.logger.warn(`waiting up to ${formatDuration(left, 'long')} for ${name} in ${file}: another sync in this program is applying it.`);
    told = true;
    await waitFor(held, Math.min(left, LOCK_RETRY_MS * 10), o.clock, signal);
  }
  let release!: () => void;
  heldTables.set(key, new Promise<void>((resolve) => (release = resolve)));
  return releaseOnce(() => {
    heldTables.delete(key);
    release();
  });
}

/** Waits for `held` to resolve, at most `ms`. */
async function waitFor(held: Promise<void>, ms: number, clock: Clock, signal?: AbortSignal): Promise<void> {
  const timer = new AbortController();
  const stop = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
  try {
    await Promise.race([held, clock.sleep(ms, stop).catch(() => undefined)]);
  } finally {
    timer.abort();
  }
  if (signal?.aborted) throw cancelledError('The sync', { after: ' while waiting for a table another sync holds.' });
}

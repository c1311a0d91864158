// The lock of a lake table: an object `_dq/lock` naming its owner (host, process, run) and
// when it expires. It is written only where absent (or over the exact expired lock it
// replaces), and read back to confirm the owner where the store does not enforce those
// conditions. It is renewed while the sync holds it, so only a process that died or lost
// the store leaves one behind: it is taken over once expired, or at once when it names a
// process of this host that no longer runs. A sync that finds it held says once that it
// waits, waits a bounded time, then fails naming the holder.

import * as os from 'node:os';
import { cancelledError, DqError } from '../client/errors';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { isProcessRunning } from '../core/processAlive';
import type { ObjectStore } from './objectStore';
import { releaseOnce, type ReleaseLock } from './targetLock';

export interface LockOwner {
  host: string;
  pid: number;
  run: string;
  /** when it runs out unless renewed (ISO) */
  expiresAt: string;
}

export interface LakeLockOptions {
  store: ObjectStore;
  key: string;
  /** the table, for messages */
  name: string;
  clock: Clock;
  logger: Logger;
  waitMs: number;
  ttlMs: number;
  run: string;
  signal?: AbortSignal;
}

const RETRY_MS = 500;

function ownerText(o: LockOwner): string {
  return `process ${o.pid} on ${o.host} (run ${o.run}, until ${o.expiresAt})`;
}

function parseOwner(body: Buffer): LockOwner | undefined {
  try {
    const o = JSON.parse(body.toString('utf8')) as LockOwner;
    return typeof o.run === 'string' && typeof o.expiresAt === 'string' ? o : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a lock found may be taken: run out, unreadable, or its process gone from this host. */
function abandoned(o: LockOwner | undefined, now: number): boolean {
  if (!o) return true;
  if (Date.parse(o.expiresAt) <= now) return true;
  return o.host === os.hostname() && o.pid !== process.pid && !isProcessRunning(o.pid);
}

/** A lock taken: its release, and whether whoever held it before is known to run no more. */
export type TakenLakeLock = ReleaseLock & {
  /**
   * true when there was no lock, or it named a process of this machine that has ended: no run
   * of before can still commit. False for a lock that ran out, whose process may still run elsewhere.
   */
  previousHolderGone: boolean;
};

/** Takes the table's lock, and keeps it renewed until released. */
export async function takeLakeLock(o: LakeLockOptions): Promise<TakenLakeLock> {
  const { store, key, clock } = o;
  const owner = (): LockOwner => ({ host: os.hostname(), pid: process.pid, run: o.run, expiresAt: new Date(clock.now() + o.ttlMs).toISOString() });
  const deadline = clock.now() + o.waitMs;
  let told = false;
  for (;;) {
    if (o.signal?.aborted) throw cancelledError('The sync', { after: ` while waiting for the lock of ${o.name}.` });
    const found = await store.getBytes(key, o.signal);
    const holder = found ? parseOwner(found.body) : undefined;
    if (!found || abandoned(holder, clock.now())) {
      if (found && holder) o.logger.info(`${o.name}: taking over the lock ${ownerText(holder)} left.`);
      const condition = found?.etag ? { ifEtag: found.etag } : found ? undefined : { ifAbsent: true as const };
      const put = await store.putBytes(key, JSON.stringify(owner()), { contentType: 'application/json', condition, signal: o.signal });
      if (!put.conflict && (await confirmed(o))) {
        const gone = !holder || (holder.host === os.hostname() && holder.pid !== process.pid && !isProcessRunning(holder.pid));
        return Object.assign(renewing(o, owner), { previousHolderGone: gone });
      }
    } else {
      const left = deadline - clock.now();
      if (left <= 0) {
        throw new DqError('io', `The table ${o.name} is being synced by ${holder ? ownerText(holder) : 'another sync'}; waited ${Math.round(o.waitMs / 1000)} s for it.`, {
          hint: `Wait for that sync to finish (a lock left by a killed sync runs out at the time it names), then sync again. The lock is ${store.root}/${key}.`,
        });
      }
      if (!told) o.logger.warn(`waiting up to ${Math.ceil(left / 1000)} s for ${o.name}: it is being synced by ${holder ? ownerText(holder) : 'another sync'}.`);
      told = true;
    }
    try {
      await clock.sleep(Math.min(RETRY_MS, Math.max(1, deadline - clock.now())), o.signal);
    } catch {
      throw cancelledError('The sync', { after: ` while waiting for the lock of ${o.name}.` });
    }
  }
}

/** Reads the lock back: it names this run (a store that ignores conditions may have let another write win). */
function confirmed(o: Pick<LakeLockOptions, 'store' | 'key' | 'run' | 'signal'>): Promise<boolean> {
  return holdsLakeLock(o.store, o.key, o.run, o.signal);
}

/** Whether the lock object names the run `run`. */
export async function holdsLakeLock(store: ObjectStore, key: string, run: string, signal?: AbortSignal): Promise<boolean> {
  const back = await store.getBytes(key, signal);
  return back !== undefined && parseOwner(back.body)?.run === run;
}

/** Renews the lock every third of its time until released; the release deletes it when it is still this run's. */
function renewing(o: LakeLockOptions, owner: () => LockOwner): ReleaseLock {
  const stop = new AbortController();
  const loop = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      try {
        await o.clock.sleep(Math.max(1, Math.floor(o.ttlMs / 3)), stop.signal);
      } catch {
        return;
      }
      try {
        const now = await o.store.getBytes(o.key);
        if (now && parseOwner(now.body)?.run === o.run) {
          // only over this run's own lock: one taken over meanwhile stays the other's
          await o.store.putBytes(o.key, JSON.stringify(owner()), { contentType: 'application/json', condition: now.etag ? { ifEtag: now.etag } : undefined });
        } else o.logger.warn(`${o.name}: the lock ${o.store.root}/${o.key} was taken by another sync; the state is written only over the one this run read.`);
      } catch (err) {
        o.logger.warn(`${o.name}: renewing the lock failed (${err instanceof Error ? err.message : String(err)}); trying again.`);
      }
    }
  };
  const renewal = loop();
  return releaseOnce(async () => {
    stop.abort();
    await renewal;
    if (await confirmed({ ...o, signal: undefined }).catch(() => false)) await o.store.delete([o.key]).catch(() => undefined);
  });
}

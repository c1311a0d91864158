// What both targets' table locks share: how long they wait by default, and a release (what
// `lockTable` hands back, see syncTarget.ts) that may be called twice, by the runner and by a
// target closing with the lock still held, and releases once.

/** How long `lockTable` waits for a table (or file) another sync holds, unless told otherwise. */
export const DEFAULT_LOCK_WAIT_MS = 30_000;

/** Releases a table's lock; calling it again does nothing. */
export type ReleaseLock = () => Promise<void>;

/** `release` made safe to call twice: the second call (and any after it) does nothing. */
export function releaseOnce(release: () => Promise<void> | void): ReleaseLock {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await release();
  };
}

// What both targets' table locks share: the release a target hands back from `lockTable`
// (see syncTarget.ts) may be called twice, by the runner and by a target closing with the
// lock still held, and releases once.

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

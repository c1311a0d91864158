// Table lists per connection and namespace, kept until refreshed: listing tables is allowed
// only a few times a minute. A listing that has to wait for the limiter records why and until
// when, and reports a change every second while it waits and once when it ends, so the tree
// can say why and for how long. Clearing a listing cancels it. A failed one is kept until it
// is cleared (a retry), so redrawing the tree shows its error instead of asking again.

import { isCancelled } from '../../client/errors';
import type { CallOptions } from '../../client/types';
import { systemClock, type Clock } from '../../core/clock';

export type LimiterWait = Parameters<NonNullable<CallOptions['onQueued']>>[0];

export interface TableListing {
  tables: Promise<string[]>;
  /** resolves when the listing ends or starts waiting for the limiter, whichever comes first */
  ready: Promise<void>;
  settled: boolean;
  /** the listing ended with an error (kept for the tree to show) */
  failed: boolean;
  /** while the listing waits for the limiter: why, and when it will likely start (ms epoch) */
  waiting?: { reason: LimiterWait['reason']; until: number };
}

export type TableLoader = (call: { signal: AbortSignal; onQueued: (wait: LimiterWait) => void }) => Promise<string[]>;

export type ListingChanged = (connection: string, namespace: string) => void;

interface Entry extends TableListing {
  /** cancels the listing and its countdown */
  stop: AbortController;
}

const TICK_MS = 1_000;

export class TableListCache {
  private readonly lists = new Map<string, Entry>();

  constructor(
    private readonly onDidChange: ListingChanged,
    private readonly clock: Clock = systemClock,
  ) {}

  private static key(connection: string, namespace: string): string {
    return `${connection}\u0000${namespace}`;
  }

  get(connection: string, namespace: string, load: TableLoader): TableListing {
    const key = TableListCache.key(connection, namespace);
    const known = this.lists.get(key);
    if (known) return known;
    let becomeReady = (): void => undefined;
    const entry: Entry = {
      tables: Promise.resolve([]),
      ready: new Promise<void>((resolve) => (becomeReady = resolve)),
      settled: false,
      failed: false,
      stop: new AbortController(),
    };
    const current = (): boolean => this.lists.get(key) === entry;
    const onQueued = (wait: LimiterWait): void => {
      const counting = entry.waiting !== undefined;
      entry.waiting = { reason: wait.reason, until: this.clock.now() + wait.waitMs };
      becomeReady();
      if (!counting) void this.countDown(entry, () => current() && this.onDidChange(connection, namespace));
    };
    entry.tables = load({ signal: entry.stop.signal, onQueued });
    this.lists.set(key, entry);
    const settle = (error?: unknown): void => {
      const waited = entry.waiting !== undefined;
      // a cancelled listing is not kept: whoever cancelled it redraws the tree
      if (error !== undefined && isCancelled(error) && current()) this.lists.delete(key);
      entry.settled = true;
      entry.failed = error !== undefined;
      entry.waiting = undefined;
      entry.stop.abort();
      becomeReady();
      // whatever the outcome, a tree that shows the wait is told, to show the tables or the error instead
      if (waited && current()) this.onDidChange(connection, namespace);
    };
    entry.tables.then(
      () => settle(),
      (err: unknown) => settle(err ?? new Error('The listing failed.')),
    );
    return entry;
  }

  /**
   * Forgets a listing that has ended well, so the next `get` lists again; one under way carries
   * on, and a failed one stays until it is cleared (its error is what the tree shows meanwhile).
   */
  forgetSettled(connection: string, namespace: string): void {
    const key = TableListCache.key(connection, namespace);
    const known = this.lists.get(key);
    if (known?.settled && !known.failed) this.lists.delete(key);
  }

  /** Whether the listing kept for a namespace ended with an error. */
  failed(connection: string, namespace: string): boolean {
    return this.lists.get(TableListCache.key(connection, namespace))?.failed === true;
  }

  /** Forgets (and cancels) one namespace, one connection (no namespace) or everything (no arguments). */
  clear(connection?: string, namespace?: string): void {
    const matches = (key: string): boolean =>
      connection === undefined ||
      (namespace === undefined ? key.startsWith(`${connection}\u0000`) : key === TableListCache.key(connection, namespace));
    for (const [key, entry] of [...this.lists]) {
      if (!matches(key)) continue;
      entry.stop.abort();
      this.lists.delete(key);
    }
  }

  private async countDown(entry: Entry, tick: () => void): Promise<void> {
    while (!entry.settled) {
      try {
        await this.clock.sleep(TICK_MS, entry.stop.signal);
      } catch {
        return;
      }
      if (!entry.settled) tick();
    }
  }
}

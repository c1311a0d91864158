// Every query job of this workspace, newest first: the one source the Jobs view, the status
// bar and the commands read. Changes fire onDidChange (with the entry, or undefined when the
// list itself changed) and are saved through the JobStore, except transient progress. An
// entry folded into a newer one (the service answered with the same job) is still found by
// its old key for the rest of the session: whoever followed it follows the newer one.

import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { Emitter } from '../core/emitter';
import { isActive, type JobEntry, type QueryParams } from './jobEntry';
import type { JobStore } from './jobStore';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Patches that touch only these fields are not worth a write to storage. */
const TRANSIENT: readonly (keyof JobEntry)[] = ['queue', 'progress', 'statusTrouble'];

export type JobPatch = Partial<Omit<JobEntry, 'key' | 'connection' | 'namespace' | 'table' | 'request' | 'createdAt'>>;

export class JobsModel {
  private entries: JobEntry[];
  private readonly changed = new Emitter<JobEntry | undefined>();
  /** key of a folded entry -> key of the entry it was folded into */
  private readonly foldedInto = new Map<string, string>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly store: JobStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.entries = store.load().sort((a, b) => b.createdAt - a.createdAt);
  }

  /** Newest first. */
  list(): readonly JobEntry[] {
    return this.entries;
  }

  /** The entry of a key, or of the newer entry it was folded into. */
  get(key: string): JobEntry | undefined {
    let current = key;
    for (let hops = 0; hops <= this.foldedInto.size; hops++) {
      const entry = this.entries.find((e) => e.key === current);
      if (entry) return entry;
      const next = this.foldedInto.get(current);
      if (next === undefined) return undefined;
      current = next;
    }
    return undefined;
  }

  /** The newest entry of a connection for a service job id. */
  find(connection: string, jobId: string): JobEntry | undefined {
    return this.entries.find((e) => e.connection === connection && e.jobId === jobId);
  }

  active(): JobEntry[] {
    return this.entries.filter(isActive);
  }

  add(params: QueryParams, download: boolean): JobEntry {
    const now = this.clock.now();
    const entry: JobEntry = { ...params, key: randomUUID(), state: 'waiting', createdAt: now, updatedAt: now, download, files: [] };
    this.entries.unshift(entry);
    this.commit(undefined, true);
    return entry;
  }

  /**
   * Applies a patch. When the service answers with a job this list already holds (identical
   * requests return the same job), the older entry is folded into this one.
   */
  update(key: string, patch: JobPatch): JobEntry | undefined {
    const entry = this.get(key);
    if (!entry) return undefined;
    let listChanged = false;
    if (patch.jobId !== undefined && patch.jobId !== entry.jobId) {
      const older = this.find(entry.connection, patch.jobId);
      if (older && older !== entry) {
        if (entry.files.length === 0 && (patch.files ?? []).length === 0) entry.files = older.files;
        this.entries = this.entries.filter((e) => e !== older);
        this.foldedInto.set(older.key, entry.key);
        listChanged = true;
      }
    }
    const persist = listChanged || Object.keys(patch).some((k) => !TRANSIENT.includes(k as keyof JobEntry));
    if (patch.state !== undefined && patch.state !== entry.state) entry.updatedAt = this.clock.now();
    Object.assign(entry, patch);
    this.commit(listChanged ? undefined : entry, persist);
    return entry;
  }

  remove(key: string): JobEntry | undefined {
    const entry = this.get(key);
    if (!entry) return undefined;
    this.entries = this.entries.filter((e) => e !== entry);
    this.commit(undefined, true);
    return entry;
  }

  /** Forgets finished jobs last changed more than `days` ago. */
  prune(days: number): void {
    const cutoff = this.clock.now() - days * DAY_MS;
    const kept = this.entries.filter((e) => isActive(e) || e.updatedAt >= cutoff);
    if (kept.length === this.entries.length) return;
    this.entries = kept;
    this.commit(undefined, true);
  }

  dispose(): void {
    this.changed.dispose();
  }

  private commit(entry: JobEntry | undefined, persist: boolean): void {
    if (persist) {
      this.store.save(this.entries).then(undefined, (err: unknown) => {
        this.logger.warn(`Saving the job list failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
    this.changed.fire(entry);
  }
}

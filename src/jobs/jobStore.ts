// Persists the job list in a key-value storage: VS Code's workspaceState in the extension,
// a Map in tests. Entries that do not look like jobs (an older or damaged state) are
// dropped on load; transient fields (limiter waits, download progress, failing status checks)
// are never saved.

import { ACTIVE_STATES, type JobEntry, type JobState } from './jobEntry';

/** The part of VS Code's Memento the stores need. */
export interface KeyValueStorage {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

const JOBS_KEY = 'dataQuery.jobs';
const STATES: readonly JobState[] = [...ACTIVE_STATES, 'complete', 'failed', 'expired', 'cancelled'];

export class JobStore {
  constructor(private readonly storage: KeyValueStorage) {}

  load(): JobEntry[] {
    const raw = this.storage.get<unknown>(JOBS_KEY);
    return Array.isArray(raw) ? raw.filter(isJobEntry) : [];
  }

  save(entries: readonly JobEntry[]): PromiseLike<void> {
    return this.storage.update(
      JOBS_KEY,
      entries.map(({ queue: _queue, progress: _progress, statusTrouble: _trouble, ...kept }) => kept),
    );
  }
}

function isJobEntry(value: unknown): value is JobEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Partial<JobEntry>;
  return (
    typeof e.key === 'string' &&
    typeof e.connection === 'string' &&
    typeof e.namespace === 'string' &&
    typeof e.table === 'string' &&
    typeof e.request === 'object' &&
    e.request !== null &&
    typeof e.request.format === 'string' &&
    STATES.includes(e.state as JobState) &&
    typeof e.createdAt === 'number' &&
    Array.isArray(e.files)
  );
}

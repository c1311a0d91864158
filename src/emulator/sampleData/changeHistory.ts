// The change history behind every sample table. Time advances in commits every four hours;
// the emulator keeps 30 days of them. Each row of an `entity` table is born before or inside
// that window and may be updated once and deleted once; `log` rows are only appended, spread
// evenly over the window, and some may be delivered twice when asked (`duplicates`). Everything derives from the seed and the commit at start-up, so a
// job's content is fixed by its table and range.

import { Prng, hashString, unitFrom } from '../prng';
import type { TableDef } from './tableModel';
import { isoUtc } from '../../core/isoTime';

export const COMMIT_INTERVAL_MS = 4 * 3_600_000;
export const RETAINED_COMMITS = 180;

export interface RowEvents {
  /** commit time the row appeared (ms) */
  born: number;
  updated?: number;
  deleted?: number;
}

export interface ChangeRecord {
  meta: { action: 'U' | 'D'; ts: string };
  key: Record<string, unknown>;
  value?: Record<string, unknown>;
}

/** A snapshot at `until`, or the changes in (since, until] when `since` is set. */
export interface RecordRange {
  since?: number;
  until: number;
}

export class ChangeHistory {
  /** index of the newest commit when the emulator started */
  private readonly anchor: number;

  constructor(
    private readonly seed: number,
    startedAt: number,
    /** share of `log` records delivered twice in a row (at least once delivery) */
    private readonly duplicates = 0,
  ) {
    this.anchor = Math.floor(startedAt / COMMIT_INTERVAL_MS);
  }

  /** The newest commit at `now`: what a snapshot without `until` reflects. */
  latestCommit(now: number): number {
    return Math.floor(now / COMMIT_INTERVAL_MS) * COMMIT_INTERVAL_MS;
  }

  /** The oldest `since` an incremental query may use at `now`. */
  earliestSince(now: number): number {
    return this.latestCommit(now) - RETAINED_COMMITS * COMMIT_INTERVAL_MS;
  }

  events(table: TableDef, index: number): RowEvents {
    const t = hashString(`${table.namespace}.${table.name}`);
    const at = (commit: number): number => commit * COMMIT_INTERVAL_MS;
    if (table.history === 'log') {
      const n = Math.max(1, table.rowCount);
      const back = Math.floor(((n - 1 - index) * (RETAINED_COMMITS - 1)) / n);
      return { born: at(this.anchor - back) };
    }
    const r = (salt: number): number => unitFrom(this.seed, t, index, salt);
    const window = RETAINED_COMMITS - 10;
    const bornCommit = r(1) < 0.85 ? this.anchor - RETAINED_COMMITS - 1 - Math.floor(r(2) * 400) : this.anchor - Math.floor(r(2) * window);
    const events: RowEvents = { born: at(bornCommit) };
    let last = bornCommit;
    if (r(3) < 0.3) {
      const c = Math.max(last + 1, this.anchor - Math.floor(r(4) * window));
      if (c <= this.anchor) {
        events.updated = at(c);
        last = c;
      }
    }
    if (r(5) < 0.06) {
      const c = Math.max(last + 1, this.anchor - Math.floor(r(6) * 30));
      if (c <= this.anchor) events.deleted = at(c);
    }
    return events;
  }

  /** The records of rows [from, to) of a table for a range, in row order. */
  *records(table: TableDef, range: RecordRange, from: number, to: number): Generator<ChangeRecord> {
    const t = hashString(`${table.namespace}.${table.name}`);
    const { since, until } = range;
    const inRange = (ts: number | undefined): ts is number => ts !== undefined && ts <= until && (since === undefined || ts > since);
    for (let index = from; index < to; index++) {
      const ev = this.events(table, index);
      if (ev.born > until) continue;
      if (ev.deleted !== undefined && ev.deleted <= until) {
        if (since === undefined || ev.deleted <= since) continue;
        yield { meta: { action: 'D', ts: iso(ev.deleted) }, key: this.key(table, t, index, ev.born) };
        continue;
      }
      const updated = ev.updated !== undefined && ev.updated <= until;
      const changedAt = updated ? (ev.updated as number) : ev.born;
      if (since !== undefined && !inRange(changedAt)) continue;
      const key = this.key(table, t, index, changedAt);
      const ctx = { rng: Prng.from(this.seed, t, index, updated ? 2 : 1), index, changedAt };
      const value: Record<string, unknown> = {};
      for (const col of table.value) {
        const v = col.gen(ctx);
        if (v !== undefined && v !== null) value[col.name] = v;
      }
      const record: ChangeRecord = { meta: { action: 'U', ts: iso(changedAt) }, key, value };
      yield record;
      if (this.duplicates > 0 && table.history === 'log' && unitFrom(this.seed, t, index, 7) < this.duplicates) yield record;
    }
  }

  private key(table: TableDef, t: number, index: number, changedAt: number): Record<string, unknown> {
    const ctx = { rng: Prng.from(this.seed, t, index, 0), index, changedAt };
    const key: Record<string, unknown> = {};
    for (const col of table.key) key[col.name] = col.gen(ctx);
    return key;
  }
}

let lastMs = NaN;
let lastIso = '';
/** Commit times repeat from row to row, so the last conversion is reused. */
function iso(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = isoUtc(ms);
  }
  return lastIso;
}

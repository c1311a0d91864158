// What a rate ledger file holds, and the decisions made on it while its lock is held: per
// operation, the starts in the current window (oldest first, each with the id of the call it
// belongs to) and the pause a 429 set for everyone. Everything read from the file is checked:
// a file of the wrong shape, too big, or with times far in the future is not trusted (the
// caller replaces it). Pure functions over plain data; the file and its lock are elsewhere.

import { OPERATIONS, type Operation } from '../core/contract';
import { isRecord } from '../core/isRecord';

export const LEDGER_VERSION = 1;
/** A ledger larger than this is not one this code wrote. */
export const MAX_LEDGER_BYTES = 1024 * 1024;
/** The most starts one operation's entry may hold. */
export const MAX_LEDGER_STARTS = 5_000;
/** An operation allowed more calls than this per window is counted by each process alone. */
export const MAX_SHARED_LIMIT = 1_000;
const MAX_ID_LENGTH = 64;
/** How far ahead of this clock another process's clock may have written a start. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** The longest pause a ledger may claim (a Retry-After of a day is not believed). */
const MAX_PAUSE_AHEAD_MS = 24 * 3600_000;

export interface LedgerStart {
  at: number;
  id: string;
}

export interface LedgerEntry {
  /** oldest first */
  starts: LedgerStart[];
  /** no call of this operation starts before this time (ms since the epoch); 0 when none */
  pausedUntil: number;
}

export interface LedgerDoc {
  version: typeof LEDGER_VERSION;
  operations: Partial<Record<Operation, LedgerEntry>>;
}

export type StartDecision =
  | {
      granted: true;
      /** the ids given whose starts were recorded: the first ones, as many as the window had room for */
      ids: string[];
    }
  | {
      granted: false;
      /** the earliest moment another try may succeed */
      retryAt: number;
      pausedUntil: number;
      /** the start times in the window, oldest first (for estimating a queue's waits) */
      starts: number[];
    };

/** An operation's state as a status display shows it. */
export interface LedgerCount {
  /** start times in the window, oldest first */
  starts: number[];
  pausedUntil: number;
}

export function emptyLedger(): LedgerDoc {
  return { version: LEDGER_VERSION, operations: {} };
}

/** The ledger in `text`, or what is wrong with it. Unknown operations are left out. */
export function parseLedger(text: string, now: number): { doc: LedgerDoc } | { problem: string } {
  if (text.length > MAX_LEDGER_BYTES) return { problem: `it is larger than ${MAX_LEDGER_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'it is not valid JSON' };
  }
  if (!isRecord(value) || value.version !== LEDGER_VERSION || !isRecord(value.operations)) {
    return { problem: `it is not a version ${LEDGER_VERSION} rate ledger` };
  }
  const doc = emptyLedger();
  for (const operation of OPERATIONS) {
    const raw = value.operations[operation];
    if (raw === undefined) continue;
    const entry = parseEntry(raw, now);
    if (typeof entry === 'string') return { problem: `its ${operation} entry ${entry}` };
    doc.operations[operation] = entry;
  }
  return { doc };
}

function parseEntry(raw: unknown, now: number): LedgerEntry | string {
  if (!isRecord(raw) || !Array.isArray(raw.starts)) return 'has no list of starts';
  if (raw.starts.length > MAX_LEDGER_STARTS) return `holds more than ${MAX_LEDGER_STARTS} starts`;
  const pausedUntil = raw.pausedUntil ?? 0;
  if (typeof pausedUntil !== 'number' || !Number.isFinite(pausedUntil) || pausedUntil < 0) return 'has a pause that is not a time';
  if (pausedUntil > now + MAX_PAUSE_AHEAD_MS) return 'claims a pause of more than a day';
  const starts: LedgerStart[] = [];
  for (const s of raw.starts) {
    if (!isRecord(s) || typeof s.at !== 'number' || !Number.isFinite(s.at)) return 'has a start that is not a time';
    if (typeof s.id !== 'string' || s.id.length === 0 || s.id.length > MAX_ID_LENGTH) return 'has a start without a proper id';
    if (s.at > now + CLOCK_SKEW_MS) return 'has a start in the future';
    starts.push({ at: s.at, id: s.id });
  }
  starts.sort((a, b) => a.at - b.at);
  return { starts, pausedUntil };
}

export function serializeLedger(doc: LedgerDoc): string {
  return `${JSON.stringify(doc)}\n`;
}

function entryOf(doc: LedgerDoc, operation: Operation): LedgerEntry {
  let entry = doc.operations[operation];
  if (!entry) {
    entry = { starts: [], pausedUntil: 0 };
    doc.operations[operation] = entry;
  }
  return entry;
}

/** Drops the starts that have left the window (a start exactly one window old has left it). */
function prune(entry: LedgerEntry, now: number, windowMs: number): void {
  const cutoff = now - windowMs;
  let drop = 0;
  while (drop < entry.starts.length && entry.starts[drop].at <= cutoff) drop++;
  if (drop > 0) entry.starts.splice(0, drop);
  if (entry.pausedUntil <= now) entry.pausedUntil = 0;
}

function insertSorted(entry: LedgerEntry, start: LedgerStart): void {
  let i = entry.starts.length;
  while (i > 0 && entry.starts[i - 1].at > start.at) i--;
  entry.starts.splice(i, 0, start);
}

/**
 * Records starts of `operation` now, one per id (as many as the window has room for), when no
 * pause holds; otherwise says when to try again. Changes `doc` only when starts are granted
 * (and by dropping what has aged out, which needs no saving).
 */
export function decideStart(doc: LedgerDoc, operation: Operation, limit: number, windowMs: number, now: number, ids: readonly string[]): StartDecision {
  const entry = entryOf(doc, operation);
  prune(entry, now, windowMs);
  const full = entry.starts.length >= limit;
  if (!full && entry.pausedUntil <= now) {
    const granted = ids.slice(0, limit - entry.starts.length);
    for (const id of granted) insertSorted(entry, { at: now, id });
    return { granted: true, ids: granted };
  }
  const windowFreeAt = full ? entry.starts[entry.starts.length - limit].at + windowMs : now;
  return {
    granted: false,
    retryAt: Math.max(entry.pausedUntil, windowFreeAt),
    pausedUntil: entry.pausedUntil,
    starts: entry.starts.map((s) => s.at),
  };
}

/**
 * The call `id` was answered (its start now counts from `now`, as the server counted it no
 * later) or never left (`answered` false: its start is taken out). An answered start that has
 * aged out or was lost with a replaced file is recorded again. Returns whether `doc` changed.
 */
export function settleStart(doc: LedgerDoc, operation: Operation, id: string, now: number, windowMs: number, answered: boolean): boolean {
  const entry = entryOf(doc, operation);
  prune(entry, now, windowMs);
  const i = entry.starts.findIndex((s) => s.id === id);
  if (i >= 0) entry.starts.splice(i, 1);
  if (answered) insertSorted(entry, { at: now, id });
  return answered || i >= 0;
}

/** Closes the operation's gate for every process until `until`; never shortens a pause. */
export function recordPause(doc: LedgerDoc, operation: Operation, until: number): boolean {
  const entry = entryOf(doc, operation);
  if (until <= entry.pausedUntil) return false;
  entry.pausedUntil = until;
  return true;
}

/** Each operation's starts in the window and pause, for a status display. */
export function ledgerCounts(doc: LedgerDoc, now: number, windowMs: number): Map<Operation, LedgerCount> {
  const counts = new Map<Operation, LedgerCount>();
  for (const operation of OPERATIONS) {
    const entry = doc.operations[operation];
    if (!entry) continue;
    const starts = entry.starts.filter((s) => s.at > now - windowMs).map((s) => s.at);
    counts.set(operation, { starts, pausedUntil: entry.pausedUntil > now ? entry.pausedUntil : 0 });
  }
  return counts;
}

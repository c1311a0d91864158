// Column profiles of an open result's view: per column its values, NULLs, distinct values,
// least and greatest, and by kind the mean, quartiles and histogram (numbers), the earliest,
// latest and histogram (times), or the most common values (text, enums, booleans and the rest).
// The profile waits for the result's copy (copyScheduler.ts, which copies several files at a
// time while a profile waits) and reads the copy, COLUMNS_AT_ONCE columns at a time, each chunk
// in two or three queries over all its columns (profilePasses.ts); each column's profile is sent
// as a part of the answer once its chunk is done. Every figure is a DuckDB aggregate or sketch
// (distinct values counted by grouping up to EXACT_DISTINCT_UP_TO, else estimated by
// HyperLogLog; quartiles of a uniform sample; grouped counts of values cut to PROFILE_CHARS; the
// most common of many distinct values from a sketch, counted exactly), so memory does not grow
// with the result's size.

import { EngineError } from './engineErrors';
import type { ColumnProfile, ResultColumn, ResultProfile, View } from './engineProtocol';
import type { RunWork, Work } from './engineWork';
import type { CopyScheduler } from './copyScheduler';
import type { OpenResult } from './openResult';
import {
  bucketsOf,
  EXACT_DISTINCT_UP_TO,
  firstPass,
  groupings,
  kindOf,
  literal,
  topCandidates,
  type Buckets,
  type ColumnGroups,
  type ColumnStats,
  type GroupsAsked,
  type Kind,
  type OnRows,
} from './profilePasses';
import { viewRows } from './resultQueries';
import { isoTimestamp } from './rowValues';
import type { BoundSql } from './sqlText';
import { checkFilterValues, withUsersWhere } from './usersWhere';

/**
 * Columns profiled by the same queries, a part of the answer sent after each chunk: on the
 * copy of 2 GiB of JSONL (14 columns) chunks of 2 to 6 took about as long in all as one of 14,
 * and sent the first column in a third to a half of the time; chunks of one took longer.
 */
const COLUMNS_AT_ONCE = 4;

/** The columns asked for, by name, in the order asked (all of them when none are named). */
export function chosenColumns(all: ResultColumn[], names?: string[]): ResultColumn[] {
  if (names === undefined) return all;
  const chosen: ResultColumn[] = [];
  for (const name of names) {
    const column = all.find((c) => c.name === name);
    if (!column) {
      const known = all.map((c) => c.name);
      const listed = known.length > 12 ? `${known.slice(0, 12).join(', ')}, ...` : known.join(', ');
      throw new EngineError('syntax', `The result has no column "${name}". Its columns: ${listed}.`);
    }
    if (!chosen.includes(column)) chosen.push(column);
  }
  return chosen;
}

/** What profiling needs of the engine: its runner and the copy's scheduler. */
export interface ProfileParts {
  run: RunWork;
  copies: Pick<CopyScheduler, 'untilCopiedWhole'>;
}

/**
 * The profile of `view` over `result`: waits for the copy, hurrying it (the rows copied are
 * reported as progress), then profiles the chosen columns a chunk at a time, sending each
 * column as a part. A gzip file found damaged fails it naming the file; cancelling stops it
 * within a query.
 */
export async function profileResult(parts: ProfileParts, work: Work, result: OpenResult, view: View, names?: string[]): Promise<ResultProfile> {
  const columns = chosenColumns(result.columns, names);
  if (result.damage) throw result.damage;
  await parts.run(work, (conn) => checkFilterValues(conn, view, result.columns));
  await parts.copies.untilCopiedWhole(work, result, (rows) => work.progress(rows), { hurry: true });
  const rows = viewRows(result, view, false, true);
  const onRows: OnRows = (task) => parts.run(work, (conn) => withUsersWhere(conn, view, result.columns, () => result.store.use(() => task(conn))));
  let total = 0;
  const profiles: ColumnProfile[] = [];
  let from = 0;
  do {
    const chunk = await profileColumns(onRows, rows, columns.slice(from, from + COLUMNS_AT_ONCE));
    total = chunk.rows;
    for (const profile of chunk.columns) {
      profiles.push(profile);
      work.part?.(profile);
    }
    from += COLUMNS_AT_ONCE;
  } while (from < columns.length);
  return { rows: total, columns: profiles };
}

/** The profiles of `columns` over `rows` (the view's rows, as viewRows gives them). */
async function profileColumns(onRows: OnRows, rows: BoundSql, columns: ResultColumn[]): Promise<ResultProfile> {
  const first = await firstPass(onRows, rows, columns);
  const kinds = columns.map(kindOf);
  // beyond this many distinct values they are estimated, and the most common are a sketch's
  const many = first.stats.map((stats) => stats.estimate > EXACT_DISTINCT_UP_TO);
  const candidates = await topCandidates(onRows, rows, columns, kinds.flatMap((kind, i) => (kind === 'text' && many[i] ? [i] : [])));
  const asked = first.stats.map((stats, i): GroupsAsked => {
    const kind = kinds[i];
    const buckets = bucketsFor(kind, stats);
    const ask: GroupsAsked = buckets ? { histogram: buckets } : {};
    if (kind === 'text' || kind === 'boolean') {
      ask.top = candidates.get(i) ?? 'all';
      ask.long = stats.long;
      // the groups of all values are the distinct values, unless some were cut: then their hashes are counted
      if (!many[i] && stats.long) ask.distinct = 'hashes';
    } else if (!many[i]) {
      ask.distinct = 'values';
    }
    return ask;
  });
  const groups = await groupings(onRows, rows, columns, asked);
  const profiles: ColumnProfile[] = [];
  for (const [i, column] of columns.entries()) profiles.push(await columnProfile(onRows, column, kinds[i], first.stats[i], groups[i], many[i]));
  return { rows: first.rows, columns: profiles };
}

/** The buckets of a number or time column with finite values. */
function bucketsFor(kind: Kind, stats: ColumnStats): Buckets | undefined {
  if (kind !== 'integer' && kind !== 'decimal' && kind !== 'float' && kind !== 'time') return undefined;
  if (stats.lo === undefined || stats.lo === null || stats.hi === undefined || stats.hi === null) return undefined;
  return bucketsOf(kind, stats.lo, stats.hi);
}

async function columnProfile(onRows: OnRows, column: ResultColumn, kind: Kind, stats: ColumnStats, groups: ColumnGroups, many: boolean): Promise<ColumnProfile> {
  // few distinct values are counted: as the groups of the most common values when none was cut
  const exact = many ? undefined : groups.top && !groups.cut ? groups.topGroups : groups.distinct;
  const profile: ColumnProfile = {
    name: column.name,
    type: column.type,
    count: stats.count,
    nulls: stats.rows - stats.count,
    distinct: exact ?? stats.estimate,
    distinctApproximate: exact === undefined,
    min: shown(kind, stats.min),
    max: shown(kind, stats.max),
  };
  if (kind === 'text' || kind === 'boolean') {
    profile.top = (groups.top ?? []).map(({ value, count, cut }) => (cut ? { value, count, cut: true as const } : { value, count }));
    return profile;
  }
  if (kind === 'float' || kind === 'time') profile.nonFinite = stats.nonFinite;
  if (kind !== 'time' && stats.lo !== null && stats.lo !== undefined && stats.quartiles) {
    profile.mean = stats.mean ?? undefined;
    profile.quantiles = { p25: stats.quartiles[0], p50: stats.quartiles[1], p75: stats.quartiles[2] };
  }
  const buckets = bucketsFor(kind, stats);
  profile.histogram = buckets && groups.histogram ? await histogram(onRows, kind, buckets, groups.histogram) : [];
  return profile;
}

/** A value as a profile hands it out: JSON-safe (see ColumnProfile). */
function shown(kind: Kind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (kind === 'integer' && typeof value === 'string' && Number.isSafeInteger(Number(value))) return Number(value);
  if (kind === 'time' && typeof value === 'string') return isoTime(value);
  return value;
}

/** `2026-11-19 00:00:00+00` as `2026-11-19T00:00:00Z`; a timestamp without a zone is UTC here. */
function isoTime(text: string): string {
  const iso = isoTimestamp(text);
  return iso.includes('T') && !iso.endsWith('Z') ? `${iso}Z` : iso;
}

/**
 * The buckets with their edges: from `lo` to `hi` (the finite values' least and greatest; for
 * times in microseconds since 1970), the last one closed, times shown as ISO 8601 text.
 */
async function histogram(onRows: OnRows, kind: Kind, buckets: Buckets, counts: number[]): Promise<{ from: unknown; to: unknown; count: number }[]> {
  const { lo, hi, width, count } = buckets;
  const edges = Array.from({ length: count + 1 }, (_, i) => (i === count ? (kind === 'integer' ? lo + count * width : hi) : lo + i * width));
  const shownEdges = kind === 'time' ? await timeEdges(onRows, edges) : edges;
  return counts.map((n, i) => ({ from: shownEdges[i], to: shownEdges[i + 1], count: n }));
}

/** Microseconds since 1970 as ISO 8601 text, through DuckDB (its range is wider than a JavaScript Date's). */
async function timeEdges(onRows: OnRows, edges: number[]): Promise<string[]> {
  const select = edges.map((e) => `CAST(make_timestamp(CAST(${literal(e)} AS BIGINT)) AS VARCHAR)`);
  const [row] = await onRows(async (conn) => (await conn.runAndReadAll(`SELECT ${select.join(', ')}`)).getRowsJson());
  return row.map((text) => isoTime(String(text)));
}

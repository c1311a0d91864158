// Column profiles of an open result's view: per column its values, NULLs, distinct values,
// least and greatest, and by kind the mean, quartiles and histogram (numbers), the earliest,
// latest and histogram (times), or the most common values (text, enums, booleans and the rest). The profile waits for the result's copy (copyScheduler.ts) and reads the copy,
// column by column, each column's profile sent as a part of the answer as soon as it is done.
// Every figure is a DuckDB aggregate (distinct values counted as text is grouped, else by
// their hashes up to EXACT_DISTINCT_UP_TO, else estimated by HyperLogLog; t-digest quartiles;
// grouped counts of values cut to PROFILE_CHARS), so memory does not grow with the result's size.

import type { DuckDBConnection } from '@duckdb/node-api';
import { EngineError } from './engineErrors';
import { PROFILE_BUCKETS, PROFILE_CHARS, PROFILE_TOP, type ColumnProfile, type ResultColumn, type ResultProfile, type View } from './engineProtocol';
import type { RunWork, Work } from './engineWork';
import type { CopyScheduler } from './copyScheduler';
import type { OpenResult } from './openResult';
import { viewRows } from './resultQueries';
import { isoTimestamp } from './rowValues';
import { quoteIdent, type BoundSql } from './sqlText';
import { checkFilterValues, withUsersWhere } from './usersWhere';

/**
 * A column whose distinct values are estimated (HyperLogLog, which DuckDB's approx_count_distinct
 * gets within about 20%) at no more than this many has them counted exactly: a set of that many
 * 64-bit hashes is a few MB.
 */
export const EXACT_DISTINCT_UP_TO = 100_000;

type Kind = 'integer' | 'decimal' | 'float' | 'time' | 'boolean' | 'text';

const INTEGER_TYPES = /^U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$/;

export function kindOf(column: Pick<ResultColumn, 'sqlType'>): Kind {
  const type = column.sqlType.toUpperCase();
  if (INTEGER_TYPES.test(type)) return 'integer';
  if (type.startsWith('DECIMAL')) return 'decimal';
  if (type === 'FLOAT' || type === 'DOUBLE') return 'float';
  if (type === 'DATE' || type.startsWith('TIMESTAMP')) return 'time';
  if (type === 'BOOLEAN') return 'boolean';
  return 'text';
}

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
  copies: Pick<CopyScheduler, 'untilCopied'>;
}

/**
 * The profile of `view` over `result`: waits for the copy (the rows copied are reported as
 * progress), then profiles each chosen column in turn, sending each as a part. A gzip file
 * found damaged fails it naming the file; cancelling stops it between or within columns.
 */
export async function profileResult(parts: ProfileParts, work: Work, result: OpenResult, view: View, names?: string[]): Promise<ResultProfile> {
  const columns = chosenColumns(result.columns, names);
  if (result.damage) throw result.damage;
  await parts.run(work, (conn) => checkFilterValues(conn, view, result.columns));
  await parts.copies.untilCopied(work, result, (rows) => work.progress(rows));
  if (result.copyFailure?.kind === 'corrupt') throw result.copyFailure;
  if (!result.store.complete) throw new EngineError('io', `The result could not be read whole: ${result.copyFailure?.message.replace(/\.$/, '') ?? 'it was closed'}.`);
  const rows = viewRows(result, view, false, true);
  const onTable = <T>(task: (conn: DuckDBConnection) => Promise<T>): Promise<T> =>
    parts.run(work, (conn) => withUsersWhere(conn, view, result.columns, () => result.store.use(() => task(conn))));
  const total = await onTable(async (conn) => Number(await first(conn, { sql: `SELECT count(*) FROM ${rows.sql}`, params: rows.params })));
  const profiles: ColumnProfile[] = [];
  for (const column of columns) {
    const profile = await onTable((conn) => profileColumn(conn, rows, column));
    profiles.push(profile);
    work.part?.(profile);
  }
  return { rows: total, columns: profiles };
}

async function first(conn: DuckDBConnection, query: BoundSql): Promise<unknown> {
  return (await conn.runAndReadAll(query.sql, query.params)).getRowsJson()[0][0];
}

async function readRows(conn: DuckDBConnection, sql: string, params: string[]): Promise<unknown[][]> {
  return (await conn.runAndReadAll(sql, params)).getRowsJson() as unknown[][];
}

/** One column's profile over `rows` (the view's rows, as viewRows gives them). */
export async function profileColumn(conn: DuckDBConnection, rows: BoundSql, column: ResultColumn): Promise<ColumnProfile> {
  const kind = kindOf(column);
  const from = `FROM (SELECT ${quoteIdent(column.name)} AS v FROM ${rows.sql}) AS dq_values`;
  const text = `left(CAST(v AS VARCHAR), ${PROFILE_CHARS})`;
  const numeric = kind === 'integer' || kind === 'decimal' || kind === 'float';
  // the finite values; the others (NaN, infinities) are counted apart
  const finite = kind === 'float' || kind === 'time' ? 'isfinite(v)' : 'v IS NOT NULL';
  const select = ['count(*)', 'count(v)', `approx_count_distinct(${kind === 'text' ? 'CAST(v AS VARCHAR)' : 'v'})`];
  if (numeric) {
    select.push(`min(v) FILTER (WHERE ${finite})`, `max(v) FILTER (WHERE ${finite})`);
    select.push(`count(v) FILTER (WHERE NOT ${finite})`, `CAST(min(v) FILTER (WHERE ${finite}) AS DOUBLE)`, `CAST(max(v) FILTER (WHERE ${finite}) AS DOUBLE)`);
    select.push(`avg(CAST(v AS DOUBLE)) FILTER (WHERE ${finite})`, `approx_quantile(CAST(v AS DOUBLE), [0.25, 0.5, 0.75]) FILTER (WHERE ${finite})`);
  } else if (kind === 'time') {
    select.push(`CAST(min(v) FILTER (WHERE ${finite}) AS VARCHAR)`, `CAST(max(v) FILTER (WHERE ${finite}) AS VARCHAR)`);
    select.push(`count(v) FILTER (WHERE NOT ${finite})`, `CAST(epoch_us(min(v) FILTER (WHERE ${finite})) AS DOUBLE)`, `CAST(epoch_us(max(v) FILTER (WHERE ${finite})) AS DOUBLE)`);
  } else if (kind === 'boolean') {
    select.push('min(v)', 'max(v)');
  } else {
    select.push(`min(${text})`, `max(${text})`);
  }
  const [stats] = await readRows(conn, `SELECT ${select.join(', ')} ${from}`, rows.params);
  const [, values, distinct, min, max] = stats;
  const count = Number(values);
  const estimate = Math.min(Number(distinct), count);
  // text, enums and booleans are grouped for their top values: without a value cut, the groups are the distinct values
  const top = numeric || kind === 'time' ? undefined : await topValues(conn, from, rows.params, kind);
  // else few enough to count exactly in little memory: each value's 64-bit hash, once
  const exact =
    top?.groups ?? (estimate <= EXACT_DISTINCT_UP_TO ? Number(await first(conn, { sql: `SELECT count(DISTINCT hash(v)) FILTER (WHERE v IS NOT NULL) ${from}`, params: rows.params })) : undefined);
  const profile: ColumnProfile = {
    name: column.name,
    type: column.type,
    count,
    nulls: Number(stats[0]) - count,
    distinct: exact ?? estimate,
    distinctApproximate: exact === undefined,
    min: shown(kind, min),
    max: shown(kind, max),
  };
  if (numeric || kind === 'time') {
    const [nonFinite, lo, hi] = stats.slice(5, 8) as [unknown, number | null, number | null];
    if (kind === 'float' || kind === 'time') profile.nonFinite = Number(nonFinite);
    if (numeric && lo !== null) {
      const [mean, quartiles] = stats.slice(8, 10) as [number, number[]];
      profile.mean = mean;
      profile.quantiles = { p25: quartiles[0], p50: quartiles[1], p75: quartiles[2] };
    }
    profile.histogram = lo === null || hi === null ? [] : await histogram(conn, from, rows.params, kind, lo, hi);
  } else if (top) {
    profile.top = top.values;
  }
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
 * Equal buckets from `lo` to `hi` (the finite values' least and greatest; for times in
 * microseconds since 1970), the last one closed: PROFILE_BUCKETS of them, or for whole numbers
 * spanning fewer, one per number.
 */
async function histogram(conn: DuckDBConnection, from: string, params: string[], kind: Kind, lo: number, hi: number): Promise<{ from: unknown; to: unknown; count: number }[]> {
  const whole = kind === 'integer';
  const width = whole ? Math.max(1, Math.ceil((hi - lo + 1) / PROFILE_BUCKETS)) : (hi - lo) / PROFILE_BUCKETS;
  const buckets = width === 0 ? 1 : whole ? Math.ceil((hi - lo + 1) / width) : PROFILE_BUCKETS;
  const x = kind === 'time' ? 'CAST(epoch_us(v) AS DOUBLE)' : 'CAST(v AS DOUBLE)';
  const finite = kind === 'float' || kind === 'time' ? 'isfinite(v)' : 'v IS NOT NULL';
  const bucket = width === 0 ? '0' : `least(CAST(floor((${x} - ${literal(lo)}) / ${literal(width)}) AS BIGINT), ${buckets - 1})`;
  const counted = await readRows(conn, `SELECT ${bucket} AS b, count(*) ${from} WHERE ${finite} GROUP BY b`, params);
  const counts = new Array<number>(buckets).fill(0);
  for (const [b, n] of counted) counts[Math.max(0, Math.min(buckets - 1, Number(b)))] += Number(n);
  const edges = Array.from({ length: buckets + 1 }, (_, i) => (i === buckets ? (whole ? lo + buckets * width : hi) : lo + i * width));
  const shownEdges = kind === 'time' ? await timeEdges(conn, edges) : edges;
  return counts.map((count, i) => ({ from: shownEdges[i], to: shownEdges[i + 1], count }));
}

/** A number as SQL text that reads back as the same double. */
function literal(n: number): string {
  return `CAST('${String(n)}' AS DOUBLE)`;
}

/** Microseconds since 1970 as ISO 8601 text, through DuckDB (its range is wider than a JavaScript Date's). */
async function timeEdges(conn: DuckDBConnection, edges: number[]): Promise<string[]> {
  const select = edges.map((e) => `CAST(make_timestamp(CAST(${literal(e)} AS BIGINT)) AS VARCHAR)`);
  const [row] = await readRows(conn, `SELECT ${select.join(', ')}`, []);
  return row.map((text) => isoTime(String(text)));
}

/**
 * The PROFILE_TOP most common values, most common first (ties in the values' order), and how
 * many values there are when no value was cut (the groups are then the distinct values).
 */
async function topValues(conn: DuckDBConnection, from: string, params: string[], kind: Kind): Promise<{ values: NonNullable<ColumnProfile['top']>; groups?: number }> {
  const value = kind === 'boolean' ? 'v' : `left(CAST(v AS VARCHAR), ${PROFILE_CHARS})`;
  const cut = kind === 'boolean' ? 'false' : `bool_or(length(CAST(v AS VARCHAR)) > ${PROFILE_CHARS})`;
  const grouped = `SELECT ${value} AS value, count(*) AS n, ${cut} AS cut ${from} WHERE v IS NOT NULL GROUP BY value`;
  const sql = `SELECT value, n, cut, count(*) OVER (), bool_or(cut) OVER () FROM (${grouped}) ORDER BY n DESC, value LIMIT ${PROFILE_TOP}`;
  const rows = await readRows(conn, sql, params);
  const values = rows.map(([v, n, wasCut]) => (wasCut === true ? { value: v, count: Number(n), cut: true as const } : { value: v, count: Number(n) }));
  if (rows.length === 0) return { values, groups: 0 };
  return { values, groups: rows[0][4] === true ? undefined : Number(rows[0][3]) };
}

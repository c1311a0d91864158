// The queries of a column profile, each over every column profiled at once, so a profile of
// any number of columns reads the view's rows two or three times rather than two or three
// times per column:
// 1. the figures of one pass: values, least and greatest, mean, quartiles, NaN and infinities,
//    and an estimate of the distinct values (HyperLogLog) that decides how the rest is counted;
// 2. only for text columns estimated at more than EXACT_DISTINCT_UP_TO distinct values: their
//    candidates for the most common values (DuckDB's approx_top_k, a sketch of fixed size);
// 3. one grouping of the rows by several keys at once (GROUPING SETS): each histogram's bucket,
//    each column of few enough distinct values by its value (its exact distinct count, and for
//    text and booleans its most common values), and each candidate of step 2 (their exact counts).
// Each grouping holds at most about EXACT_DISTINCT_UP_TO groups, and the sketches are of fixed
// size, so memory does not grow with the view's rows.

import type { DuckDBConnection } from '@duckdb/node-api';
import { PROFILE_BUCKETS, PROFILE_CHARS, PROFILE_TOP, type ResultColumn } from './engineProtocol';
import { quoteIdent, type BoundSql } from './sqlText';

/**
 * A column estimated (HyperLogLog, which DuckDB's approx_count_distinct gets within about 20%)
 * at no more than this many distinct values has them counted exactly, by grouping: a grouping
 * of that many values takes a few MB. Beyond, the estimate stands, and the most common values
 * of text are those of a sketch (each counted exactly).
 */
export const EXACT_DISTINCT_UP_TO = 100_000;

/**
 * The quartiles are those of a uniform sample of this many finite values (DuckDB's
 * reservoir_quantile): within about 0.2% of the values' ranks of the true ones, and exact for
 * fewer values; a tenth of the work of a t-digest (approx_quantile) per value.
 */
const QUANTILE_SAMPLE = 65_536;

/** How many candidates the sketch of the most common values names, for the PROFILE_TOP kept. */
const CANDIDATES = 3 * PROFILE_TOP;

export type Kind = 'integer' | 'decimal' | 'float' | 'time' | 'boolean' | 'text';

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

/** Runs a query on the view's rows (its WHERE and filters judged as the user's, the copy attached). */
export type OnRows = <T>(task: (conn: DuckDBConnection) => Promise<T>) => Promise<T>;

/** What the first pass found of a column. */
export interface ColumnStats {
  /** the view's rows */
  rows: number;
  /** the values that are not NULL */
  count: number;
  /** the estimate of its distinct values, at most `count` */
  estimate: number;
  /** least and greatest as DuckDB gives them (text cut to PROFILE_CHARS, times as text) */
  min: unknown;
  max: unknown;
  /** numbers and times: the finite values' least and greatest as doubles (times in microseconds since 1970) */
  lo?: number | null;
  hi?: number | null;
  /** floats and times */
  nonFinite?: number;
  mean?: number | null;
  quartiles?: number[] | null;
  /** text: some value is longer than PROFILE_CHARS characters (in bytes: maybe) */
  long?: boolean;
}

/** The buckets of a histogram: PROFILE_BUCKETS from `lo` to `hi`, or for whole numbers spanning fewer, one per number. */
export interface Buckets {
  lo: number;
  hi: number;
  width: number;
  count: number;
}

/** What the grouping found of a column: each as asked. */
export interface ColumnGroups {
  /** counts per bucket */
  histogram?: number[];
  /** the distinct values, counted */
  distinct?: number;
  /** how many groups the most common values were chosen among */
  topGroups?: number;
  /** the most common values (text cut to PROFILE_CHARS), most common first, ties in the values' order */
  top?: { value: unknown; count: number; cut: boolean }[];
  /** some value grouped was cut to PROFILE_CHARS (then its groups are not its distinct values) */
  cut?: boolean;
}

/** What the grouping is asked for each column. */
export interface GroupsAsked {
  histogram?: Buckets;
  /** count the distinct values (by the values, or by their hashes when long text is cut) */
  distinct?: 'values' | 'hashes';
  /** the most common values: of all values, or of these candidates */
  top?: 'all' | unknown[];
  /** text: some value may be longer than PROFILE_CHARS (each group then tells whether its values were cut) */
  long?: boolean;
}

/** A column as the queries name it: `c<n>` in a projection of the view's rows. */
const alias = (i: number): string => `c${i}`;

/** A text column's value as text (other types than VARCHAR cast). */
function asText(column: ResultColumn, i: number): string {
  return column.sqlType.toUpperCase() === 'VARCHAR' ? alias(i) : `CAST(${alias(i)} AS VARCHAR)`;
}

/** A text value cut to PROFILE_CHARS characters (cheaply: a value of fewer bytes needs no cut). */
function cutText(text: string): string {
  return `CASE WHEN strlen(${text}) > ${PROFILE_CHARS} THEN left(${text}, ${PROFILE_CHARS}) ELSE ${text} END`;
}

function finiteOf(kind: Kind, v: string): string {
  return kind === 'float' || kind === 'time' ? `isfinite(${v})` : `${v} IS NOT NULL`;
}

/** The view's rows with the profiled columns as `c0`, `c1`, ... */
function projected(rows: BoundSql, columns: ResultColumn[]): string {
  const select = columns.length === 0 ? 'NULL AS dq_none' : columns.map((c, i) => `${quoteIdent(c.name)} AS ${alias(i)}`).join(', ');
  return `(SELECT ${select} FROM ${rows.sql}) AS dq_values`;
}

async function readRows(conn: DuckDBConnection, sql: string, params: string[]): Promise<unknown[][]> {
  return (await conn.runAndReadAll(sql, params)).getRowsJson() as unknown[][];
}

/** Pass 1: the rows, and each column's figures of one pass. */
export async function firstPass(onRows: OnRows, rows: BoundSql, columns: ResultColumn[]): Promise<{ rows: number; stats: ColumnStats[] }> {
  const select = ['count(*)'];
  const readers: ((row: unknown[]) => ColumnStats)[] = [];
  columns.forEach((column, i) => {
    const kind = kindOf(column);
    const v = alias(i);
    const at = select.length;
    const finite = finiteOf(kind, v);
    select.push(`count(${v})`, `approx_count_distinct(${kind === 'text' ? asText(column, i) : v})`);
    if (kind === 'integer' || kind === 'decimal' || kind === 'float') {
      select.push(`min(${v}) FILTER (WHERE ${finite})`, `max(${v}) FILTER (WHERE ${finite})`);
      select.push(kind === 'float' ? `count(${v}) FILTER (WHERE NOT ${finite})` : 'NULL');
      select.push(`CAST(min(${v}) FILTER (WHERE ${finite}) AS DOUBLE)`, `CAST(max(${v}) FILTER (WHERE ${finite}) AS DOUBLE)`);
      select.push(`avg(CAST(${v} AS DOUBLE)) FILTER (WHERE ${finite})`, `reservoir_quantile(CAST(${v} AS DOUBLE), [0.25, 0.5, 0.75], ${QUANTILE_SAMPLE}) FILTER (WHERE ${finite})`);
    } else if (kind === 'time') {
      select.push(`CAST(min(${v}) FILTER (WHERE ${finite}) AS VARCHAR)`, `CAST(max(${v}) FILTER (WHERE ${finite}) AS VARCHAR)`, `count(${v}) FILTER (WHERE NOT ${finite})`);
      select.push(`CAST(epoch_us(min(${v}) FILTER (WHERE ${finite})) AS DOUBLE)`, `CAST(epoch_us(max(${v}) FILTER (WHERE ${finite})) AS DOUBLE)`);
    } else if (kind === 'boolean') {
      select.push(`min(${v})`, `max(${v})`);
    } else {
      // the least of the values cut is the least value cut: a prefix keeps the order
      const text = asText(column, i);
      select.push(`left(min(${text}), ${PROFILE_CHARS})`, `left(max(${text}), ${PROFILE_CHARS})`, `max(strlen(${text})) > ${PROFILE_CHARS}`);
    }
    readers.push((row) => {
      const count = Number(row[at]);
      const stats: ColumnStats = { rows: Number(row[0]), count, estimate: Math.min(Number(row[at + 1]), count), min: row[at + 2], max: row[at + 3] };
      if (kind === 'integer' || kind === 'decimal' || kind === 'float') {
        if (kind === 'float') stats.nonFinite = Number(row[at + 4]);
        [stats.lo, stats.hi, stats.mean] = row.slice(at + 5, at + 8) as (number | null)[];
        stats.quartiles = row[at + 8] as number[] | null;
      } else if (kind === 'time') {
        stats.nonFinite = Number(row[at + 4]);
        [stats.lo, stats.hi] = row.slice(at + 5, at + 7) as (number | null)[];
      } else if (kind === 'text') {
        stats.long = row[at + 4] === true;
      }
      return stats;
    });
  });
  const [row] = await onRows((conn) => readRows(conn, `SELECT ${select.join(', ')} FROM ${projected(rows, columns)}`, rows.params));
  return { rows: Number(row[0]), stats: readers.map((read) => read(row)) };
}

/** Pass 2: the candidates for the most common values of the text columns `which` (by place in `columns`). */
export async function topCandidates(onRows: OnRows, rows: BoundSql, columns: ResultColumn[], which: number[]): Promise<Map<number, unknown[]>> {
  const found = new Map<number, unknown[]>();
  if (which.length === 0) return found;
  const select = which.map((i) => `approx_top_k(${cutText(asText(columns[i], i))}, ${CANDIDATES})`);
  const [row] = await onRows((conn) => readRows(conn, `SELECT ${select.join(', ')} FROM ${projected(rows, columns)}`, rows.params));
  which.forEach((i, n) => found.set(i, (row[n] as unknown[] | null) ?? []));
  return found;
}

/**
 * Pass 3: the groupings asked (a histogram, distinct values, most common values) of every column
 * at once, in GROUPING SETS queries of at most KEYS_AT_ONCE keys each (one for a few columns).
 * Only the groups wanted come back: each histogram's buckets, each column's PROFILE_TOP most
 * common values, and the number of groups of each.
 */
export async function groupings(onRows: OnRows, rows: BoundSql, columns: ResultColumn[], asked: GroupsAsked[]): Promise<ColumnGroups[]> {
  const found: ColumnGroups[] = asked.map(() => ({}));
  let batch: GroupingSet[] = [];
  let keys = 0;
  for (const [i, ask] of asked.entries()) {
    const sets = setsOf(columns[i], i, ask);
    const needed = sets.reduce((sum, set) => sum + set.keys.length, 0);
    if (keys + needed > KEYS_AT_ONCE && batch.length > 0) {
      await grouped(onRows, rows, columns, batch, found);
      [batch, keys] = [[], 0];
    }
    batch.push(...sets);
    keys += needed;
  }
  if (batch.length > 0) await grouped(onRows, rows, columns, batch, found);
  return found;
}

/** DuckDB's GROUPING takes at most 64 keys. */
const KEYS_AT_ONCE = 48;

/** One grouping of the rows: by a key expression (and for text, whether the value was cut). */
interface GroupingSet {
  column: number;
  what: 'histogram' | 'distinct' | 'top';
  /** the key, and the cut flag after it */
  keys: string[];
  /** the values bound to the keys' parameters, in their order */
  params: string[];
  /** how many groups come back, the largest first */
  keep: number;
}

function setsOf(column: ResultColumn, i: number, ask: GroupsAsked): GroupingSet[] {
  const kind = kindOf(column);
  const v = alias(i);
  const sets: GroupingSet[] = [];
  if (ask.histogram) sets.push({ column: i, what: 'histogram', keys: [bucketOf(kind, v, ask.histogram)], params: [], keep: ask.histogram.count });
  if (ask.top !== undefined) {
    // text is grouped by its first PROFILE_CHARS characters, and tells whether it was cut
    const text = kind === 'boolean' ? v : asText(column, i);
    const value = kind === 'boolean' ? v : cutText(text);
    const candidates = ask.top === 'all' ? [] : ask.top.map(String);
    const among = ask.top === 'all' ? value : candidates.length === 0 ? 'CAST(NULL AS VARCHAR)' : `CASE WHEN ${value} IN (${candidates.map(() => '?').join(', ')}) THEN ${value} END`;
    const keys = kind === 'text' && ask.long ? [among, `strlen(${text}) > ${PROFILE_CHARS} AND length(${text}) > ${PROFILE_CHARS}`] : [among];
    sets.push({ column: i, what: 'top', keys, params: candidates, keep: PROFILE_TOP });
  }
  if (ask.distinct === 'values') sets.push({ column: i, what: 'distinct', keys: [v], params: [], keep: 1 });
  if (ask.distinct === 'hashes') sets.push({ column: i, what: 'distinct', keys: [`CASE WHEN ${v} IS NOT NULL THEN hash(${v}) END`], params: [], keep: 1 });
  return sets;
}

/** Runs one GROUPING SETS query of `sets`, and puts what it found of each column into `found`. */
async function grouped(onRows: OnRows, rows: BoundSql, columns: ResultColumn[], sets: GroupingSet[], found: ColumnGroups[]): Promise<void> {
  const keys = sets.flatMap((set) => set.keys);
  const k = (n: number): string => `k${n}`;
  // each set's keys by place in `keys`
  const places: number[][] = [];
  sets.reduce((next, set) => (places.push(set.keys.map((_, n) => next + n)), next + set.keys.length), 0);
  const ids = places.map((grouped) => groupingId(keys.length, grouped));
  const all = keys.map((_, n) => k(n)).join(', ');
  const groupedSql =
    `SELECT grouping_id(${all}) AS s, ${all}, count(*) AS n FROM (SELECT ${keys.map((e, n) => `${e} AS ${k(n)}`).join(', ')} FROM ${projected(rows, columns)}) ` +
    `GROUP BY GROUPING SETS (${places.map((grouped) => `(${grouped.map(k).join(', ')})`).join(', ')})`;
  const cases = (value: (n: number) => string): string => `CASE s ${sets.map((_, n) => `WHEN ${ids[n]} THEN ${value(n)}`).join(' ')} END`;
  // a value cut and the same text uncut are one group: by the key alone, counts added
  const keyed = `SELECT s, ${cases((n) => `CAST(${k(places[n][0])} AS VARCHAR)`)} AS key, ${cases((n) => (places[n].length > 1 ? k(places[n][1]) : 'false'))} AS cut, n FROM (${groupedSql})`;
  const merged = `SELECT s, key, sum(n) AS n, bool_or(cut) AS cut FROM (${keyed}) WHERE key IS NOT NULL GROUP BY s, key`;
  const ranked =
    `SELECT s, key, n, cut, row_number() OVER (PARTITION BY s ORDER BY n DESC, key) AS place, count(*) OVER (PARTITION BY s) AS groups, bool_or(cut) OVER (PARTITION BY s) AS any_cut ` +
    `FROM (${merged}) QUALIFY place <= ${cases((n) => String(sets[n].keep))} ORDER BY s, place`;
  // the keys' parameters come before the view's in the text
  const answer = await onRows((conn) => readRows(conn, ranked, [...sets.flatMap((set) => set.params), ...rows.params]));
  for (const set of sets) {
    const into = found[set.column];
    if (set.what === 'histogram') into.histogram = new Array<number>(set.keep).fill(0);
    else if (set.what === 'distinct') into.distinct = 0;
    else [into.top, into.topGroups, into.cut] = [[], 0, false];
  }
  for (const [s, value, n, cut, , groups, anyCut] of answer) {
    const set = sets[ids.indexOf(Number(s))];
    const into = found[set.column];
    if (set.what === 'histogram') into.histogram![Math.max(0, Math.min(set.keep - 1, Number(value)))] += Number(n);
    else if (set.what === 'distinct') into.distinct = Number(groups);
    else {
      into.top!.push({ value: kindOf(columns[set.column]) === 'boolean' ? value === 'true' : value, count: Number(n), cut: cut === true });
      [into.topGroups, into.cut] = [Number(groups), anyCut === true];
    }
  }
}

/** The grouping_id of a set grouped by `grouped` among `count` keys (a bit set for each key not grouped, the first key highest). */
function groupingId(count: number, grouped: number[]): number {
  let id = 0;
  for (let n = 0; n < count; n++) if (!grouped.includes(n)) id += 2 ** (count - 1 - n);
  return id;
}

/** The buckets of the finite values from `lo` to `hi` (see Buckets). */
export function bucketsOf(kind: Kind, lo: number, hi: number): Buckets {
  const whole = kind === 'integer';
  const width = whole ? Math.max(1, Math.ceil((hi - lo + 1) / PROFILE_BUCKETS)) : (hi - lo) / PROFILE_BUCKETS;
  const count = width === 0 ? 1 : whole ? Math.ceil((hi - lo + 1) / width) : PROFILE_BUCKETS;
  return { lo, hi, width, count };
}

/** A row's bucket (NULL for NULL and values not finite), the last one closed. */
function bucketOf(kind: Kind, v: string, buckets: Buckets): string {
  const x = kind === 'time' ? `CAST(epoch_us(${v}) AS DOUBLE)` : `CAST(${v} AS DOUBLE)`;
  const bucket = buckets.width === 0 ? '0' : `least(CAST(floor((${x} - ${literal(buckets.lo)}) / ${literal(buckets.width)}) AS BIGINT), ${buckets.count - 1})`;
  return `CASE WHEN ${finiteOf(kind, v)} THEN ${bucket} END`;
}

/** A number as SQL text that reads back as the same double. */
export function literal(n: number): string {
  return `CAST('${String(n)}' AS DOUBLE)`;
}

// Row positions of a sorted or filtered view over a result's complete table, for the pages
// deeper than a top-N keeps: the rowids of the view's rows in the view's order, kept in a table
// whose own rowid is the place in the view (offset by where the kept range starts).
//
// A sorted view does not put all its rows in order for one page. A small sample of the table
// gives the values of the first sort key a little before and a little after the page's place;
// only the rows between those two values are put in order (about one per cent of the rows),
// and the rows before the lower value are counted, which places them exactly. Whether the kept
// range holds the whole page is checked, never assumed: when the sample missed, a larger sample
// and wider values are tried. The pages next to it read the same range. All the view's rows
// are put in order instead when that cannot work or would not save much: a filter without a
// sort, a first key whose values near the page are the same in many rows, a page that reaches
// the rows without a value, a key the sample cannot take the quantiles of.

import type { DuckDBConnection } from '@duckdb/node-api';
import { toEngineError } from './engineErrors';
import { quoteIdent, type BoundSql } from './sqlText';

/** What puts a view's rows in order over the complete table. */
export interface ViewOrder {
  /** the view's WHERE clause (with its keyword) or '', and its parameters */
  where: BoundSql;
  /** the view's ORDER BY clause, ties broken by rowid */
  orderBy: string;
  /** the first sort key (a quoted column) and its direction, when the view sorts */
  first?: { column: string; descending: boolean };
}

interface Range {
  /** the view's order it belongs to */
  key: string;
  table: string;
  /** the place in the view of the range's first row */
  from: number;
  rows: number;
  ready: Promise<void>;
  lastUsed: number;
  readers: number;
}

/** Ranges kept at once; the least recently used goes when one more is made. */
const KEPT_RANGES = 6;
/** The samples tried in turn: a share of the table's vectors, and the margin around the page as a share of the view's rows. */
const ATTEMPTS = [
  { samplePercent: 2, margin: 0.005 },
  { samplePercent: 10, margin: 0.05 },
];
/** Above this share of the sampled rows between the two values, all the rows are put in order instead. */
const MOST_SHARE = 0.25;
const BOUNDS = `getvariable('dq_bounds')`;

export class RowPositions {
  private ranges: Range[] = [];
  private made = 0;
  private uses = 0;

  /** `rows`: the complete table; `schema`: the quoted catalog the position tables go in. */
  constructor(
    private readonly rows: string,
    private readonly schema: string,
  ) {}

  /**
   * Reads `limit` rows of the view from `offset` on: `read` runs the query. The page's range of
   * positions is made unless one kept holds it.
   */
  async read<T>(conn: DuckDBConnection, columns: string[], order: ViewOrder, offset: number, limit: number, read: (sql: string) => Promise<T>): Promise<T> {
    const range = await this.rangeFor(conn, order, offset, limit);
    try {
      await range.ready;
      const selected = columns.map((c) => `t.${c}`).join(', ');
      const within = `rowid >= ${offset - range.from} AND rowid < ${offset - range.from + limit}`;
      return await read(`SELECT ${selected} FROM (SELECT rowid AS pos, rid FROM ${range.table} WHERE ${within}) p JOIN ${this.rows} t ON t.rowid = p.rid ORDER BY p.pos`);
    } finally {
      range.readers--;
      await this.forgetLeastUsed(conn);
    }
  }

  /** Forgets every range and gives the tables that held them, to drop. */
  drain(): string[] {
    const tables = this.ranges.map((r) => r.table);
    this.ranges = [];
    return tables;
  }

  /** The range holding the page, counted as read (until `read` is done with it). */
  private async rangeFor(conn: DuckDBConnection, order: ViewOrder, offset: number, limit: number): Promise<Range> {
    const key = JSON.stringify([order.where, order.orderBy]);
    const held = (): Range | undefined => {
      const range = this.ranges.find((r) => r.key === key && r.from <= offset && offset + limit <= r.from + r.rows);
      if (range) {
        range.readers++;
        range.lastUsed = ++this.uses;
      }
      return range;
    };
    return held() ?? (order.first && (await this.around(conn, key, order, offset, limit))) ?? held() ?? this.all(conn, key, order);
  }

  /** Keeps a range just made, read by the request that made it. */
  private kept(range: Omit<Range, 'lastUsed' | 'readers'>): Range {
    const made = { ...range, lastUsed: ++this.uses, readers: 1 };
    this.ranges.push(made);
    return made;
  }

  /** Every row of the view in order (shared by the requests that need it while it is made). */
  private all(conn: DuckDBConnection, key: string, order: ViewOrder): Range {
    const table = this.newTable();
    const range = this.kept({ key, table, from: 0, rows: Number.POSITIVE_INFINITY, ready: Promise.resolve() });
    range.ready = (async () => {
      try {
        await conn.run(`CREATE OR REPLACE TABLE ${table} (rid BIGINT)`);
        await conn.run(`INSERT INTO ${table} SELECT rowid FROM ${this.rows}${order.where.sql}${order.orderBy}`, order.where.params);
      } catch (err) {
        this.ranges = this.ranges.filter((r) => r !== range);
        await conn.run(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
        throw err;
      }
    })();
    return range;
  }

  /** The rows around the page, put in order and placed (see the top of this file), or undefined. */
  private async around(conn: DuckDBConnection, key: string, order: ViewOrder, offset: number, limit: number): Promise<Range | undefined> {
    const { column, descending } = order.first!;
    const { where } = order;
    const and = (condition: string): string => (where.sql ? `${where.sql} AND ${condition}` : ` WHERE ${condition}`);
    const count = async (sql: string, times: number): Promise<number[]> => {
      const params = Array.from({ length: times }, () => where.params).flat();
      return (await conn.runAndReadAll(sql, params)).getRowsJson()[0].map(Number);
    };
    const [total, valued] = await count(`SELECT count(*), count(${column}) FROM ${this.rows}${where.sql}`, 1);
    const end = Math.min(offset + limit, total);
    if (end <= offset || end > valued) return undefined;
    const before = descending ? '>' : '<';
    const after = descending ? '<' : '>';
    for (const { samplePercent, margin } of ATTEMPTS) {
      const start = offset / valued - margin;
      const stop = end / valued + margin;
      // `first` and `last` are values of the key at those shares of the view's order
      const quantile = (share: number): number => Math.min(1, Math.max(0, descending ? 1 - share : share));
      const inside = (x: string, first: string, last: string): string =>
        [start > 0 ? `NOT ${x} ${before} ${first}` : '', stop < 1 ? `NOT ${x} ${after} ${last}` : ''].filter(Boolean).join(' AND ') || `${x} IS NOT NULL`;
      const table = this.newTable();
      try {
        const sample = `SELECT ${column} AS k FROM ${this.rows} TABLESAMPLE ${samplePercent}% (system)${where.sql}`;
        const bounds = `SELECT quantile_disc(k, ${quantile(start)}) AS first, quantile_disc(k, ${quantile(stop)}) AS last FROM s`;
        const share = `(SELECT count(*) FILTER (WHERE ${inside('s.k', 'b.first', 'b.last')}) / count(s.k) FROM s)`;
        await conn.run(`SET VARIABLE dq_bounds = (WITH s AS MATERIALIZED (${sample}), b AS (${bounds}) SELECT {'first': b.first, 'last': b.last, 'share': ${share}} FROM b)`, where.params);
        const [sampledShare] = await count(`SELECT coalesce(${BOUNDS}.share, 1)`, 0);
        if (sampledShare > MOST_SHARE) return undefined;
        const condition = inside(column, `${BOUNDS}.first`, `${BOUNDS}.last`);
        await conn.run(`CREATE TABLE ${table} AS SELECT rowid AS rid FROM ${this.rows}${and(condition)}${order.orderBy}`, where.params);
        const preceding = start > 0 ? `(SELECT count(*) FROM ${this.rows}${and(`${column} ${before} ${BOUNDS}.first`)})` : '0';
        const [from, rows] = await count(`SELECT ${preceding}, (SELECT count(*) FROM ${table})`, start > 0 ? 1 : 0);
        if (from <= offset && end <= from + rows) return this.kept({ key, table, from, rows, ready: Promise.resolve() });
      } catch (err) {
        const kind = toEngineError(err).kind;
        if (kind === 'cancelled' || kind === 'outOfMemory') {
          await conn.run(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
          throw err;
        }
      }
      await conn.run(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    }
    return undefined;
  }

  private newTable(): string {
    return `${this.schema}.${quoteIdent(`positions_${++this.made}`)}`;
  }

  /** Drops the least recently used ranges beyond KEPT_RANGES that no request reads. */
  private async forgetLeastUsed(conn: DuckDBConnection): Promise<void> {
    const idle = this.ranges.filter((r) => r.readers === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const range of idle.slice(0, Math.max(0, this.ranges.length - KEPT_RANGES))) {
      this.ranges = this.ranges.filter((r) => r !== range);
      await conn.run(`DROP TABLE IF EXISTS ${range.table}`).catch(() => undefined);
    }
  }
}

// What the engine serves and how the engine client and its child process talk. Types and constants only:
// the extension, the CLI and the engine host all import this file, and it imports neither
// `vscode` nor DuckDB.

import type { SchemaEnvelope } from '../core/contract';
import type { ChartData, ChartSpec } from './chartProtocol';

export interface ResultColumn {
  name: string;
  /** readable: int64, int32, number, string, enum, date-time, boolean, json, ... */
  type: string;
  /** the DuckDB type */
  sqlType: string;
  description?: string;
  key?: boolean;
}

/** How many buckets a profile's histogram has (fewer when the values are fewer). */
export const PROFILE_BUCKETS = 20;
/** How many of a column's most common values a profile names. */
export const PROFILE_TOP = 10;
/** Text values are cut to this many characters before a profile groups, orders or shows them. */
export const PROFILE_CHARS = 200;

/**
 * One column's profile over a view's rows. `count` is its values that are not NULL; NaN and
 * infinities (numbers, times) count as values and as distinct ones, but are left out of min,
 * max, mean, quantiles and histogram and counted in `nonFinite`. Values are JSON-safe: whole
 * numbers as numbers when exact, else as text; decimals as text; times as ISO 8601 text.
 */
export interface ColumnProfile {
  name: string;
  /** the readable type, as ResultColumn.type */
  type: string;
  count: number;
  nulls: number;
  /** the distinct values among `count`: exact while the engine estimates at most 100,000 of them; beyond that the estimate (`distinctApproximate`) */
  distinct: number;
  /** `distinct` is an estimate (HyperLogLog: typically within 20%) */
  distinctApproximate: boolean;
  /** the least and greatest value (for times: the earliest and latest; text cut to PROFILE_CHARS) */
  min: unknown;
  max: unknown;
  /** numbers: the mean of the finite values */
  mean?: number;
  /** numbers: quartiles of the finite values (of a uniform sample of 65,536 of them: exact up to that many) */
  quantiles?: { p25: number; p50: number; p75: number };
  /** numbers and times: NaN and infinite values among `count` */
  nonFinite?: number;
  /** text, enums, booleans and other values: the PROFILE_TOP most common (text cut to PROFILE_CHARS, `cut` when some were longer); with `distinctApproximate`, candidates from a sketch, each counted exactly */
  top?: { value: unknown; count: number; cut?: true }[];
  /** numbers and times: PROFILE_BUCKETS equal buckets from min to max, the last one closed */
  histogram?: { from: unknown; to: unknown; count: number }[];
}

export interface ResultProfile {
  /** the view's rows */
  rows: number;
  columns: ColumnProfile[];
}

export type ResultFormat = 'jsonl' | 'csv' | 'tsv' | 'parquet';

/** What to open: a job's files or loose files, read as one relation. */
export interface ResultSource {
  /** result files (gzip JSONL/CSV/TSV or Parquet) */
  paths: string[];
  /** sniffed from the first file's content when absent */
  format?: ResultFormat;
  /** the table's schema (the job's schema_version): names and types come from it, not from inference */
  schema?: SchemaEnvelope;
  /** e.g. canvas.users, for titles and views */
  name?: string;
}

export interface Filter {
  column: string;
  op: 'contains' | '=' | '!=' | '<' | '<=' | '>' | '>=' | 'is null' | 'is not null';
  value?: string;
}

export interface Sort {
  column: string;
  descending: boolean;
}

export interface View {
  filters?: Filter[];
  /** the user's own SQL condition over the result's columns */
  where?: string;
  sort?: Sort[];
}

/** Text values longer than this travel in pages as a CutValue. */
export const CUT_CHARS = 4096;

/**
 * A text value longer than CUT_CHARS as a page carries it: its first CUT_CHARS characters and
 * its whole length in characters. The whole value comes from a `cell` (or `keptCell`) request.
 */
export interface CutValue {
  cut: true;
  start: string;
  length: number;
}

export interface Page {
  columns: ResultColumn[];
  /** JSON-safe: big integers and decimals as strings, timestamps as ISO 8601 text, JSON columns as their text; long text as CutValue */
  rows: unknown[][];
  offset: number;
}

export interface OpenedResult {
  handle: string;
  columns: ResultColumn[];
  /** true when the source had no schema: CSV, TSV and JSONL columns are then text (JSON for objects and lists), Parquet's its own */
  typesInferred: boolean;
}

export interface SqlPage extends Page {
  /** the kind of the last statement: SELECT, CREATE, COPY, ... */
  statementKind: string;
}

export interface ExportTarget {
  path: string;
  format: 'csv' | 'parquet';
}

/**
 * A DuckDB database file a statement runs on (a synced database): attached read-only as
 * `alias` while that statement runs (a console statement: until its last row is kept) and
 * detached when none uses it any more, so the file is not held between statements and a sync
 * can open it for writing. The statement's
 * default catalog is the database: `canvas.users` names its table, and the in-memory views of
 * downloaded jobs stay reachable as `memory.<namespace>.<table>`.
 */
export interface AttachedDatabase {
  path: string;
  /** the catalog name, e.g. `synced` */
  alias: string;
}

/** What an export writes: a result's view, a statement run again, or a console statement's kept rows. */
export type ExportSource = { handle: string; view?: View } | { sql: string; database?: AttachedDatabase } | { kept: string };

/** The rows a chart reads: a result's view, or a SQL console statement's kept rows. */
export type ChartSource = { handle: string; view?: View } | { kept: string };

/** A console statement's first rows; `total` once every row is in. */
export interface KeptSqlPage extends SqlPage {
  total?: number;
}

export const ENGINE_ERROR_KINDS = ['binding', 'corrupt', 'syntax', 'outOfMemory', 'cancelled', 'crashed', 'io', 'schema'] as const;
export type EngineErrorKind = (typeof ENGINE_ERROR_KINDS)[number];

/** Settings the engine host starts with. */
export interface HostSettings {
  /** the engine's own folder (work folders, spill files, kept copies): DuckDB may read and write in it */
  tempDir: string;
  /**
   * The folders whose files DuckDB may read besides `tempDir` (the results' folders, a synced
   * database's): nothing else, whatever a statement asks for. Fixed for the process's life.
   */
  readableFolders: string[];
  memoryLimitMb: number;
  threads: number;
  /** how much the kept copies of results may take together (`<tempDir>/copies`); 0 keeps none */
  keptCopiesMb: number;
}

/** Each request names its method and carries that method's parameters. */
export interface RequestParams {
  open: { handle: string; source: ResultSource };
  page: { handle: string; view: View; offset: number; limit: number };
  /** the whole value of one cell of a view (a page cuts long values) */
  cell: { handle: string; view: View; offset: number; column: number };
  count: { handle: string; view: View };
  sql: { text: string; offset: number; limit: number; database?: AttachedDatabase };
  /** runs a statement once, keeping its rows as `id` (consoleRows.ts) */
  sqlKept: { id: string; text: string; limit: number; database?: AttachedDatabase };
  keptRows: { id: string; offset: number; limit: number };
  /** the whole value of one cell of a console statement's kept rows */
  keptCell: { id: string; offset: number; column: number };
  keptCount: { id: string };
  dropKept: { id: string };
  registerView: { name: string; source: ResultSource };
  listViews: Record<string, never>;
  export: { source: ExportSource; target: ExportTarget };
  closeHandle: { handle: string };
  /** settings changed while the engine runs */
  configure: Partial<Pick<HostSettings, 'memoryLimitMb' | 'keptCopiesMb'>>;
  prepare: { handle: string; source: ResultSource };
  /** each column profiled is sent as a `part` as it is done; the rows copied so far as `progress` meanwhile */
  profile: { handle: string; view: View; columns?: string[] };
  /** the points of a chart (resultChart.ts); the rows copied so far as `progress` while it waits for the copy */
  chart: { source: ChartSource; spec: ChartSpec };
}

export interface RequestResults {
  open: OpenedResult;
  page: Page;
  cell: unknown;
  count: number;
  sql: SqlPage;
  sqlKept: KeptSqlPage;
  keptRows: unknown[][];
  keptCell: unknown;
  keptCount: number;
  dropKept: void;
  registerView: void;
  listViews: { name: string; columns: ResultColumn[] }[];
  export: { rows: number; path: string };
  closeHandle: void;
  configure: void;
  /** `kept`: the copy is kept now (false while a preview still has the result open: it is kept when that closes) */
  prepare: { rows: number; kept: boolean };
  profile: ResultProfile;
  chart: ChartData;
}

export type Method = keyof RequestParams;

/** Client to host. */
export type ToHost =
  | { type: 'request'; id: number; method: Method; params: RequestParams[Method] }
  | { type: 'cancel'; id: number };

/** Host to client. */
export type FromHost =
  | { type: 'ready' }
  | { type: 'failed'; kind: EngineErrorKind; message: string }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; kind: EngineErrorKind; message: string }
  | { type: 'progress'; id: number; rows: number }
  /** a piece of a request's answer ready before the whole (a profile's column) */
  | { type: 'part'; id: number; value: unknown };

// The messages between the preview panel (extension host) and its grid (webview), defined
// once for both sides. The host validates everything the webview sends: a webview is a web
// page, and nothing it posts is trusted before it has been checked here.

import { isRecord } from '../core/isRecord';
import type { ColumnProfile, ResultColumn, Sort } from '../engine/engineProtocol';

/** Rows travel in windows of this many. */
export const WINDOW_ROWS = 200;
/** The most rows one fetch may ask for. */
export const MAX_FETCH_ROWS = 1000;
/** The longest text (WHERE clause, filter, copied text) the host accepts from the webview. */
export const MAX_TEXT_LENGTH = 1_000_000;

/** What the user asked for, as typed: the host turns it into the engine's view. */
export interface ViewState {
  sort: Sort[];
  /** per-column filter text, e.g. `>= 10`, `null`, `abc` (contains) */
  filters: Record<string, string>;
  /** a free SQL WHERE condition over the whole result */
  where: string;
}

export const EMPTY_VIEW: ViewState = { sort: [], filters: {}, where: '' };

/** Result files as a preview (or a chart) opens them again. */
export interface ResultFiles {
  paths: string[];
  /** the result's name (e.g. `canvas_logs.web_logs`), when it had one */
  name?: string;
}

/** The downloaded job whose files a grid shows. */
export interface JobRef {
  connection: string;
  jobId: string;
}

/** Where a grid's rows come from; `files` is absent for a SQL console statement's rows, which do not outlast a reload. */
export interface PreviewOrigin {
  files?: ResultFiles;
  job?: JobRef;
}

export type ToWebview =
  /** the grid's columns and what it may offer; `canShape` is false where sort and filter do not apply; `origin`: the files shown, kept for a reload */
  | { type: 'init'; title: string; columns: ResultColumn[]; canShape: boolean; view: ViewState; version: number; origin?: PreviewOrigin }
  /**
   * nothing to show (the result could not be opened, or the statement failed): a title and no rows, the error says why;
   * `origin` and `view`: the files a grid restored after a reload could not open, and the view it was in, kept for the next one
   */
  | { type: 'empty'; title: string; version: number; origin?: PreviewOrigin; view?: ViewState }
  /** a new view is in force: rows of older versions are stale */
  | { type: 'view'; view: ViewState; version: number }
  | { type: 'rows'; version: number; offset: number; rows: unknown[][] }
  /** the rows from `offset` could not be read (the error says why): asked for again when the user moves or the error clears */
  | { type: 'rowsFailed'; version: number; offset: number }
  | { type: 'count'; version: number; total: number }
  /** one clear message for the user; `undefined` clears it */
  | { type: 'error'; message: string | undefined }
  /**
   * The column profiles of a version: `waiting` shows each column's strip waiting (`rows`: read
   * so far, while the engine copies the result), `off` shows none (turned off, or rows the engine
   * cannot profile). Profile messages of another version than the grid's are dropped.
   */
  | { type: 'profileState'; version: number; state: 'waiting' | 'off'; rows?: number }
  /** one column's profile of a version, as the engine finished it */
  | { type: 'profileColumn'; version: number; column: ColumnProfile }
  /** the profile of a version failed: one quiet note in place of the strips */
  | { type: 'profileFailed'; version: number; message: string };

export type ToHost =
  | { type: 'ready' }
  | { type: 'fetch'; version: number; offset: number; limit: number }
  | { type: 'setView'; view: ViewState }
  /** the grid painted rows of a version for the first time */
  | { type: 'shown'; version: number; firstRow: number; rows: number }
  | { type: 'copy'; text: string }
  /** copy a row (or one cell of it) of a version that holds values the grid has only the start of: the host reads them whole */
  | { type: 'copyWhole'; version: number; row: number; column?: number }
  | { type: 'export' }
  /** profile the columns of a version again (after its profile failed) */
  | { type: 'profileAgain'; version: number }
  /** the grid's Chart… button */
  | { type: 'chart' };

/** The message, when it is a well-formed ToHost; otherwise undefined. */
export function parseToHost(data: unknown): ToHost | undefined {
  if (!isRecord(data)) return undefined;
  switch (data.type) {
    case 'ready':
    case 'export':
    case 'chart':
      return { type: data.type };
    case 'fetch':
      return isCount(data.version) && isCount(data.offset) && isCount(data.limit) && data.limit > 0 && data.limit <= MAX_FETCH_ROWS
        ? { type: 'fetch', version: data.version, offset: data.offset, limit: data.limit }
        : undefined;
    case 'setView': {
      const view = parseView(data.view);
      return view && { type: 'setView', view };
    }
    case 'shown':
      return isCount(data.version) && isCount(data.firstRow) && isCount(data.rows)
        ? { type: 'shown', version: data.version, firstRow: data.firstRow, rows: data.rows }
        : undefined;
    case 'copy':
      return isText(data.text) ? { type: 'copy', text: data.text } : undefined;
    case 'profileAgain':
      return isCount(data.version) ? { type: 'profileAgain', version: data.version } : undefined;
    case 'copyWhole':
      if (!isCount(data.version) || !isCount(data.row) || (data.column !== undefined && !isCount(data.column))) return undefined;
      return { type: 'copyWhole', version: data.version, row: data.row, ...(data.column !== undefined ? { column: data.column } : {}) };
    default:
      return undefined;
  }
}

export function parseView(data: unknown): ViewState | undefined {
  if (!isRecord(data) || !Array.isArray(data.sort) || !isRecord(data.filters) || !isText(data.where)) return undefined;
  const sort: Sort[] = [];
  for (const s of data.sort) {
    if (!isRecord(s) || !isText(s.column) || typeof s.descending !== 'boolean') return undefined;
    sort.push({ column: s.column, descending: s.descending });
  }
  const filters: Record<string, string> = {};
  for (const [column, text] of Object.entries(data.filters)) {
    if (!isText(text)) return undefined;
    if (text.trim() !== '') filters[column] = text;
  }
  return { sort, filters, where: data.where };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_TEXT_LENGTH;
}

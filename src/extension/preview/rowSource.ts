// What a preview pages through: the files of a result (sortable and filterable over the
// whole result by the engine) or the rows of one SQL statement (run once, its rows kept in the
// engine, paged in the order it gave them).

import type { EngineClient } from '../../engine/engineClient';
import type { AttachedDatabase, ColumnProfile, ExportSource, ResultColumn, ResultProfile, ResultSource, View } from '../../engine/engineProtocol';
import type { JobRef } from '../../webview/previewOrigin';
import { sourceOf, type PreviewTarget } from './previewTargets';
import { statementTitle } from './sqlStatements';

/** The engine calls a preview makes. */
export type PreviewEngine = Pick<EngineClient, 'open' | 'page' | 'cell' | 'count' | 'sqlKept' | 'keptRows' | 'keptCell' | 'keptCount' | 'dropKept' | 'hold' | 'closeHandle' | 'export' | 'profile'>;

/** What a profile of a view reports while it runs: each column's profile as it is done, the rows read so far before. */
export interface ProfileHandlers {
  onColumn(column: ColumnProfile): void;
  onRows(rows: number): void;
}

export interface RowSource {
  readonly title: string;
  readonly columns: ResultColumn[];
  /** sort, filters and WHERE apply (not to a SQL statement's result) */
  readonly canShape: boolean;
  /** the result files read (and the result's name), as a chart of them opens them again after a reload of the window */
  readonly files?: Pick<ResultSource, 'paths' | 'name'>;
  /** the downloaded job whose files these are, as a preview of them opens them again after a reload */
  readonly job?: JobRef;
  /** rows of a view; long text values come cut (CutValue) */
  page(view: View, offset: number, limit: number, signal: AbortSignal): Promise<unknown[][]>;
  /** the whole value of one cell: row `offset` of the view, column `column` by place */
  cell(view: View, offset: number, column: number, signal: AbortSignal): Promise<unknown>;
  /** the number of rows in a view, when it can be known without reading them all */
  count(view: View, signal: AbortSignal): Promise<number | undefined>;
  exportTarget(view: View): ExportSource;
  /** each column's profile over the whole view (its filters and WHERE); absent where the engine cannot profile the rows */
  profile?(view: View, handlers: ProfileHandlers, signal: AbortSignal): Promise<ResultProfile>;
  close(): Promise<void>;
}

export async function openResultFiles(engine: PreviewEngine, source: ResultSource, signal?: AbortSignal): Promise<RowSource> {
  const { handle, columns } = await engine.open(source, signal);
  return {
    title: source.name ?? sourceTitle(source.paths),
    columns,
    canShape: true,
    files: { paths: source.paths, ...(source.name !== undefined ? { name: source.name } : {}) },
    page: async (view, offset, limit, pageSignal) => (await engine.page(handle, view, offset, limit, pageSignal)).rows,
    cell: (view, offset, column, cellSignal) => engine.cell(handle, view, offset, column, cellSignal),
    count: (view, countSignal) => engine.count(handle, view, countSignal),
    exportTarget: (view) => ({ handle, view }),
    // nobody waits on it: a restart of the engine for files elsewhere stops it rather than waiting
    profile: (view, handlers, profileSignal) => engine.profile(handle, view, { ...handlers, background: true }, profileSignal),
    close: () => engine.closeHandle(handle),
  };
}

/** A preview target's files opened (with its job's schema, read now), as `dataQuery.previewResult` opens them. */
export async function openTarget(engine: PreviewEngine, target: PreviewTarget, signal?: AbortSignal): Promise<RowSource> {
  const source = await openResultFiles(engine, await sourceOf(target), signal);
  return target.job ? { ...source, job: target.job } : source;
}

/**
 * Runs a statement (every statement of `text`, once) and answers with its first `firstRows`
 * rows; the engine keeps the rest, and their count. With `database`, it runs on that database
 * file (attached read-only while the statement runs).
 */
export async function runSqlStatement(engine: PreviewEngine, text: string, firstRows: number, signal?: AbortSignal, database?: AttachedDatabase): Promise<RowSource> {
  // the kept rows live in the engine's process: it stays while the grid shows them
  const release = engine.hold();
  let first: Awaited<ReturnType<PreviewEngine['sqlKept']>>;
  try {
    first = await engine.sqlKept(text, firstRows, signal, database);
  } catch (err) {
    release();
    throw err;
  }
  return {
    title: statementTitle(text),
    columns: first.columns,
    canShape: false,
    page: async (_view, offset, limit, pageSignal) => {
      const allFirst = first.total !== undefined && first.total <= first.rows.length;
      if (allFirst || offset + limit <= first.rows.length) return first.rows.slice(offset, offset + limit);
      return engine.keptRows(first.id, offset, limit, pageSignal);
    },
    cell: (_view, offset, column, cellSignal) => engine.keptCell(first.id, offset, column, cellSignal),
    count: (_view, countSignal) => (first.total !== undefined ? Promise.resolve(first.total) : engine.keptCount(first.id, countSignal)),
    exportTarget: () => ({ kept: first.id }),
    close: async () => {
      release();
      await engine.dropKept(first.id);
    },
  };
}

function sourceTitle(paths: readonly string[]): string {
  const name = paths[0]?.split(/[\\/]/).pop() ?? 'result';
  return paths.length > 1 ? `${name} (+${paths.length - 1} files)` : name;
}

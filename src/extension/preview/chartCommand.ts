// `dataQuery.chartResult` and the preview grid's Chart… button: a chart panel for a preview's
// rows (a result in its current view, or a SQL console statement's kept rows), a job's files or
// loose files. From a menu, the palette or the button it opens the chart with a first choice of
// columns that the panel's lists change. Driven by an argument object it asks nothing: it reads
// the chart (refusing a wrong kind or column with the choices), shows it, and when `path` names
// an .svg or .png file writes the chart there and resolves with it. Chart panels VS Code restores
// after a reload of the window are drawn again by chartRestore.ts.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import { isRecord } from '../../core/isRecord';
import type { Logger } from '../../core/logger';
import { CHART_KINDS, type ChartData, type ChartSpec } from '../../engine/chartProtocol';
import { firstChart } from '../../engine/chartColumns';
import type { ImageFormat } from '../../webview/chart/chartMessages';
import { EMPTY_VIEW } from '../../webview/previewProtocol';
import { Commands } from '../ui/ids';
import { presentError, userError } from '../ui/presentError';
import { revealFile } from '../ui/revealFile';
import { imageFormatOf } from './chartFile';
import { ChartPanel, type ChartEngine, type ChartGrid, type ChartSubject } from './chartPanel';
import { registerChartRestore } from './chartRestore';
import type { DownloadedJobsProvider } from './downloadedJobs';
import { PreviewPanel } from './previewPanel';
import type { PreviewPanels } from './previewPanels';
import { resolvePreviewTarget, sourceOf } from './previewTargets';

export const CHART_RESULT_COMMAND = Commands.chartResult;

/** `dataQuery.chartResult`'s argument: what to chart (as the preview takes it; the active preview when absent), the chart, and where to save it. */
export interface ChartArgs {
  paths?: string[];
  connection?: string;
  jobId?: string;
  kind: ChartSpec['kind'];
  x: string;
  y?: string;
  color?: string;
  /** an .svg or .png file to write the chart to */
  path?: string;
}

/** What `dataQuery.chartResult` resolves with: the file written (when asked), and what the chart shows. */
export interface ChartResult {
  path?: string;
  rows: number;
  skipped: number;
  aggregated: boolean;
  note: string;
}

/** The chart and the file an argument asks for, checked: a wrong one is refused, saying what is expected. */
export function chartOptions(arg: Record<string, unknown>): { spec: ChartSpec; path?: string } {
  const kinds = CHART_KINDS.join(', ');
  if (typeof arg.kind !== 'string' || !(CHART_KINDS as readonly string[]).includes(arg.kind)) {
    const given = arg.kind === undefined ? 'The chart has no "kind".' : `"${String(arg.kind)}" is not a kind of chart.`;
    throw new DqError('usage', given, { hint: `Pass kind as one of: ${kinds}.` });
  }
  const name = (key: 'x' | 'y' | 'color', required: boolean): string | undefined => {
    const value = arg[key];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      throw new DqError('usage', `The chart's "${key}" is not a column name.`, { hint: `Pass ${key} as the name of a column, such as "value.http_status"${required ? '' : ', or leave it out'}.` });
    }
    return value;
  };
  const spec: ChartSpec = { kind: arg.kind as ChartSpec['kind'], x: name('x', true)! };
  const y = name('y', false);
  const color = name('color', false);
  if (y !== undefined) spec.y = y;
  if (color !== undefined) spec.color = color;
  if (arg.paths !== undefined && !(Array.isArray(arg.paths) && arg.paths.length > 0 && arg.paths.every((p) => typeof p === 'string'))) {
    throw new DqError('usage', 'The chart\'s "paths" is not a list of result files.', { hint: 'Pass paths as ["/folder/part-00000.jsonl.gz", ...].' });
  }
  if (arg.path === undefined) return { spec };
  if (typeof arg.path !== 'string' || !imageFormatOf(arg.path)) {
    throw new DqError('usage', 'The chart\'s "path" is not an .svg or .png file.', { hint: 'Pass path as the file to write, ending in .svg (a drawing) or .png (an image).' });
  }
  return { spec, path: arg.path };
}

export interface ChartDeps {
  engine: ChartEngine;
  jobs: DownloadedJobsProvider;
  panels: Pick<PreviewPanels, 'active'>;
  extensionUri: vscode.Uri;
  logger: Logger;
}

/**
 * What a preview shows, as a chart reads it: its result in its current view (and the grid, whose
 * view the chart can follow later), or a console statement's rows.
 */
function previewSubject(panel: PreviewPanel): ChartSubject {
  const target = panel.exportTarget();
  const { title, columns, view } = panel.state();
  if (!target || 'sql' in target) throw new DqError('usage', 'This preview shows no rows to chart.', { hint: 'Open a result or run a statement that returns rows, then choose Chart… again.' });
  let closed = false;
  const listener = panel.onDidClose(() => (closed = true));
  const subject: ChartSubject = {
    title,
    columns,
    source: 'handle' in target ? { handle: target.handle, view: target.view ?? {} } : { kept: target.kept },
    gone: () => (closed ? `The preview of ${title} that this chart reads was closed. Open it again and choose Chart… there.` : undefined),
    close: async () => listener.dispose(),
  };
  const files = panel.files();
  if (!('handle' in target) || !files) return subject;
  const handle = target.handle;
  const grid: ChartGrid = {
    view: () => {
      const now = closed ? undefined : panel.exportTarget();
      return now && 'handle' in now && now.handle === handle ? panel.state().view : undefined;
    },
    onDidChange: (changed, thisArg, disposables) => {
      const both = vscode.Disposable.from(panel.onDidChangeView(changed, thisArg), panel.onDidClose(changed, thisArg));
      disposables?.push(both);
      return both;
    },
  };
  return { ...subject, files, view, grid };
}

export function registerChart(deps: ChartDeps): { disposables: vscode.Disposable[]; chartPreview(panel: PreviewPanel): void } {
  const { engine, jobs, panels, logger } = deps;
  const panelDeps = { engine, extensionUri: deps.extensionUri, logger, onExport: (panel: ChartPanel, format: ImageFormat) => void saveChart(panel, format) };

  /** The files an argument names, opened for the chart alone; else the preview shown last. */
  const subjectOf = async (arg: unknown, byArgument: boolean): Promise<ChartSubject> => {
    // from a menu or the button: the preview shown (a custom editor's menu gives its file, which that preview shows in its view)
    const shown = arg instanceof PreviewPanel ? arg : byArgument ? undefined : panels.active();
    if (shown) return previewSubject(shown);
    const target = resolvePreviewTarget(arg, jobs);
    if (target) {
      const source = await sourceOf(target);
      const { handle, columns } = await engine.open(source);
      const files = { paths: target.paths, ...(target.name !== undefined ? { name: target.name } : {}) };
      return { title: target.name ?? path.basename(target.paths[0]), columns, source: { handle, view: {} }, files, view: EMPTY_VIEW, close: () => engine.closeHandle(handle) };
    }
    const panel = panels.active();
    if (!panel) throw new DqError('usage', 'There is no result to chart.', { hint: 'Open a preview or run a SQL statement first, or pass {paths: [...]} or {connection, jobId}.' });
    return previewSubject(panel);
  };

  const chartResult = async (arg?: unknown): Promise<ChartResult | undefined> => {
    const byArgument = isArgumentObject(arg);
    let subject: ChartSubject | undefined;
    try {
      const options = byArgument ? chartOptions(arg as Record<string, unknown>) : undefined;
      subject = await subjectOf(arg, byArgument);
      if (!options) {
        const spec = firstChart(subject.columns);
        if (!spec) throw new DqError('usage', `${subject.title} has no columns to chart.`);
        ChartPanel.create(subject, spec, panelDeps);
        return undefined;
      }
      // read before a panel opens: a wrong column is refused with the choices, and nothing is shown
      const data = await chartWithProgress(engine, subject, options.spec);
      const panel = ChartPanel.create(subject, options.spec, panelDeps, data);
      subject = undefined;
      await panel.whenShown();
      const result: ChartResult = { rows: data.rows, skipped: data.skipped, aggregated: data.aggregated, note: data.note };
      if (options.path) result.path = await panel.save(options.path, imageFormatOf(options.path)!);
      return result;
    } catch (err) {
      await subject?.close?.().catch(() => undefined);
      if (byArgument) throw userError(logger, 'Chart', err);
      presentError(logger, 'Chart', err);
      return undefined;
    }
  };

  /** The page's Save PNG… or Save SVG…: asks where, writes the image, offers to reveal it. */
  const saveChart = async (panel: ChartPanel, format: ImageFormat): Promise<void> => {
    try {
      const base = vscode.workspace.workspaceFolders?.[0]?.uri;
      const name = `${panel.webviewPanel.title.replace(/^Chart: /, '').replace(/[^A-Za-z0-9._-]+/g, '_')}-${panel.state().spec.kind}.${format}`;
      const uri = await vscode.window.showSaveDialog({
        title: `Save chart as ${format.toUpperCase()}`,
        defaultUri: base ? vscode.Uri.joinPath(base, name) : undefined,
        filters: format === 'png' ? { 'PNG image': ['png'] } : { 'SVG drawing': ['svg'] },
      });
      if (!uri) return;
      const file = await panel.save(uri.fsPath, format);
      void vscode.window.showInformationMessage(`Saved the chart to ${file}.`, 'Reveal').then((choice) => {
        if (choice) void revealFile(file);
      });
    } catch (err) {
      presentError(logger, 'Saving the chart', err);
    }
  };

  return {
    disposables: [vscode.commands.registerCommand(CHART_RESULT_COMMAND, chartResult), registerChartRestore({ engine, jobs, logger }, (webviewPanel, subject, spec) => new ChartPanel(webviewPanel, subject, spec, panelDeps))],
    chartPreview: (panel) => void chartResult(panel),
  };
}

/** The chart's points, with a notification that shows the rows read while the result's copy is made, and can cancel. */
function chartWithProgress(engine: ChartEngine, subject: ChartSubject, spec: ChartSpec): Promise<ChartData> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Charting ${subject.title}`, cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => abort.abort());
      try {
        const gone = subject.gone?.();
        if (gone) throw new DqError('usage', gone);
        return await engine.chart(subject.source, spec, (rows) => progress.report({ message: `reading: ${rows.toLocaleString()} rows` }), abort.signal);
      } finally {
        cancel.dispose();
      }
    }),
  );
}

/** An argument object from a caller (not the file URI a custom editor's menu gives, nor the grid's panel). */
function isArgumentObject(arg: unknown): boolean {
  return isRecord(arg) && !(arg instanceof vscode.Uri) && !(arg instanceof PreviewPanel);
}

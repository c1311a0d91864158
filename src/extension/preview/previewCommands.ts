// The preview's commands: `dataQuery.previewResult` (a job, files or a file URI in the grid),
// `dataQuery.exportResult` (a preview's rows or a whole job to CSV or Parquet),
// `dataQuery.profileResult` (each column's profile of a preview's view or of files),
// `dataQuery.chartResult` (chartCommand.ts), the SQL
// console's commands, and the custom editor for result files. Driven by an argument object,
// a command asks nothing, resolves with its result and rejects with what to do; from a menu or
// the palette, failures are shown as a notification.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import { isRecord } from '../../core/isRecord';
import type { Logger } from '../../core/logger';
import type { ResultProfile, ResultSource, View } from '../../engine/engineProtocol';
import { presentError, userError } from '../ui/presentError';
import { revealFile } from '../ui/revealFile';
import type { DownloadedJobsProvider } from './downloadedJobs';
import { exportWithProgress, pickExportFormat, pickExportPath, type ExportResult } from './exportResult';
import { PreviewPanel } from './previewPanel';
import { profileOptions, profileWithProgress, showProfile, type ProfileArgs, type ProfileEngine } from './profileResult';
import { PreviewPanels } from './previewPanels';
import { fileTarget, filesTarget, resolvePreviewTarget, sourceOf, type PreviewTarget } from './previewTargets';
import { registerResultEditor } from './resultEditor';
import { registerChart } from './chartCommand';
import type { ChartEngine } from './chartPanel';
import { openTarget } from './rowSource';
import { registerPreviewRestore } from './previewRestore';
import { SqlConsoles, type ConsoleEngine } from './sqlConsole';
import { Commands } from '../ui/ids';
import { setting, settingChanged } from '../ui/vscodeSettings';

export const PREVIEW_RESULT_COMMAND = Commands.previewResult;
export const EXPORT_RESULT_COMMAND = Commands.exportResult;
export const PROFILE_RESULT_COMMAND = Commands.profileResult;

export interface PreviewDeps {
  engine: ConsoleEngine & ProfileEngine & ChartEngine;
  /** the downloaded jobs (previews by job, the console's views) */
  jobs: DownloadedJobsProvider;
  extensionUri: vscode.Uri;
  logger: Logger;
}

/** `dataQuery.exportResult`'s argument: what to export (a preview target or a preview panel; the active preview by default), and where. */
export interface ExportArgs {
  panel?: PreviewPanel;
  format?: 'csv' | 'parquet';
  path?: string;
}

export function registerPreview(deps: PreviewDeps): vscode.Disposable[] {
  const { engine, jobs, logger } = deps;
  // the grid's Export… button acts as a menu does: its failures are shown, not thrown
  const panels = new PreviewPanels({
    extensionUri: deps.extensionUri,
    logger,
    onExport: (panel) => void exportResult(panel),
    onChart: (panel) => charts.chartPreview(panel),
    columnProfiles: () => setting('dataQuery.preview.columnProfiles'),
  });
  const charts = registerChart({ engine, jobs, panels, extensionUri: deps.extensionUri, logger });
  const consoles = new SqlConsoles(engine, jobs, panels, logger);

  const failed = (arg: unknown, what: string, err: unknown): undefined => {
    if (isArgumentObject(arg)) throw userError(logger, what, err);
    presentError(logger, what, err);
    return undefined;
  };

  const previewResult = async (arg?: unknown): Promise<PreviewPanel | undefined> => {
    try {
      const target = resolvePreviewTarget(arg, jobs) ?? (await pickResultFiles(arg));
      if (!target) return undefined;
      const panel = panels.create(target.name ?? 'Preview');
      // files that fail to open are still kept for a reload of the window, which tries them again
      await panel.show(openTarget(engine, target), undefined, undefined, { origin: { files: { paths: target.paths, name: target.name }, job: target.job } });
      return panel;
    } catch (err) {
      return failed(arg, 'Preview', err);
    }
  };

  const exportResult = async (given?: PreviewPanel | (ExportArgs & Record<string, unknown>)): Promise<ExportResult | undefined> => {
    const arg = given instanceof PreviewPanel ? { panel: given } : given;
    try {
      const target = resolvePreviewTarget(arg, jobs);
      const panel = arg?.panel instanceof PreviewPanel ? arg.panel : panels.active();
      const fromPanel = panel?.exportTarget();
      if (!target && !fromPanel) {
        throw new DqError('usage', 'There is no result to export.', { hint: 'Open a preview or run a SQL statement first, or export a job from the Jobs view.' });
      }
      const title = target?.name ?? panel?.state().title ?? 'result';
      const format = await pickExportFormat(arg?.format);
      const out = format && (await pickExportPath(arg?.path, title, format));
      if (!format || !out) return undefined;
      const to = { path: out, format };
      const result = target ? await exportFiles(await sourceOf(target), to, title) : await exportWithProgress(engine, fromPanel!, to, title);
      void vscode.window.showInformationMessage(`Exported ${result.rows.toLocaleString()} rows to ${result.path}.`, 'Reveal').then((choice) => {
        if (choice) void revealFile(result.path);
      });
      return result;
    } catch (err) {
      return failed(given, 'Export', err);
    }
  };

  const exportFiles = async (source: ResultSource, target: { path: string; format: 'csv' | 'parquet' }, title: string): Promise<ExportResult> => {
    const { handle } = await engine.open(source);
    try {
      return await exportWithProgress(engine, { handle }, target, title);
    } finally {
      await engine.closeHandle(handle);
    }
  };

  const profileResult = async (arg?: ProfileArgs & Record<string, unknown>): Promise<ResultProfile | undefined> => {
    try {
      const options = profileOptions(arg);
      const target = resolvePreviewTarget(arg, jobs);
      const panel = panels.active();
      const fromPanel = target ? undefined : panel?.exportTarget();
      if (!target && !(fromPanel && 'handle' in fromPanel)) {
        throw new DqError('usage', fromPanel ? 'A SQL statement\'s rows cannot be profiled.' : 'There is no result to profile.', {
          hint: 'Open a preview of result files, or pass {paths: [...]} or {connection, jobId}.',
        });
      }
      const title = target?.name ?? panel?.state().title ?? 'result';
      const subject = target ? { source: await sourceOf(target) } : { handle: (fromPanel as { handle: string }).handle, view: (fromPanel as { view?: View }).view ?? {} };
      const profile = await profileWithProgress(engine, subject, options, title);
      if (!isArgumentObject(arg)) await showProfile(profile);
      return profile;
    } catch (err) {
      return failed(arg, 'Profile', err);
    }
  };

  const showFile = (webviewPanel: vscode.WebviewPanel, file: vscode.Uri): void => {
    const name = path.basename(file.path);
    const opening =
      file.scheme === 'file'
        ? openTarget(engine, { ...fileTarget(file.fsPath, jobs), name })
        : Promise.reject(new DqError('usage', `${name} is not a file on this machine's disk.`, { hint: 'Download or copy it to a local folder, then open it again.' }));
    void panels.adopt(webviewPanel, name).show(opening);
  };

  return [
    panels,
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (settingChanged(e, 'dataQuery.preview.columnProfiles')) panels.columnProfilesChanged();
    }),
    vscode.commands.registerCommand(PREVIEW_RESULT_COMMAND, previewResult),
    vscode.commands.registerCommand(EXPORT_RESULT_COMMAND, exportResult),
    vscode.commands.registerCommand(PROFILE_RESULT_COMMAND, profileResult),
    registerResultEditor(showFile),
    registerPreviewRestore({ engine, jobs, adopt: (webviewPanel, title) => panels.adopt(webviewPanel, title) }),
    ...charts.disposables,
    ...consoles.register(),
  ];
}

/** Result files chosen in an open dialog, when the command was given nothing. */
async function pickResultFiles(arg: unknown): Promise<PreviewTarget | undefined> {
  if (arg !== undefined) throw new DqError('usage', 'The preview was given something it cannot open.', { hint: 'Pass {paths: [...]}, {connection, jobId}, a job from the Jobs view or a file URI.' });
  const picked = await vscode.window.showOpenDialog({ title: 'Preview result files', canSelectMany: true, filters: { 'Result files': ['gz', 'parquet', 'jsonl', 'csv', 'tsv'] } });
  if (!picked || picked.length === 0) return undefined;
  return filesTarget(
    picked.map((u) => u.fsPath),
    path.basename(picked[0].fsPath),
  );
}

/** An argument object from a caller (not a tree node or a URI from a menu). */
function isArgumentObject(arg: unknown): boolean {
  return isRecord(arg) && !('kind' in arg) && !(arg instanceof vscode.Uri) && !(arg instanceof PreviewPanel);
}

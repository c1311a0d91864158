// Export of a result (a preview's current view, a SQL statement's rows or a whole job) to CSV
// or Parquet, written by the engine without passing the rows through the extension, with
// progress in a notification that can cancel it.

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExportSource, ExportTarget } from '../../engine/engineProtocol';
import type { PreviewEngine } from './rowSource';

export type ExportFormat = ExportTarget['format'];

export interface ExportResult {
  rows: number;
  path: string;
}

export async function exportWithProgress(engine: PreviewEngine, source: ExportSource, target: ExportTarget, title: string): Promise<ExportResult> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Exporting ${title} to ${path.basename(target.path)}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => abort.abort());
      try {
        return await engine.export(source, target, (rows) => progress.report({ message: `${rows.toLocaleString()} rows` }), abort.signal);
      } finally {
        cancel.dispose();
      }
    },
  );
}

/** Asks for the format (unless given). */
export async function pickExportFormat(given: unknown): Promise<ExportFormat | undefined> {
  if (given === 'csv' || given === 'parquet') return given;
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'CSV', description: 'text with a header row, for spreadsheets and other tools', format: 'csv' as const },
      { label: 'Parquet', description: 'typed and compressed, for DuckDB, Spark, pandas', format: 'parquet' as const },
    ],
    { title: 'Export format' },
  );
  return picked?.format;
}

/** Asks where to write (unless given), next to the first workspace folder by default. */
export async function pickExportPath(given: unknown, title: string, format: ExportFormat): Promise<string | undefined> {
  if (typeof given === 'string' && given !== '') return given;
  const base = vscode.workspace.workspaceFolders?.[0]?.uri;
  const fileName = `${title.replace(/[^A-Za-z0-9._-]+/g, '_')}.${format}`;
  const uri = await vscode.window.showSaveDialog({
    title: 'Export result',
    defaultUri: base ? vscode.Uri.joinPath(base, fileName) : undefined,
    filters: format === 'csv' ? { CSV: ['csv'] } : { Parquet: ['parquet'] },
  });
  return uri?.fsPath;
}

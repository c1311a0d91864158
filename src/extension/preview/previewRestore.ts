// Preview grids that outlast a reload of the window: VS Code hands each grid panel it restores
// to the serializer registered here, with the state its page kept (previewOrigin.ts), and the
// grid opens its result files again as `dataQuery.previewResult` does (with the schema of the
// downloaded job they are of), in the view the user had asked for. Where that cannot be (the
// files are gone, the rows were a SQL console statement's, the state is unreadable) the grid
// says so, and what to do instead. Custom editors ("Open With...") are restored by VS Code.

import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import { parseSavedPreview, type SavedPreview } from '../../webview/previewOrigin';
import { ViewTypes } from '../ui/ids';
import type { DownloadedJobsProvider } from './downloadedJobs';
import type { PreviewPanel } from './previewPanel';
import { firstMissing, savedFilesTarget } from './previewTargets';
import { openTarget, type PreviewEngine, type RowSource } from './rowSource';

export interface PreviewRestoreDeps {
  engine: PreviewEngine;
  jobs: DownloadedJobsProvider;
  /** puts a restored panel to work as a preview titled `title` */
  adopt(webviewPanel: vscode.WebviewPanel, title: string): PreviewPanel;
}

/** The rows a saved grid showed, opened again; or why they cannot be, and what to do. */
async function reopen(saved: SavedPreview, deps: PreviewRestoreDeps): Promise<RowSource> {
  const { files } = saved;
  if (!files) {
    throw new DqError('usage', 'This grid showed a SQL console statement\'s rows, which do not outlast a reload of the window.', { hint: 'Run the statement again.' });
  }
  const missing = await firstMissing(files.paths);
  if (missing !== undefined) {
    throw new DqError('notFound', `The files this grid showed are no longer on disk (${missing} is missing).`, {
      hint: 'Preview the result again (download its job again if it was removed).',
    });
  }
  return openTarget(deps.engine, savedFilesTarget(files.paths, files.name, deps.jobs, saved.job));
}

/** Registers the preview panels' serializer. */
export function registerPreviewRestore(deps: PreviewRestoreDeps): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(ViewTypes.preview, {
    deserializeWebviewPanel: (webviewPanel, state) => {
      const saved = parseSavedPreview(state);
      const title = saved?.title ?? webviewPanel.title;
      const panel = deps.adopt(webviewPanel, title);
      const opening = saved
        ? reopen(saved, deps)
        : Promise.reject(new DqError('usage', 'This grid could not be opened again after the reload of the window.', { hint: 'Preview the result again.' }));
      // the grid shows its rows (or why not) once they open: the window does not wait for them
      void panel.show(opening, undefined, title, saved ? { view: saved.view, origin: { files: saved.files, job: saved.job } } : {});
      return Promise.resolve();
    },
  });
}

// Charts that outlast a reload of the window: VS Code hands each chart panel it restores to the
// serializer registered here, with the state its page kept (chartOrigin.ts), and the chart is
// read again by the engine: its result files opened anew (with the schema of the downloaded job
// that holds them), in the grid's view it was drawn in. Where that cannot be (the files are gone,
// the rows were a SQL console statement's, the state is unreadable) the panel says so, and what
// to do instead.

import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { ChartSpec } from '../../engine/chartProtocol';
import type { ChartSource } from '../../engine/engineProtocol';
import type { SavedChart } from '../../webview/chart/chartMessages';
import { parseSavedChart } from '../../webview/chart/chartOrigin';
import { engineView } from '../../webview/filterText';
import { EMPTY_VIEW } from '../../webview/previewProtocol';
import { describeFailure } from '../ui/describeFailure';
import { ViewTypes } from '../ui/ids';
import type { ChartEngine, ChartSubject } from './chartPanel';
import type { DownloadedJobsProvider } from './downloadedJobs';
import { firstMissing, savedFilesTarget, sourceOf } from './previewTargets';

export interface ChartRestoreDeps {
  engine: ChartEngine;
  jobs: DownloadedJobsProvider;
  logger: Logger;
}

/** What a chart that cannot be read reads: nothing, for its `gone` says why before anything is read. */
const NO_ROWS: ChartSource = { kept: '' };
/** The chart a panel whose state could not be read shows: none (its lists are empty). */
const NO_CHART: ChartSpec = { kind: 'bar', x: '' };

/** A chart whose rows cannot be read: the panel shows `why`, and keeps what it was drawn from for the next reload. */
function goneSubject(title: string, why: string, saved?: SavedChart): ChartSubject {
  return { title, columns: [], source: NO_ROWS, ...(saved?.files ? { files: saved.files } : {}), ...(saved?.view ? { view: saved.view } : {}), gone: () => why };
}

/** The rows a saved chart was drawn from, opened again; or, when they cannot be, why and what to do. */
export async function restoredSubject(saved: SavedChart, deps: ChartRestoreDeps): Promise<ChartSubject> {
  const { title, files, view } = saved;
  if (!files) {
    return goneSubject(title, 'This chart was drawn from a SQL console statement\'s rows, which do not outlast a reload of the window. Run the statement again and choose Chart… on its result.', saved);
  }
  const missing = await firstMissing(files.paths);
  if (missing !== undefined) {
    return goneSubject(title, `The files this chart was drawn from are no longer on disk (${missing} is missing). Preview the result again (download its job again if it was removed) and choose Chart… there.`, saved);
  }
  try {
    const source = await sourceOf(savedFilesTarget(files.paths, files.name, deps.jobs));
    const { handle, columns } = await deps.engine.open(source);
    return { title, columns, source: { handle, view: engineView(view ?? EMPTY_VIEW) }, files, ...(view ? { view } : {}), close: () => deps.engine.closeHandle(handle) };
  } catch (err) {
    const why = describeFailure(err).label;
    deps.logger.warn(`The chart of ${title} could not be drawn again after a reload: ${why}`);
    return goneSubject(title, why, saved);
  }
}

/** Registers the chart panels' serializer: `show` puts each restored panel to work on its subject. */
export function registerChartRestore(deps: ChartRestoreDeps, show: (webviewPanel: vscode.WebviewPanel, subject: ChartSubject, spec: ChartSpec) => void): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(ViewTypes.chart, {
    deserializeWebviewPanel: async (webviewPanel, state) => {
      const saved = parseSavedChart(state);
      if (!saved) {
        const title = webviewPanel.title.replace(/^Chart: /, '');
        show(webviewPanel, goneSubject(title, 'This chart could not be drawn again after the reload of the window. Open a preview of the result and choose Chart… there.'), NO_CHART);
        return;
      }
      show(webviewPanel, await restoredSubject(saved, deps), saved.spec);
    },
  });
}

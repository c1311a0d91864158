// Builds and registers everything about query jobs: the model and its store in
// workspaceState, the runner on the shared clients, the Jobs view, the status bar item,
// the read-only result documents and the job and result commands. Jobs that were running
// when the window closed are followed again.

import * as vscode from 'vscode';
import { systemClock } from '../../core/clock';
import type { Logger } from '../../core/logger';
import { JobRunner } from '../../jobs/jobRunner';
import { JobStore } from '../../jobs/jobStore';
import { JobsModel } from '../../jobs/jobsModel';
import { JobsTicker } from '../../jobs/jobsTicker';
import { SincePointStore } from '../../jobs/sincePoints';
import { Views } from '../ui/ids';
import { registerJobCommands } from './jobCommands';
import { registerQueryCommands } from './queryCommands';
import { registerResultCommands, type ResultCommandDeps } from './resultCommands';
import { connectionIdentity } from '../connections/connectionConfig';
import type { ClientPool } from '../connections/clientPool';
import type { ConnectionStore } from '../connections/connectionStore';
import type { SchemaModel } from '../schema/schemaModel';
import { clientByName, type JobServices } from './jobServices';
import { settingChanged } from '../ui/vscodeSettings';
import { readDownloadSettings, readKeepFinishedDays, resultsRoot } from './jobSettings';
import type { JobsViewNode } from './jobsNodes';
import { JobsStatusBar } from './jobsStatusBar';
import { JobsTreeProvider } from './jobsTreeProvider';
import { RESULT_SCHEME, ResultDocumentProvider } from './resultDocuments';

export interface JobsFeature {
  model: JobsModel;
  runner: JobRunner;
  jobsTree: JobsTreeProvider;
  jobsView: vscode.TreeView<JobsViewNode>;
  /** stops following jobs without marking them, so the next window resumes them */
  stop(): void;
}

export interface JobsFeatureDeps extends ResultCommandDeps {
  store: ConnectionStore;
  pool: ClientPool;
  schemas: SchemaModel;
  logger: Logger;
}

const PRUNE_EVERY_MS = 60 * 60_000;

function pruneEvery(ms: number, prune: () => void): vscode.Disposable {
  const timer = setInterval(prune, ms);
  return { dispose: () => clearInterval(timer) };
}

export function registerJobsFeature(context: vscode.ExtensionContext, deps: JobsFeatureDeps): JobsFeature {
  const { store, pool, schemas, logger } = deps;
  const model = new JobsModel(new JobStore(context.workspaceState), systemClock, logger);
  model.prune(readKeepFinishedDays());
  const sincePoints = new SincePointStore(context.workspaceState, (name) => {
    const connection = store.list().find((c) => c.name === name);
    return connection ? connectionIdentity(connection) : name;
  });
  const clientFor = clientByName(store, pool);
  const root = (options?: { create?: boolean }): Promise<string> => resultsRoot(context.globalStorageUri, options);
  const runner = new JobRunner({ model, sincePoints, clientFor, resultsRoot: root, downloadSettings: readDownloadSettings, clock: systemClock, logger });
  const services: JobServices = { model, runner, sincePoints, store, pool, schemas, logger, clientFor, resultsRoot: root };

  const jobsTree = new JobsTreeProvider(model, () => Date.now());
  const jobsView = vscode.window.createTreeView(Views.jobs, { treeDataProvider: jobsTree });
  const statusBar = new JobsStatusBar(model, clientFor, () => Date.now());
  const ticker = new JobsTicker(model, systemClock, () => {
    jobsTree.refresh();
    statusBar.render();
  }, () => jobsView.visible);
  context.subscriptions.push(
    model,
    jobsTree,
    jobsView,
    statusBar,
    ticker,
    jobsView.onDidChangeVisibility(() => ticker.update()),
    vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, new ResultDocumentProvider()),
    // finished jobs leave the list once older than the setting, in a window left open too
    pruneEvery(PRUNE_EVERY_MS, () => model.prune(readKeepFinishedDays())),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (settingChanged(e, 'dataQuery.jobs.keepFinishedDays')) model.prune(readKeepFinishedDays());
    }),
    ...registerQueryCommands(services),
    ...registerJobCommands(services),
    ...registerResultCommands(services, deps),
  );
  runner.resume();
  return { model, runner, jobsTree, jobsView, stop: () => runner.dispose() };
}

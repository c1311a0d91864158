// Composition root: builds the extension's objects, wires them together and registers
// them with VS Code. Behaviour lives in the modules it composes.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { DataQueryClient } from '../client/dataQueryClient';
import { createDispatcher } from '../client/dispatcher';
import { rateLedgerFolder } from '../client/rateLedgerFolder';
import { startEmulator } from '../emulator/emulator';
import { EngineClient } from '../engine/engineClient';
import { systemClock } from '../core/clock';
import type { JobsModel } from '../jobs/jobsModel';
import { ClientPool } from './connections/clientPool';
import { ConnectionStore } from './connections/connectionStore';
import { SampleEmulatorHost } from './connections/sampleEmulatorHost';
import { registerConnectionCommands } from './connections/connectionCommands';
import { registerExplorerCommands } from './explorer/explorerCommands';
import type { ExplorerNode } from './explorer/explorerNodes';
import { registerJobsFeature } from './jobs/jobsFeature';
import type { JobsViewNode } from './jobs/jobsNodes';
import { readRateLimits } from './jobs/jobSettings';
import { ExplorerTreeProvider } from './explorer/explorerTreeProvider';
import { outputChannelLogger, registerShowLog } from './ui/outputChannelLogger';
import { engineFolders } from './preview/engineFolders';
import { jobDownloads, schemaFromConnections } from './preview/jobDownloads';
import { registerPreview } from './preview/previewCommands';
import { engineSettings } from './preview/engineSettings';
import { prepareDownloads } from './preview/prepareDownloads';
import { readProxySettings } from './connections/proxySettings';
import { registerSchemaFeature, type SchemaPages } from './schema/schemaFeature';
import { SchemaModel } from './schema/schemaModel';
import { syncedTableMarks } from './sync/syncedTableMarks';
import { SyncedTablesModel } from './sync/syncedTablesModel';
import { registerSyncFeature } from './sync/syncFeature';
import { Views } from './ui/ids';
import { setting } from './ui/vscodeSettings';

/** What activate() returns: the explorer and its view, so tests can read the tree as a user sees it. */
export interface DataQueryExtensionApi {
  explorer: ExplorerTreeProvider;
  explorerView: vscode.TreeView<ExplorerNode>;
  /** table lists and schemas of every connection, with their ages */
  schemas: SchemaModel;
  /** every query job of this workspace, as the Jobs view and the status bar show them */
  jobs: JobsModel;
  jobsView: vscode.TreeView<JobsViewNode>;
  /** the tables the sync target holds, as the explorer marks them */
  syncedTables: SyncedTablesModel;
  /** the open schema pages: the version and HTML each shows */
  schemaPages: SchemaPages;
  /** how many results the SQL engine holds open (a preview's until it closes) */
  openResults(): number;
}

let stopping: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): DataQueryExtensionApi {
  const channel = vscode.window.createOutputChannel('Data Query', { log: true });
  const logger = outputChannelLogger(channel);
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');

  const sample = new SampleEmulatorHost(() => startEmulator({ logger }), logger);
  const store = new ConnectionStore(context.secrets, logger, context.globalState);
  const userAgent = `data-query-explorer/${version} (vscode)`;
  const pool = new ClientPool({
    createClient: (options) => new DataQueryClient(options),
    createDispatcher,
    proxySettings: readProxySettings,
    rateLimits: readRateLimits,
    credentials: (connection) => store.credentialsFor(connection),
    sample,
    logger,
    userAgent,
    sharedBudgetFolder: rateLedgerFolder(process.env),
  });
  const syncedTables = new SyncedTablesModel(context.globalState, systemClock);
  const schemas = new SchemaModel(context.globalState, pool, systemClock);
  const explorer = new ExplorerTreeProvider(store, pool, logger, schemas, systemClock, syncedTableMarks(syncedTables));
  const explorerView = vscode.window.createTreeView(Views.explorer, { treeDataProvider: explorer, showCollapseAll: true });

  const onSettingsChanged = (): void => explorer.connectionsChanged(pool.retain(store.list()));
  context.subscriptions.push(
    channel,
    store,
    schemas,
    explorer,
    explorerView,
    explorer.followExpansion(explorerView),
    store.onDidChangeConnections(onSettingsChanged),
    store.onDidChangeCredentials((name) => {
      pool.forget(name);
      explorer.connectionsChanged([name]);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('http') || e.affectsConfiguration('dataQuery.rateLimits')) onSettingsChanged();
    }),
    ...registerConnectionCommands(store, pool, logger, (connection) => explorer.reveal(explorerView, connection)),
    ...registerExplorerCommands(explorer),
    registerShowLog(channel),
  );
  const jobs = registerJobsFeature(context, { store, pool, schemas, logger, userAgent, createDispatcher: () => createDispatcher(readProxySettings()) });
  const schemaFeature = registerSchemaFeature({ schemas, explorer, view: explorerView, store, pool, logger, jobs: jobs.model, extensionUri: context.extensionUri, clock: systemClock });
  context.subscriptions.push(...schemaFeature.disposables);
  const engine = new EngineClient({
    hostScript: context.asAbsolutePath(path.join('dist', 'engineHost.js')),
    tempDir: path.join(context.globalStorageUri.fsPath, 'engine'),
    readableFolders: () => engineFolders(context.globalStorageUri),
    ...engineSettings(),
    logger,
  });
  const downloaded = jobDownloads(jobs.model, schemaFromConnections(store, schemas), logger);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('dataQuery.preview')) return;
      engine.configure(engineSettings()).catch((err: unknown) => logger.warn(`The SQL engine kept its settings: ${err instanceof Error ? err.message : String(err)}`));
    }),
    ...registerPreview({ engine, jobs: downloaded, extensionUri: context.extensionUri, logger }),
    prepareDownloads({
      onDidChange: jobs.model.onDidChange,
      jobs: downloaded,
      engine,
      enabled: () => setting('dataQuery.preview.prepareAfterDownload'),
      logger,
    }),
  );
  const sync = registerSyncFeature({ context, model: syncedTables, schemas, store, pool, sample, logger, userAgent });
  context.subscriptions.push(syncedTables, ...sync.disposables);
  stopping = async () => {
    sync.stop();
    await engine.dispose();
    jobs.stop();
    await pool.dispose();
    await sample.dispose();
  };
  logger.info(`Data Query Explorer ${version} activated.`);
  return { explorer, explorerView, schemas, jobs: jobs.model, jobsView: jobs.jobsView, syncedTables, schemaPages: schemaFeature.pages, openResults: () => engine.openResults };
}

export async function deactivate(): Promise<void> {
  const stop = stopping;
  stopping = undefined;
  await stop?.();
}

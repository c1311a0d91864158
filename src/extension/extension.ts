// Composition root: builds the extension's objects, wires them together and registers
// them with VS Code. Behaviour lives in the modules it composes.

import * as vscode from 'vscode';
import { DataQueryClient } from '../client/dataQueryClient';
import { createDispatcher } from '../client/dispatcher';
import { startEmulator } from '../emulator/emulator';
import { ClientPool } from './connections/clientPool';
import { ConnectionStore } from './connections/connectionStore';
import { SampleEmulatorHost } from './connections/sampleEmulatorHost';
import { registerConnectionCommands } from './commands/connectionCommands';
import { registerExplorerCommands } from './commands/explorerCommands';
import { ExplorerTreeProvider } from './explorer/explorerTreeProvider';
import { outputChannelLogger } from './logging/outputChannelLogger';
import { readProxySettings } from './proxySettings';

/** What activate() returns: the explorer, so tests can read the tree as a user sees it. */
export interface DataQueryExtensionApi {
  explorer: ExplorerTreeProvider;
}

let stopping: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): DataQueryExtensionApi {
  const channel = vscode.window.createOutputChannel('Data Query', { log: true });
  const logger = outputChannelLogger(channel);
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '0.0.0');

  const sample = new SampleEmulatorHost(() => startEmulator({ logger }), logger);
  const store = new ConnectionStore(context.secrets, logger);
  const pool = new ClientPool({
    createClient: (options) => new DataQueryClient(options),
    createDispatcher,
    proxySettings: readProxySettings,
    credentials: (name) => store.getCredentials(name),
    sample,
    logger,
    userAgent: `data-query-explorer/${version} (vscode)`,
  });
  const explorer = new ExplorerTreeProvider(store, pool, logger);

  const onSettingsChanged = async (): Promise<void> => {
    await pool.reset();
    explorer.refresh();
  };
  context.subscriptions.push(
    channel,
    store,
    explorer,
    vscode.window.createTreeView('dataQuery.explorer', { treeDataProvider: explorer, showCollapseAll: true }),
    store.onDidChangeConnections(onSettingsChanged),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('http')) void onSettingsChanged();
    }),
    ...registerConnectionCommands(store, pool, logger),
    ...registerExplorerCommands(explorer, channel),
  );
  stopping = async () => {
    await pool.dispose();
    await sample.dispose();
  };
  logger.info(`Data Query Explorer ${version} activated.`);
  return { explorer };
}

export async function deactivate(): Promise<void> {
  const stop = stopping;
  stopping = undefined;
  await stop?.();
}

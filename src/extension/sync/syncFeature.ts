// Syncing service tables into a database, wired together: the target from the
// dataQuery.sync.target setting, the sync host (a child process running the editor's own
// Node), the service that runs syncs and reads the target's meta table into the synced-tables
// model, and the commands. The synced tables are read on activation and when the setting
// changes (only when there is something to read: a missing local database is not created,
// and a PostgreSQL server a workspace's settings name is read once a sync to it was allowed).

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { SyncHostClient } from '../../sync/syncHostClient';
import type { ClientPool } from '../connections/clientPool';
import type { ConnectionStore } from '../connections/connectionStore';
import type { SampleEmulatorHost } from '../connections/sampleEmulatorHost';
import type { SchemaModel } from '../schema/schemaModel';
import { findConnection } from '../jobs/jobServices';
import { readRateLimits } from '../jobs/jobSettings';
import { readProxySettings } from '../connections/proxySettings';
import { inspectSetting, settingAsIs } from '../ui/vscodeSettings';
import { parseSyncTarget, SYNC_TARGET_SETTING, type SyncTargetChoice } from './syncTargetSetting';
import { registerSyncCommands } from './syncCommands';
import type { SyncedTablesModel } from './syncedTablesModel';
import { SyncService } from './syncService';
import { syncServiceConfig, syncSourceOf } from './syncServiceConfig';
import { settingOrigin, SyncTargetConsent } from './syncTargetConsent';
import { ContextKeys, EditorCommands } from '../ui/ids';

export interface SyncFeatureDeps {
  context: vscode.ExtensionContext;
  model: SyncedTablesModel;
  schemas: SchemaModel;
  store: ConnectionStore;
  pool: ClientPool;
  sample: SampleEmulatorHost;
  logger: Logger;
  userAgent: string;
}

export interface SyncFeature {
  service: SyncService;
  disposables: vscode.Disposable[];
  /** kills syncs still running (the editor is closing); their tables stay at their last complete run */
  stop(): void;
}

export function registerSyncFeature(deps: SyncFeatureDeps): SyncFeature {
  const { context, model, store, logger } = deps;
  const storage = context.globalStorageUri.fsPath;
  const target = (): SyncTargetChoice =>
    parseSyncTarget(settingAsIs(SYNC_TARGET_SETTING), {
      globalStorage: storage,
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.scheme === 'file' ? vscode.workspace.workspaceFolders[0].uri.fsPath : undefined,
    });
  const consent = new SyncTargetConsent(context.globalState, () => settingOrigin(inspectSetting(SYNC_TARGET_SETTING)));
  // a table is marked under the connections that reach the service it came from
  model.useSourceOf((name) => {
    const connection = store.list().find((c) => c.name === name);
    return connection && syncSourceOf(connection);
  });
  const host = new SyncHostClient({ hostScript: context.asAbsolutePath(path.join('dist', 'syncHost.js')), logger });
  const service = new SyncService({
    host,
    model,
    target,
    workDir: path.join(storage, 'sync-work'),
    logger,
    consent,
    serviceFor: (name) =>
      syncServiceConfig(findConnection(store, name), {
        sample: () => deps.sample.get(),
        credentials: (connection) => store.credentialsFor(connection),
        proxySettings: readProxySettings,
        rateLimits: readRateLimits,
        userAgent: deps.userAgent,
      }),
  });
  const disposables = [
    ...registerSyncCommands({
      service,
      model,
      store,
      pool: deps.pool,
      tables: (connection, namespace, signal) => deps.schemas.tables(connection, namespace, signal),
      target,
      consent,
      logger,
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(SYNC_TARGET_SETTING)) return;
      void service.refresh();
      markSyncedDatabase(target);
    }),
    // a sync may have made the database file
    model.onDidChange(() => markSyncedDatabase(target)),
  ];
  void service.refresh();
  markSyncedDatabase(target);
  return { service, disposables, stop: () => host.dispose() };
}

function markSyncedDatabase(target: () => SyncTargetChoice): void {
  let present = false;
  try {
    const chosen = target();
    present = chosen.kind === 'duckdb' && existsSync(chosen.path);
  } catch {
    // a setting that cannot be read: the sync commands say why
  }
  // the menus show "Open SQL Console on Synced Database" once there is a DuckDB database to open
  void vscode.commands.executeCommand(EditorCommands.setContext, ContextKeys.syncedDatabase, present);
}

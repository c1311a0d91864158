// Every id the extension shares with package.json and VS Code: its commands, views, webview
// and editor types, and the context keys its menus test. Plain data, no `vscode` import, so a
// unit test holds it against package.json (test/unit/extension/contributions.test.ts).

export const Commands = {
  queryTable: 'dataQuery.queryTable',
  queryChangesSince: 'dataQuery.queryChangesSince',
  rerunJob: 'dataQuery.rerunJob',
  downloadJob: 'dataQuery.downloadJob',
  cancelJob: 'dataQuery.cancelJob',
  removeJob: 'dataQuery.removeJob',
  openResult: 'dataQuery.openResult',
  revealResults: 'dataQuery.revealResults',
  copyResultLink: 'dataQuery.copyResultLink',
  openResultLink: 'dataQuery.openResultLink',
  showJobs: 'dataQuery.showJobs',
  addConnection: 'dataQuery.addConnection',
  trySampleData: 'dataQuery.trySampleData',
  refresh: 'dataQuery.refresh',
  showSchema: 'dataQuery.showSchema',
  findColumn: 'dataQuery.findColumn',
  copyColumns: 'dataQuery.copyColumns',
  copyCreateTable: 'dataQuery.copyCreateTable',
  setCredentials: 'dataQuery.setCredentials',
  editConnection: 'dataQuery.editConnection',
  removeConnection: 'dataQuery.removeConnection',
  showLog: 'dataQuery.showLog',
  previewResult: 'dataQuery.previewResult',
  exportResult: 'dataQuery.exportResult',
  profileResult: 'dataQuery.profileResult',
  chartResult: 'dataQuery.chartResult',
  openSqlConsole: 'dataQuery.openSqlConsole',
  runSqlStatement: 'dataQuery.runSqlStatement',
  syncTable: 'dataQuery.syncTable',
  syncNamespace: 'dataQuery.syncNamespace',
  openSyncedSqlConsole: 'dataQuery.openSyncedSqlConsole',
} as const;

export type CommandId = (typeof Commands)[keyof typeof Commands];

/** VS Code's own commands the extension runs. */
export const EditorCommands = {
  openSettings: 'workbench.action.openSettings',
  openSettingsJson: 'workbench.action.openSettingsJson',
  setContext: 'setContext',
  revealInExplorer: 'revealInExplorer',
  revealFileInOS: 'revealFileInOS',
} as const;

/** The views of the "Data Query" container. */
export const Views = {
  container: 'dataQuery',
  explorer: 'dataQuery.explorer',
  jobs: 'dataQuery.jobs',
} as const;

/** The command VS Code makes for every view: it shows the view. */
export function focusCommand(view: (typeof Views)['explorer' | 'jobs']): string {
  return `${view}.focus`;
}

/** Webview panels' and custom editors' view types, and the status bar item's id. */
export const ViewTypes = {
  preview: 'dataQuery.preview',
  resultPreview: 'dataQuery.resultPreview',
  schema: 'dataQuery.schema',
  chart: 'dataQuery.chart',
  statusBar: 'dataQuery.status',
} as const;

/** Context keys the menus' `when` clauses test. */
export const ContextKeys = {
  /** a DuckDB database to open in the SQL console exists: the sync has written one */
  syncedDatabase: 'dataQuery.syncedDatabase',
  /** the active editor is a SQL console */
  sqlConsole: 'dataQuery.sqlConsole',
} as const;

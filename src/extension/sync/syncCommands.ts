// Sync Table, Sync Namespace and Open SQL Console on Synced Database. With an argument object
// ({connection, namespace, table?, resnapshot?}) a sync asks nothing and resolves with one
// report per table; from a tree node or the palette (quick picks connection > namespace >
// table) it shows a progress notification with Cancel, then a summary with the next steps.
// A PostgreSQL server named by a workspace's settings is allowed first, in a modal dialog.

import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import { DqError, isDqError, type ErrorKind } from '../../client/errors';
import { isRecord } from '../../core/isRecord';
import type { Logger } from '../../core/logger';
import { toErrorKind } from '../../sync/syncHostClient';
import type { SyncProgress, TableSyncReport } from '../../sync/syncReport';
import { optionalBoolean, registerArgsOrInteractiveCommand } from '../ui/commands';
import type { ClientPool } from '../connections/clientPool';
import type { Connection } from '../connections/connectionConfig';
import type { ConnectionStore } from '../connections/connectionStore';
import { findConnection } from '../jobs/jobServices';
import { runPickSteps, type PickItem, type PickStep } from '../ui/multiStepPick';
import { presentError, type ErrorAction } from '../ui/presentError';
import { Commands, EditorCommands } from '../ui/ids';
import type { SyncedTablesModel } from './syncedTablesModel';
import type { SyncOutcome, SyncRequest, SyncService } from './syncService';
import type { ConsentAnswer, ConsentProblem, ConsentQuestion, SyncTargetConsent } from './syncTargetConsent';
import { SYNC_TARGET_SETTING, type SyncTargetChoice } from './syncTargetSetting';
import { runMessage, summaryText } from './syncTexts';

/** The name the synced database has in the SQL console (`synced.canvas.users`). */
export const SYNCED_DATABASE_ALIAS = 'synced';

export interface SyncCommandDeps {
  service: SyncService;
  model: SyncedTablesModel;
  store: ConnectionStore;
  pool: ClientPool;
  /** a namespace's tables (the SchemaModel's copy when fresh) */
  tables(connection: Connection, namespace: string, signal: AbortSignal): Promise<string[]>;
  target(): SyncTargetChoice;
  /** the remembered answers about servers a workspace's settings name */
  consent: Pick<SyncTargetConsent, 'forget'>;
  logger: Logger;
}

interface SyncDraft {
  connection?: string;
  namespace?: string;
  table?: string;
}

export function registerSyncCommands(deps: SyncCommandDeps): vscode.Disposable[] {
  const { logger } = deps;
  return [
    registerArgsOrInteractiveCommand(Commands.syncTable, 'Sync Table', logger, {
      fromArgs: async (args) => {
        const request = await requestFromArgs(deps, args, true);
        return (await deps.service.run(request, { signal: cancellationOf(args) })).reports;
      },
      interactive: async (node) => {
        const draft = await askFor(deps, 'Sync Table', draftFromNode(node, 'table'), true);
        return draft && syncInteractively(deps, { connection: draft.connection!, namespace: draft.namespace!, tables: [draft.table!], resnapshot: false });
      },
    }),
    registerArgsOrInteractiveCommand(Commands.syncNamespace, 'Sync Namespace', logger, {
      fromArgs: async (args) => {
        const request = await requestFromArgs(deps, args, false);
        return (await deps.service.run(request, { signal: cancellationOf(args) })).reports;
      },
      interactive: async (node) => {
        const draft = await askFor(deps, 'Sync Namespace', draftFromNode(node, 'namespace'), false);
        return draft && syncInteractively(deps, { connection: draft.connection!, namespace: draft.namespace!, tables: 'all', resnapshot: false });
      },
    }),
    registerArgsOrInteractiveCommand(Commands.openSyncedSqlConsole, 'Open SQL Console on Synced Database', logger, {
      fromArgs: async (args) => openSyncedConsole(deps, typeof args.namespace === 'string' && typeof args.table === 'string' ? { namespace: args.namespace, table: args.table } : undefined),
      interactive: async (node) => {
        const n = isRecord(node) && node.kind === 'table' ? (node as { namespace: string; table: string }) : undefined;
        return openSyncedConsole(deps, n && { namespace: n.namespace, table: n.table });
      },
    }),
  ];
}

/** Syncs with a progress notification (Cancel stops it), then says how it went. */
async function syncInteractively(deps: SyncCommandDeps, request: SyncRequest): Promise<TableSyncReport[] | undefined> {
  const what = request.tables === 'all' ? request.namespace : `${request.namespace}.${request.tables.join(', ')}`;
  const title = `Sync ${what} (${request.connection})${request.resnapshot ? ', fresh snapshot' : ''}`;
  let outcome: SyncOutcome;
  try {
    // before the progress notification: the dialog asks about a server a workspace's settings name
    await deps.service.confirmTarget(askToAllow);
    outcome = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const stop = new AbortController();
      const cancel = token.onCancellationRequested(() => stop.abort());
      const latest = new Map<string, SyncProgress>();
      const render = (): void => progress.report({ message: runMessage([...latest.values()], Date.now()) });
      // the wait of a queued table counts down
      const ticker = setInterval(() => {
        if ([...latest.values()].some((p) => p.stage === 'queued' && p.startsAt !== undefined)) render();
      }, 1000);
      try {
        progress.report({ message: request.tables === 'all' ? 'listing the tables' : 'starting' });
        return await deps.service.run(request, {
          signal: stop.signal,
          ask: askToAllow,
          onWaiting: () => progress.report({ message: 'waiting for another sync of the same database to end' }),
          onProgress: (p) => {
            latest.set(`${p.namespace}.${p.table}`, p);
            render();
          },
        });
      } finally {
        clearInterval(ticker);
        cancel.dispose();
      }
    });
  } catch (err) {
    presentError(deps.logger, title, err, runActions(err, deps, request));
    return undefined;
  }
  announce(deps, request, outcome);
  return outcome.reports;
}

/** The summary notification: an error (with the log) when a table failed, else information. */
function announce(deps: SyncCommandDeps, request: SyncRequest, { reports, target }: SyncOutcome): void {
  const summary = summaryText(reports, target.label);
  const actions: ErrorAction[] = [];
  const stale = reports.filter((r) => r.needsResnapshot).map((r) => r.table);
  if (stale.length > 0) {
    actions.push({
      title: 'Resnapshot',
      run: () => syncInteractively(deps, { connection: request.connection, namespace: request.namespace, tables: stale, resnapshot: true }),
    });
  }
  if (target.kind === 'duckdb' && reports.some((r) => r.outcome === 'synced' || r.outcome === 'unchanged')) {
    const first = reports.find((r) => r.outcome === 'synced' || r.outcome === 'unchanged')!;
    actions.push({ title: 'Open SQL Console', run: () => vscode.commands.executeCommand(Commands.openSyncedSqlConsole, { namespace: first.namespace, table: first.table }) });
  }
  const failed = reports.find((r) => r.outcome === 'failed');
  if (failed) {
    presentError(deps.logger, 'Sync', new DqError(errorKind(failed.error?.kind), summary), actions);
    return;
  }
  void vscode.window.showInformationMessage(`Sync: ${summary}`, ...actions.map((a) => a.title)).then((choice) => actions.find((a) => a.title === choice)?.run());
}

/** The modal dialog that asks to allow a server a workspace's settings name. */
function askToAllow(question: ConsentQuestion): Thenable<ConsentAnswer> {
  return vscode.window
    .showWarningMessage(question.message, { modal: true, detail: question.detail }, question.allow, question.decline)
    .then((choice) => (choice === question.allow ? 'allow' : choice === question.decline ? 'decline' : undefined));
}

function runActions(err: unknown, deps: SyncCommandDeps, request: SyncRequest): ErrorAction[] {
  // an auth failure's step, Set Credentials, is the one describeFailure gives every auth failure
  if (!isDqError(err)) return [];
  const actions: ErrorAction[] = [];
  if (err.kind === 'usage' && err.details?.problem === ('targetDeclined' satisfies ConsentProblem)) {
    actions.push({
      title: 'Ask Again',
      run: async () => {
        await deps.consent.forget(deps.target());
        return syncInteractively(deps, request);
      },
    });
  }
  if (err.kind === 'usage' && err.message.includes(SYNC_TARGET_SETTING)) {
    actions.push({ title: 'Open Settings', run: () => vscode.commands.executeCommand(EditorCommands.openSettings, SYNC_TARGET_SETTING) });
  }
  return actions;
}

/** Opens the preview's SQL console on the synced DuckDB file, with a first statement on `table` (or a synced one). */
async function openSyncedConsole(deps: SyncCommandDeps, table?: { namespace: string; table: string }): Promise<vscode.TextEditor> {
  const target = deps.target();
  if (target.kind !== 'duckdb') {
    throw new DqError('usage', `The SQL console opens DuckDB databases only, and the sync target is ${target.label}.`, {
      hint: `Query it with a PostgreSQL client, or clear the ${SYNC_TARGET_SETTING} setting to sync to the local database.`,
    });
  }
  if (!existsSync(target.path)) {
    throw new DqError('usage', `Nothing is synced to ${target.label} yet.`, { hint: 'Sync a table first: "Data Query: Sync Table...".' });
  }
  const synced = deps.model.list();
  const example = (table && synced.find((s) => s.namespace === table.namespace && s.table === table.table)) ?? synced[0];
  const editor = await vscode.commands.executeCommand<vscode.TextEditor>(Commands.openSqlConsole, {
    database: { path: target.path, alias: SYNCED_DATABASE_ALIAS },
    label: `the synced database ${target.path}`,
    example: example ? `${sqlName(example.namespace)}.${sqlName(example.table)}` : undefined,
  });
  return editor;
}

function sqlName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

async function requestFromArgs(deps: SyncCommandDeps, args: Record<string, unknown>, oneTable: boolean): Promise<SyncRequest> {
  const shape = oneTable ? '{connection, namespace, table, resnapshot?}' : '{connection, namespace, resnapshot?}';
  const text = (name: string): string => {
    const value = args[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    throw new DqError('usage', `"${name}" is missing from the command's argument, or is not text.`, { hint: `Pass ${shape}.` });
  };
  const connection = findConnection(deps.store, text('connection'));
  const namespace = text('namespace');
  const table = oneTable ? text('table') : undefined;
  const resnapshot = optionalBoolean(args, 'resnapshot') ?? false;
  const { namespaces } = await deps.pool.session(connection);
  if (!namespaces.includes(namespace)) {
    throw new DqError('usage', `"${namespace}" is not a namespace of "${connection.name}".`, {
      hint: namespaces.length > 0 ? `Use one of ${namespaces.join(', ')}.` : 'Add namespaces to the connection in dataQuery.connections.',
    });
  }
  return { connection: connection.name, namespace, tables: table ? [table] : 'all', resnapshot };
}

/** A caller's cancellation token (`{cancellation}`), as an abort signal. */
function cancellationOf(args: Record<string, unknown>): AbortSignal | undefined {
  const token = args.cancellation as vscode.CancellationToken | undefined;
  if (token === undefined) return undefined;
  if (!isRecord(token) || typeof token.onCancellationRequested !== 'function') {
    throw new DqError('usage', '"cancellation" must be a CancellationToken.', { hint: 'Pass the token of a vscode.CancellationTokenSource, or leave it out.' });
  }
  const stop = new AbortController();
  if (token.isCancellationRequested) stop.abort();
  else token.onCancellationRequested(() => stop.abort());
  return stop.signal;
}

function draftFromNode(node: unknown, kind: 'table' | 'namespace'): SyncDraft {
  if (!isRecord(node) || !isRecord(node.connection)) return {};
  const connection = String(node.connection.name);
  if (node.kind === 'namespace') return { connection, namespace: String(node.namespace) };
  if (node.kind === 'table' || node.kind === 'column') {
    return kind === 'table' ? { connection, namespace: String(node.namespace), table: String(node.table) } : { connection, namespace: String(node.namespace) };
  }
  return node.kind === 'connection' ? { connection } : {};
}

async function askFor(deps: SyncCommandDeps, title: string, draft: SyncDraft, oneTable: boolean): Promise<SyncDraft | undefined> {
  const steps: PickStep<SyncDraft>[] = [
    {
      placeholder: 'Connection',
      skip: (d) => d.connection !== undefined,
      items: async () => {
        const items = deps.store.list().map((c): PickItem<SyncDraft> => ({ label: c.name, apply: (d) => (d.connection = c.name) }));
        if (items.length === 0) throw new DqError('usage', 'There is no connection yet.', { hint: 'Add one with "Data Query: Add Connection", or "Data Query: Try Sample Data".' });
        return items;
      },
    },
    {
      placeholder: 'Namespace',
      skip: (d) => d.namespace !== undefined,
      items: async (d) => {
        const { namespaces } = await deps.pool.session(findConnection(deps.store, d.connection!));
        return namespaces.map((n): PickItem<SyncDraft> => ({ label: n, description: syncedCount(deps, d.connection!, n), apply: (s) => (s.namespace = n) }));
      },
    },
  ];
  if (oneTable) {
    steps.push({
      placeholder: 'Table',
      skip: (d) => d.table !== undefined,
      items: async (d, note, signal) => {
        note('Listing the tables...');
        const tables = await deps.tables(findConnection(deps.store, d.connection!), d.namespace!, signal);
        return [...tables].sort().map(
          (t): PickItem<SyncDraft> => ({ label: t, description: deps.model.stateOf(d.connection!, d.namespace!, t) ? 'synced' : undefined, apply: (s) => (s.table = t) }),
        );
      },
    });
  }
  return runPickSteps(title, draft, steps);
}

function syncedCount(deps: SyncCommandDeps, connection: string, namespace: string): string | undefined {
  const n = deps.model.list().filter((s) => s.namespace === namespace && deps.model.stateOf(connection, s.namespace, s.table)).length;
  return n > 0 ? `${n} synced` : undefined;
}

/** A failed table's kind for the summary's error: never `cancelled`, which presentError would only log. */
function errorKind(kind: string | undefined): ErrorKind {
  const known = toErrorKind(kind ?? 'server');
  return known === 'cancelled' ? 'server' : known;
}

// Show Schema, Copy Column Names, Copy CREATE TABLE (the table a sync to PostgreSQL creates) and
// Find Column. Each takes an argument object ({connection, namespace, table}; Find Column
// {connection, text, namespaces?}) and then asks nothing and returns its result, or a tree node,
// or nothing (it asks).

import * as vscode from 'vscode';
import { cancelledError, DqError } from '../../client/errors';
import { findColumns, qualifiedName, type ColumnMatch } from '../../core/columnSearch';
import { isRecord } from '../../core/isRecord';
import type { Logger } from '../../core/logger';
import { columnsOf, flatColumnsOf } from '../../core/schema';
import { createTableScript } from '../../sync/postgresSql';
import { targetTableOf } from '../../sync/syncColumns';
import { registerArgsOrInteractiveCommand } from '../ui/commands';
import type { ClientPool } from '../connections/clientPool';
import type { Connection } from '../connections/connectionConfig';
import type { ConnectionStore } from '../connections/connectionStore';
import type { ExplorerNode } from '../explorer/explorerNodes';
import type { ExplorerTreeProvider } from '../explorer/explorerTreeProvider';
import { findConnection } from '../jobs/jobServices';
import { runPickSteps, type PickItem } from '../ui/multiStepPick';
import type { SchemaModel } from './schemaModel';
import type { SchemaPanels } from './schemaPanel';
import { Commands, type CommandId } from '../ui/ids';

export interface SchemaCommandDeps {
  /** table lists and schemas: every read of these commands goes through it */
  schemas: SchemaModel;
  /** only to reveal a found column */
  explorer: Pick<ExplorerTreeProvider, 'revealColumn'>;
  view: vscode.TreeView<ExplorerNode>;
  store: ConnectionStore;
  pool: ClientPool;
  panels: SchemaPanels;
  logger: Logger;
}

interface TableTarget {
  connection: Connection;
  namespace: string;
  table: string;
}

export function registerSchemaCommands(deps: SchemaCommandDeps): vscode.Disposable[] {
  const { logger } = deps;
  const schemaOf = (t: TableTarget) => deps.schemas.schema(t.connection, t.namespace, t.table);
  const tableCommand = (id: CommandId, title: string, run: (t: TableTarget) => Promise<unknown>): vscode.Disposable =>
    registerArgsOrInteractiveCommand(id, title, logger, {
      fromArgs: async (args) => run(targetFromArgs(deps.store, args)),
      interactive: async (node) => {
        const target = targetFromNode(node ?? deps.view.selection[0]) ?? (await pickTable(deps, title));
        return target && run(target);
      },
    });
  const copy = async (text: string, what: string): Promise<string> => {
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`Copied ${what}.`, 3000);
    return text;
  };
  return [
    tableCommand(Commands.showSchema, 'Show Schema', async (t) => {
      const held = await schemaOf(t);
      deps.panels.show({ connection: t.connection.name, namespace: t.namespace, table: t.table }, held);
      return { version: held.value.version, columns: columnsOf(held.value, `${t.namespace}.${t.table}`).length };
    }),
    tableCommand(Commands.copyColumns, 'Copy Column Names', async (t) => {
      const names = flatColumnsOf(columnsOf((await schemaOf(t)).value, `${t.namespace}.${t.table}`)).map((c) => c.name);
      return copy(`${names.join('\n')}\n`, `${names.length} column names of ${t.namespace}.${t.table}`);
    }),
    // the table a sync to PostgreSQL creates
    tableCommand(Commands.copyCreateTable, 'Copy CREATE TABLE', async (t) =>
      copy(createTableScript(targetTableOf(t.namespace, t.table, (await schemaOf(t)).value)), `CREATE TABLE for ${t.namespace}.${t.table}`),
    ),
    registerArgsOrInteractiveCommand(Commands.findColumn, 'Find Column', logger, {
      fromArgs: async (args) => {
        // the whole argument is checked before anything is read: a catalog costs listings the service allows 5 a minute
        const connection = findConnection(deps.store, stringArg(args, 'connection'));
        const text = stringArg(args, 'text');
        const asked = namespacesArg(args);
        const namespaces = asked ?? (await deps.pool.session(connection)).namespaces;
        const read = await deps.schemas.catalog(connection, namespaces, { signal: new AbortController().signal });
        return {
          matches: findColumns(text, read.tables).map((m) => ({ name: qualifiedName(m), type: m.column.type, description: m.column.description ?? null })),
          problems: read.problems,
        };
      },
      interactive: async (node) => findColumnInteractively(deps, targetConnection(deps, node)),
    }),
  ];
}

async function findColumnInteractively(deps: SchemaCommandDeps, known: Connection | undefined): Promise<ColumnMatch | undefined> {
  const connection = known ?? (await pickConnection(deps));
  if (!connection) return undefined;
  // without credentials every call would fail alike: say so once, not as missing columns
  // (credentials saved for another base URL say so)
  if (connection.kind === 'remote') await deps.store.credentialsFor(connection);
  const { namespaces } = await deps.pool.session(connection);
  const read = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Reading the schemas of ${connection.name}`, cancellable: true },
    async (progress, token) => {
      const stop = new AbortController();
      token.onCancellationRequested(() => stop.abort(cancelledError('Finding a column', { after: '.' })));
      let reported = 0;
      return deps.schemas.catalog(connection, namespaces, {
        signal: stop.signal,
        onProgress: (done, total) => {
          const percent = total === 0 ? 100 : (done / total) * 100;
          progress.report({ message: `${done} of ${total} tables`, increment: percent - reported });
          reported = percent;
        },
      });
    },
  );
  for (const problem of read.problems) deps.logger.warn(`${connection.name}: ${problem}`);
  if (read.tables.length === 0 && read.problems.length > 0) {
    throw new DqError('network', `No table of ${connection.name} could be read. ${read.problems[0]}`, {
      hint: 'Check the connection (Refresh it in the Data Query view), then try again.',
    });
  }
  if (read.problems.length > 0) {
    void vscode.window.showWarningMessage(`${read.problems.length} tables or namespaces could not be read, so their columns are missing; see the log.`);
  }
  const items = findColumns('', read.tables).map((match) => ({
    label: qualifiedName(match),
    description: match.column.type,
    detail: match.column.description,
    match,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `Find Column in ${connection.name}`,
    placeHolder: 'Part of a column name or description',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) return undefined;
  const { namespace, table, column } = picked.match;
  await deps.explorer.revealColumn(deps.view, connection, namespace, table, column);
  return picked.match;
}

function targetFromArgs(store: ConnectionStore, args: Record<string, unknown>): TableTarget {
  return { connection: findConnection(store, stringArg(args, 'connection')), namespace: stringArg(args, 'namespace'), table: stringArg(args, 'table') };
}

function targetFromNode(node: unknown): TableTarget | undefined {
  if (!isRecord(node) || (node.kind !== 'table' && node.kind !== 'column')) return undefined;
  const n = node as unknown as TableTarget;
  return { connection: n.connection, namespace: n.namespace, table: n.table };
}

function targetConnection(deps: SchemaCommandDeps, node: unknown): Connection | undefined {
  const chosen = node ?? deps.view.selection[0];
  return isRecord(chosen) && isRecord(chosen.connection) ? (chosen.connection as unknown as Connection) : undefined;
}

function stringArg(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value === 'string' && value.length > 0) return value;
  throw new DqError('usage', `"${name}" is missing from the command's argument.`, { hint: `Pass {connection, namespace, table} (Find Column: {connection, text}).` });
}

/** Find Column's optional `namespaces`: a list of names, or undefined for the connection's own. */
function namespacesArg(args: Record<string, unknown>): string[] | undefined {
  const value = args.namespaces;
  if (value === undefined) return undefined;
  if (Array.isArray(value) && value.every((n) => typeof n === 'string' && n.length > 0)) return value as string[];
  throw new DqError('usage', '"namespaces" in the command\'s argument must be a list of namespace names.', {
    hint: 'Pass {connection, text} to search every namespace of the connection, or add namespaces: ["canvas", ...].',
  });
}

async function pickConnection(deps: SchemaCommandDeps): Promise<Connection | undefined> {
  const connections = deps.store.list();
  if (connections.length === 0) {
    throw new DqError('usage', 'There is no connection yet.', { hint: 'Add one with "Data Query: Add Connection", or "Data Query: Try Sample Data".' });
  }
  if (connections.length === 1) return connections[0];
  const picked = await vscode.window.showQuickPick(connections.map((c) => ({ label: c.name, connection: c })), { placeHolder: 'Connection' });
  return picked?.connection;
}

async function pickTable(deps: SchemaCommandDeps, title: string): Promise<TableTarget | undefined> {
  const connection = await pickConnection(deps);
  if (!connection) return undefined;
  const draft: { namespace?: string; table?: string } = {};
  const done = await runPickSteps(title, draft, [
    {
      placeholder: 'Namespace',
      items: async () => (await deps.pool.session(connection)).namespaces.map((n): PickItem<typeof draft> => ({ label: n, apply: (d) => (d.namespace = n) })),
    },
    {
      placeholder: 'Table',
      items: async (d, _note, signal) =>
        [...(await deps.schemas.tables(connection, d.namespace as string, signal))].sort().map((t): PickItem<typeof draft> => ({ label: t, apply: (s) => (s.table = t) })),
    },
  ]);
  return done && { connection, namespace: done.namespace as string, table: done.table as string };
}

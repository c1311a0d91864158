// Commands that add, test and remove connections. Add Connection asks for name, base URL,
// client ID and secret, tests them with a token request, and saves only on success; on
// failure it shows the reason and offers to edit what was typed.

import * as vscode from 'vscode';
import { isCancelled, isDqError } from '../../client/errors';
import type { Credentials } from '../../client/types';
import type { Logger } from '../../core/logger';
import type { ClientPool } from '../connections/clientPool';
import {
  checkBaseUrl,
  DEFAULT_DATA_PREFIX,
  DEFAULT_NAMESPACES,
  SAMPLE_CONNECTION_NAME,
  uniqueName,
  type RemoteConnection,
} from '../connections/connectionConfig';
import type { ConnectionStore } from '../connections/connectionStore';
import type { ExplorerNode } from '../explorer/explorerNodes';

interface Draft {
  name: string;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

const EDIT = 'Edit and Retry';

export function registerConnectionCommands(store: ConnectionStore, pool: ClientPool, logger: Logger): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('dataQuery.addConnection', () => addConnection(store, pool, logger)),
    vscode.commands.registerCommand('dataQuery.trySampleData', () => trySampleData(store)),
    vscode.commands.registerCommand('dataQuery.setCredentials', (node?: ExplorerNode) => setCredentials(store, node)),
    vscode.commands.registerCommand('dataQuery.removeConnection', (node?: ExplorerNode) => removeConnection(store, node)),
  ];
}

async function trySampleData(store: ConnectionStore): Promise<void> {
  const existing = store.list().find((c) => c.kind === 'sample');
  if (!existing) {
    const name = uniqueName(SAMPLE_CONNECTION_NAME, store.list().map((c) => c.name));
    await store.add({ kind: 'sample', name });
  }
  await vscode.commands.executeCommand('dataQuery.explorer.focus');
}

async function addConnection(store: ConnectionStore, pool: ClientPool, logger: Logger): Promise<void> {
  let draft: Draft = { name: '', baseUrl: 'https://', clientId: '', clientSecret: '' };
  for (;;) {
    const typed = await askForConnection(draft, store.list().map((c) => c.name));
    if (!typed) return;
    draft = typed;
    const connection: RemoteConnection = {
      kind: 'remote',
      name: draft.name,
      baseUrl: draft.baseUrl.trim().replace(/\/+$/, ''),
      dataPrefix: DEFAULT_DATA_PREFIX,
      namespaces: [...DEFAULT_NAMESPACES],
      allowInsecureHttp: false,
    };
    const credentials: Credentials = { clientId: draft.clientId, clientSecret: draft.clientSecret };
    const failure = await testConnection(pool, connection, credentials, logger);
    if (failure === undefined) {
      await store.add(connection, credentials);
      void vscode.window.showInformationMessage(`Connection "${connection.name}" added.`);
      await vscode.commands.executeCommand('dataQuery.explorer.focus');
      return;
    }
    if (failure === 'cancelled') return;
    const choice = await vscode.window.showErrorMessage(`Could not connect to "${connection.name}": ${failure}`, EDIT);
    if (choice !== EDIT) return;
  }
}

/** Resolves undefined on success, 'cancelled', or a message saying what went wrong. */
async function testConnection(
  pool: ClientPool,
  connection: RemoteConnection,
  credentials: Credentials,
  logger: Logger,
): Promise<string | undefined> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Testing the connection "${connection.name}"…`, cancellable: true },
    async (_progress, token) => {
      const abort = new AbortController();
      const listener = token.onCancellationRequested(() => abort.abort());
      const { client, dispose } = pool.transient(connection, credentials);
      try {
        await client.testConnection({ signal: abort.signal });
        logger.info(`Connection "${connection.name}" answered with a token.`);
        return undefined;
      } catch (err) {
        if (isCancelled(err) || abort.signal.aborted) return 'cancelled';
        const message = isDqError(err) ? [err.message, err.hint].filter(Boolean).join(' ') : err instanceof Error ? err.message : String(err);
        logger.warn(`Testing "${connection.name}" failed: ${isDqError(err) ? err.describe() : message}`);
        return message;
      } finally {
        listener.dispose();
        await dispose();
      }
    },
  );
}

async function askForConnection(draft: Draft, taken: string[]): Promise<Draft | undefined> {
  const total = 4;
  const name = await vscode.window.showInputBox({
    title: `Add Connection (1/${total})`,
    prompt: 'A name for the connection, shown in the explorer',
    value: draft.name,
    ignoreFocusOut: true,
    validateInput: (v) => (!v.trim() ? 'Enter a name.' : taken.includes(v.trim()) ? `A connection named "${v.trim()}" already exists.` : undefined),
  });
  if (name === undefined) return undefined;
  const baseUrl = await vscode.window.showInputBox({
    title: `Add Connection (2/${total})`,
    prompt: 'The gateway base URL, e.g. https://api.example.com',
    value: draft.baseUrl,
    ignoreFocusOut: true,
    validateInput: (v) => checkBaseUrl(v),
  });
  if (baseUrl === undefined) return undefined;
  const clientId = await vscode.window.showInputBox({
    title: `Add Connection (3/${total})`,
    prompt: 'Client ID (kept in VS Code secret storage)',
    value: draft.clientId,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter the client ID.'),
  });
  if (clientId === undefined) return undefined;
  const clientSecret = await vscode.window.showInputBox({
    title: `Add Connection (4/${total})`,
    prompt: 'Client secret (kept in VS Code secret storage)',
    value: draft.clientSecret,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v ? undefined : 'Enter the client secret.'),
  });
  if (clientSecret === undefined) return undefined;
  return { name: name.trim(), baseUrl: baseUrl.trim(), clientId: clientId.trim(), clientSecret };
}

async function setCredentials(store: ConnectionStore, node?: ExplorerNode): Promise<void> {
  const remote = store.list().filter((c) => c.kind === 'remote');
  let name = node && node.kind === 'connection' ? node.connection.name : undefined;
  if (!name) {
    name = await vscode.window.showQuickPick(remote.map((c) => c.name), { title: 'Set Credentials for…' });
    if (!name) return;
  }
  const clientId = await vscode.window.showInputBox({ title: `Credentials for "${name}" (1/2)`, prompt: 'Client ID', ignoreFocusOut: true });
  if (!clientId) return;
  const clientSecret = await vscode.window.showInputBox({ title: `Credentials for "${name}" (2/2)`, prompt: 'Client secret', password: true, ignoreFocusOut: true });
  if (!clientSecret) return;
  await store.setCredentials(name, { clientId: clientId.trim(), clientSecret });
  await vscode.commands.executeCommand('dataQuery.refresh');
}

async function removeConnection(store: ConnectionStore, node?: ExplorerNode): Promise<void> {
  if (!node || node.kind !== 'connection') return;
  const name = node.connection.name;
  const remove = 'Remove';
  const choice = await vscode.window.showWarningMessage(`Remove the connection "${name}" and its stored credentials?`, { modal: true }, remove);
  if (choice === remove) await store.remove(name);
}

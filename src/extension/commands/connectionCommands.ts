// Commands that add, test and remove connections. Add Connection asks for name, base URL,
// client ID and secret (and, for plain http to another machine, an explicit opt-in), tests
// them with a token request, and saves only on success; on failure it shows the reason and
// offers to edit what was typed. Given an argument object it asks nothing and the same
// test decides: it resolves once saved, or rejects saying what to change.

import * as vscode from 'vscode';
import { DqError, isCancelled, isDqError } from '../../client/errors';
import type { Credentials } from '../../client/types';
import { isRecord } from '../../core/isRecord';
import type { Logger } from '../../core/logger';
import type { ClientPool } from '../connections/clientPool';
import {
  checkBaseUrl,
  insecureHost,
  parseConnections,
  SAMPLE_CONNECTION_NAME,
  uniqueName,
  type Connection,
  type RemoteConnection,
} from '../connections/connectionConfig';
import type { ConnectionStore } from '../connections/connectionStore';
import type { ExplorerNode } from '../explorer/explorerNodes';

/** The argument object of `dataQuery.addConnection`. */
export interface AddConnectionArgs {
  name: string;
  baseUrl: string;
  dataPrefix?: string;
  namespaces?: string[];
  scope?: string;
  clientId: string;
  clientSecret: string;
  /** permits plain http:// to a host other than this machine */
  allowInsecureHttp?: true;
}

/** Shows a connection in the explorer, selected and expanded. */
export type RevealConnection = (connection: Connection) => Thenable<void>;

const EDIT = 'Edit and Retry';
const ALLOW_HTTP = 'Allow Plain HTTP';

export function registerConnectionCommands(
  store: ConnectionStore,
  pool: ClientPool,
  logger: Logger,
  reveal: RevealConnection,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('dataQuery.addConnection', (args?: unknown) =>
      args === undefined ? addConnection(store, pool, logger, reveal) : addConnectionFrom(args, store, pool, logger),
    ),
    vscode.commands.registerCommand('dataQuery.trySampleData', () => trySampleData(store, reveal)),
    vscode.commands.registerCommand('dataQuery.setCredentials', (node?: ExplorerNode) => setCredentials(store, node)),
    vscode.commands.registerCommand('dataQuery.removeConnection', (node?: ExplorerNode) => removeConnection(store, node)),
  ];
}

async function trySampleData(store: ConnectionStore, reveal: RevealConnection): Promise<void> {
  let sample = store.list().find((c) => c.kind === 'sample');
  if (!sample) {
    sample = { kind: 'sample', name: uniqueName(SAMPLE_CONNECTION_NAME, store.list().map((c) => c.name)) };
    await store.add(sample);
  }
  await reveal(sample);
}

async function addConnection(store: ConnectionStore, pool: ClientPool, logger: Logger, reveal: RevealConnection): Promise<void> {
  let draft: AddConnectionArgs = { name: '', baseUrl: 'https://', clientId: '', clientSecret: '' };
  for (;;) {
    const typed = await askForConnection(draft, store.list().map((c) => c.name));
    if (!typed) return;
    draft = typed;
    const { connection, credentials } = checkArguments(draft, []);
    const failure = await testConnection(pool, connection, credentials, logger);
    if (!failure) {
      await store.add(connection, credentials);
      void vscode.window.showInformationMessage(`Connection "${connection.name}" added.`);
      await reveal(connection);
      return;
    }
    if (failure.kind === 'cancelled') return;
    const choice = await vscode.window.showErrorMessage(failure.message, EDIT);
    if (choice !== EDIT) return;
  }
}

/** The programmatic form: resolves with the connection's name once it is tested and saved. */
async function addConnectionFrom(args: unknown, store: ConnectionStore, pool: ClientPool, logger: Logger): Promise<{ name: string }> {
  const { connection, credentials } = checkArguments(args, store.list().map((c) => c.name));
  const failure = await testConnection(pool, connection, credentials, logger);
  if (failure) throw failure;
  await store.add(connection, credentials);
  return { name: connection.name };
}

function checkArguments(args: unknown, taken: string[]): { connection: RemoteConnection; credentials: Credentials } {
  const usage = (message: string): DqError => new DqError('usage', `dataQuery.addConnection: ${message}`);
  if (!isRecord(args)) throw usage('pass an object {name, baseUrl, clientId, clientSecret, dataPrefix?, namespaces?, scope?, allowInsecureHttp?}.');
  const { name, baseUrl, dataPrefix, namespaces, scope, clientId, clientSecret, allowInsecureHttp } = args;
  if (typeof name !== 'string' || !name.trim()) throw usage('pass a "name" for the connection.');
  if (taken.includes(name.trim())) throw usage(`a connection named "${name.trim()}" already exists; pass another name.`);
  if (typeof baseUrl !== 'string') throw usage('pass a "baseUrl" such as https://api.example.com.');
  const urlProblem = checkBaseUrl(baseUrl);
  if (urlProblem) throw usage(urlProblem);
  if (typeof clientId !== 'string' || !clientId.trim() || typeof clientSecret !== 'string' || !clientSecret) {
    throw usage('pass the "clientId" and "clientSecret" of the connection.');
  }
  const host = insecureHost(baseUrl);
  if (host && allowInsecureHttp !== true) {
    throw new DqError(
      'insecure',
      `Refusing plain http to ${host}: the client secret, tokens and data would travel unencrypted. Use https://, or pass allowInsecureHttp: true if you trust every network in between.`,
    );
  }
  const [connection] = parseConnections([{ name, baseUrl, dataPrefix, namespaces, scope, allowInsecureHttp }]).connections;
  return { connection: connection as RemoteConnection, credentials: { clientId: clientId.trim(), clientSecret } };
}

/** Resolves undefined on success, or an error whose message says what went wrong (kind `cancelled` when stopped). */
async function testConnection(
  pool: ClientPool,
  connection: RemoteConnection,
  credentials: Credentials,
  logger: Logger,
): Promise<DqError | undefined> {
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
        if (isCancelled(err) || abort.signal.aborted) return new DqError('cancelled', `Adding the connection "${connection.name}" was cancelled.`);
        const message = isDqError(err) ? [err.message, err.hint].filter(Boolean).join(' ') : err instanceof Error ? err.message : String(err);
        logger.warn(`Testing "${connection.name}" failed: ${isDqError(err) ? err.describe() : message}`);
        return new DqError(isDqError(err) ? err.kind : 'network', `Could not connect to "${connection.name}": ${message}`);
      } finally {
        listener.dispose();
        await dispose();
      }
    },
  );
}

async function askForConnection(draft: AddConnectionArgs, taken: string[]): Promise<AddConnectionArgs | undefined> {
  const total = 4;
  const name = await vscode.window.showInputBox({
    title: `Add Connection (1/${total})`,
    prompt: 'A name for the connection, shown in the explorer',
    value: draft.name,
    ignoreFocusOut: true,
    validateInput: (v) => (!v.trim() ? 'Enter a name.' : taken.includes(v.trim()) ? `A connection named "${v.trim()}" already exists.` : undefined),
  });
  if (name === undefined) return undefined;
  let baseUrl = draft.baseUrl;
  let allowInsecureHttp: true | undefined;
  for (;;) {
    const typed = await vscode.window.showInputBox({
      title: `Add Connection (2/${total})`,
      prompt: 'The gateway base URL, e.g. https://api.example.com',
      value: baseUrl,
      ignoreFocusOut: true,
      validateInput: (v) => checkBaseUrl(v),
    });
    if (typed === undefined) return undefined;
    baseUrl = typed.trim();
    const host = insecureHost(baseUrl);
    if (!host) break;
    if (await allowPlainHttp(host)) {
      allowInsecureHttp = true;
      break;
    }
  }
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
  return { name: name.trim(), baseUrl, clientId: clientId.trim(), clientSecret, allowInsecureHttp };
}

async function allowPlainHttp(host: string): Promise<boolean> {
  const choice = await vscode.window.showWarningMessage(
    'Allow plain http for this connection?',
    {
      modal: true,
      detail: `${host} would receive the client secret, tokens and data unencrypted. Use https:// unless you trust every network in between.`,
    },
    ALLOW_HTTP,
  );
  return choice === ALLOW_HTTP;
}

async function setCredentials(store: ConnectionStore, node?: ExplorerNode): Promise<void> {
  const remote = store.list().filter((c) => c.kind === 'remote');
  let name = node && node.kind === 'connection' ? node.connection.name : undefined;
  if (!name && remote.length === 0) {
    const add = 'Add Connection';
    const choice = await vscode.window.showInformationMessage('There is no connection to a service yet; "Sample data" needs no credentials.', add);
    if (choice === add) await vscode.commands.executeCommand('dataQuery.addConnection');
    return;
  }
  if (!name) {
    name = await vscode.window.showQuickPick(remote.map((c) => c.name), { title: 'Set Credentials for…' });
    if (!name) return;
  }
  const clientId = await vscode.window.showInputBox({ title: `Credentials for "${name}" (1/2)`, prompt: 'Client ID', ignoreFocusOut: true });
  if (!clientId) return;
  const clientSecret = await vscode.window.showInputBox({ title: `Credentials for "${name}" (2/2)`, prompt: 'Client secret', password: true, ignoreFocusOut: true });
  if (!clientSecret) return;
  await store.setCredentials(name, { clientId: clientId.trim(), clientSecret });
}

async function removeConnection(store: ConnectionStore, node?: ExplorerNode): Promise<void> {
  if (!node || node.kind !== 'connection') return;
  const name = node.connection.name;
  const remove = 'Remove';
  const choice = await vscode.window.showWarningMessage(`Remove the connection "${name}" and its stored credentials?`, { modal: true }, remove);
  if (choice === remove) await store.remove(name);
}

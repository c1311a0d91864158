// Commands that add, edit, test and remove connections and set their credentials. Add
// Connection asks for name, base URL, client ID and secret (and, for plain http to another
// machine, an explicit opt-in), then offers the data prefix, namespaces and scope (Enter
// keeps the defaults), tests them with a token request, and saves only on success; on
// failure it shows the reason and offers to edit what was typed. Set Credentials tests the
// same way before storing, and for credentials saved for another base URL asks first whether
// to use them with the new one. Given an argument object, Add Connection and Set Credentials
// ask nothing and the same test decides: they resolve once saved, or reject saying what to
// change. Edit Connection in Settings opens the user settings.json at the connection's entry.

import * as vscode from 'vscode';
import { DqError, isCancelled, isDqError } from '../../client/errors';
import type { Credentials } from '../../client/types';
import { isRecord } from '../../core/isRecord';
import type { Logger } from '../../core/logger';
import type { ClientPool } from './clientPool';
import {
  checkBaseUrl,
  DEFAULT_DATA_PREFIX,
  DEFAULT_NAMESPACES,
  insecureHost,
  parseConnections,
  SAMPLE_CONNECTION_NAME,
  uniqueName,
  type Connection,
  type RemoteConnection,
} from './connectionConfig';
import { serviceAddress } from './credentialBinding';
import { CONNECTIONS_SETTING, type ConnectionStore } from './connectionStore';
import type { ExplorerNode } from '../explorer/explorerNodes';
import { Commands, EditorCommands } from '../ui/ids';

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
const ENTER_NEW = 'Enter New Credentials';
const ADD_STEPS = 5;

export function registerConnectionCommands(
  store: ConnectionStore,
  pool: ClientPool,
  logger: Logger,
  reveal: RevealConnection,
): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(Commands.addConnection, (args?: unknown) =>
      args === undefined ? addConnection(store, pool, logger, reveal) : addConnectionFrom(args, store, pool, logger),
    ),
    vscode.commands.registerCommand(Commands.trySampleData, () => trySampleData(store, reveal)),
    vscode.commands.registerCommand(Commands.setCredentials, (arg?: unknown) =>
      isArgumentObject(arg) ? setCredentialsFrom(arg, store, pool, logger) : setCredentials(store, pool, logger, arg as ExplorerNode | undefined),
    ),
    vscode.commands.registerCommand(Commands.editConnection, (arg?: unknown) => editConnection(store, arg)),
    vscode.commands.registerCommand(Commands.removeConnection, (node?: ExplorerNode) => removeConnection(store, node)),
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
    const failure = await testConnection(pool, connection, credentials, logger, 'Adding the connection');
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
  const failure = await testConnection(pool, connection, credentials, logger, 'Adding the connection');
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
  if (typeof clientId !== 'string' || !clientId.trim() || typeof clientSecret !== 'string' || !clientSecret.trim()) {
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

/**
 * Asks the connection's service for a token with `credentials`. Resolves undefined on
 * success, or an error whose message says what went wrong (kind `cancelled` when stopped).
 * `doing` names the work in the cancelled message, e.g. "Adding the connection".
 */
async function testConnection(
  pool: ClientPool,
  connection: RemoteConnection,
  credentials: Credentials,
  logger: Logger,
  doing: string,
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
        if (isCancelled(err) || abort.signal.aborted) return new DqError('cancelled', `${doing} "${connection.name}" was cancelled.`);
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
  const total = ADD_STEPS;
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
  const credentials = await askForCredentials(draft, (step) => `Add Connection (${step + 2}/${total})`);
  if (!credentials) return undefined;
  const options = await askForOptions(name.trim(), draft, `Add Connection (5/${total})`);
  if (!options) return undefined;
  return { name: name.trim(), baseUrl, ...credentials, ...options, allowInsecureHttp };
}

/** Client ID and secret, in two boxes that refuse blank values; the ID comes back trimmed. */
async function askForCredentials(draft: Credentials, title: (step: 1 | 2) => string): Promise<Credentials | undefined> {
  const clientId = await vscode.window.showInputBox({
    title: title(1),
    prompt: 'Client ID (kept in VS Code secret storage)',
    value: draft.clientId,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter the client ID.'),
  });
  if (clientId === undefined) return undefined;
  const clientSecret = await vscode.window.showInputBox({
    title: title(2),
    prompt: 'Client secret (kept in VS Code secret storage)',
    value: draft.clientSecret,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Enter the client secret.'),
  });
  if (clientSecret === undefined) return undefined;
  return { clientId: clientId.trim(), clientSecret };
}

type ConnectionOptions = Pick<AddConnectionArgs, 'dataPrefix' | 'namespaces' | 'scope'>;

interface OptionItem extends vscode.QuickPickItem {
  option: 'done' | 'dataPrefix' | 'namespaces' | 'scope';
}

/**
 * The optional last step: data prefix, namespaces and scope, each showing its value or the
 * default. Enter on the first item keeps them; picking another edits it and comes back.
 */
async function askForOptions(name: string, draft: ConnectionOptions, title: string): Promise<ConnectionOptions | undefined> {
  const options: ConnectionOptions = { dataPrefix: draft.dataPrefix, namespaces: draft.namespaces, scope: draft.scope };
  for (;;) {
    const items: OptionItem[] = [
      { option: 'done', label: `$(check) Add "${name}"`, description: 'test the connection and save it' },
      { option: 'dataPrefix', label: 'Data prefix', description: options.dataPrefix ?? `${DEFAULT_DATA_PREFIX} (default)`, detail: 'Path under the base URL where the data query service is mounted' },
      { option: 'namespaces', label: 'Namespaces', description: options.namespaces?.join(', ') ?? `${DEFAULT_NAMESPACES.join(', ')} (default)`, detail: 'The namespaces to show (the service cannot list them)' },
      { option: 'scope', label: 'Scope', description: options.scope ?? "the credentials' default account", detail: 'Account identifier sent with every listing and query' },
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title,
      placeHolder: 'Press Enter to add the connection, or pick a setting to change it first',
      ignoreFocusOut: true,
    });
    if (!picked) return undefined;
    if (picked.option === 'done') return options;
    const typed = await vscode.window.showInputBox({ ...optionBox(picked.option, options), title: `${title}: ${picked.label}`, ignoreFocusOut: true });
    if (typed === undefined) continue;
    if (picked.option === 'dataPrefix') options.dataPrefix = dataPrefixOf(typed);
    if (picked.option === 'namespaces') options.namespaces = namespacesOf(typed);
    if (picked.option === 'scope') options.scope = typed.trim() || undefined;
  }
}

function optionBox(option: Exclude<OptionItem['option'], 'done'>, options: ConnectionOptions): vscode.InputBoxOptions {
  if (option === 'dataPrefix') {
    return {
      prompt: `Path under the base URL where the data query service is mounted; empty for the default, ${DEFAULT_DATA_PREFIX}`,
      value: options.dataPrefix ?? DEFAULT_DATA_PREFIX,
      validateInput: checkDataPrefix,
    };
  }
  if (option === 'namespaces') {
    return {
      prompt: `Namespaces to show, separated by commas; empty for the default ones (${DEFAULT_NAMESPACES.join(', ')})`,
      value: (options.namespaces ?? DEFAULT_NAMESPACES).join(', '),
    };
  }
  return { prompt: "Account identifier sent as scope; empty for the credentials' default account", value: options.scope ?? '' };
}

/** A data prefix typed by a person; returns a message when it cannot be used. */
function checkDataPrefix(value: string): string | undefined {
  const prefix = value.trim().replace(/^\/+|\/+$/g, '');
  if (prefix === '' || /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) return undefined;
  return 'Use letters, digits and . _ ~ - separated by /, e.g. dap.';
}

function dataPrefixOf(typed: string): string | undefined {
  const prefix = typed.trim().replace(/^\/+|\/+$/g, '');
  return prefix === '' || prefix === DEFAULT_DATA_PREFIX ? undefined : prefix;
}

function namespacesOf(typed: string): string[] | undefined {
  const namespaces = [...new Set(typed.split(',').map((n) => n.trim()).filter((n) => n !== ''))];
  return namespaces.length === 0 || namespaces.join(',') === DEFAULT_NAMESPACES.join(',') ? undefined : namespaces;
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

/** An argument object, as opposed to a tree node (which has a `kind`) or nothing. */
function isArgumentObject(arg: unknown): arg is Record<string, unknown> {
  return isRecord(arg) && !('kind' in arg);
}

/**
 * The remote connection a command is for: a tree node's, or one picked from the list. Says
 * so, offering Add Connection, when there is none.
 */
async function pickRemoteConnection(store: ConnectionStore, node: ExplorerNode | undefined, title: string): Promise<RemoteConnection | undefined> {
  const remote = store.list().filter((c): c is RemoteConnection => c.kind === 'remote');
  if (node?.kind === 'connection') {
    // the node may predate a settings change: use the connection as the settings have it now
    return remote.find((c) => c.name === node.connection.name);
  }
  if (remote.length === 0) {
    const add = 'Add Connection';
    const choice = await vscode.window.showInformationMessage('There is no connection to a service yet; "Sample data" needs no credentials.', add);
    if (choice === add) await vscode.commands.executeCommand(Commands.addConnection);
    return undefined;
  }
  const name = await vscode.window.showQuickPick(remote.map((c) => c.name), { title });
  return remote.find((c) => c.name === name);
}

async function setCredentials(store: ConnectionStore, pool: ClientPool, logger: Logger, node?: ExplorerNode): Promise<void> {
  const connection = await pickRemoteConnection(store, node, 'Set Credentials for…');
  if (!connection) return;
  const found = await store.credentialsState(connection);
  if (found.state === 'elsewhere') {
    const use = await askToUseSavedCredentials(connection, found.savedFor);
    if (use === undefined) return;
    if (use && (await useSavedCredentials(store, pool, logger, connection, found.credentials))) return;
  }
  let draft: Credentials = { clientId: '', clientSecret: '' };
  for (;;) {
    const typed = await askForCredentials(draft, (step) => `Credentials for "${connection.name}" (${step}/2)`);
    if (!typed) return;
    draft = typed;
    const failure = await testConnection(pool, connection, typed, logger, 'Setting the credentials of');
    if (!failure) {
      await store.setCredentials(connection, typed);
      void vscode.window.showInformationMessage(`Credentials of "${connection.name}" saved.`);
      return;
    }
    if (failure.kind === 'cancelled') return;
    const choice = await vscode.window.showErrorMessage(failure.message, EDIT);
    if (choice !== EDIT) return;
  }
}

/** The programmatic form, `{connection, clientId, clientSecret}`: resolves with the connection's name once the credentials are tested and stored. */
async function setCredentialsFrom(args: Record<string, unknown>, store: ConnectionStore, pool: ClientPool, logger: Logger): Promise<{ name: string }> {
  const usage = (message: string): DqError => new DqError('usage', `dataQuery.setCredentials: ${message}`);
  const { connection: name, clientId, clientSecret } = args;
  if (typeof name !== 'string') throw usage('pass an object {connection, clientId, clientSecret}.');
  const connection = store.list().find((c) => c.name === name.trim());
  if (connection?.kind !== 'remote') throw usage(`there is no connection to a service named "${name.trim()}".`);
  if (typeof clientId !== 'string' || !clientId.trim() || typeof clientSecret !== 'string' || !clientSecret.trim()) {
    throw usage('pass the "clientId" and "clientSecret" of the connection.');
  }
  const credentials = { clientId: clientId.trim(), clientSecret };
  const failure = await testConnection(pool, connection, credentials, logger, 'Setting the credentials of');
  if (failure) throw failure;
  await store.setCredentials(connection, credentials);
  return { name: connection.name };
}

/** Whether to send credentials saved for `savedFor` to the connection's new base URL: true, false (enter new ones) or undefined (cancelled). */
async function askToUseSavedCredentials(connection: RemoteConnection, savedFor: string): Promise<boolean | undefined> {
  const now = serviceAddress(connection.baseUrl);
  const [from, to] = distinctNames(savedFor, now);
  const use = `Use Them with ${to}`;
  const choice = await vscode.window.showWarningMessage(
    `The client ID and secret of "${connection.name}" were saved for ${from}, and the connection now points at ${to}.`,
    {
      modal: true,
      detail: `Saved for: ${savedFor}\nNow: ${now}\n\nUsing them sends the client secret to ${to}: do so only if it is the same service as ${from}. Otherwise enter the credentials for ${to}.`,
    },
    use,
    ENTER_NEW,
  );
  return choice === use ? true : choice === ENTER_NEW ? false : undefined;
}

/** Tests the saved credentials at the new base URL and, when they work there, binds them to it. Resolves false to go on to new ones. */
async function useSavedCredentials(store: ConnectionStore, pool: ClientPool, logger: Logger, connection: RemoteConnection, credentials: Credentials): Promise<boolean> {
  const failure = await testConnection(pool, connection, credentials, logger, 'Setting the credentials of');
  if (!failure) {
    await store.setCredentials(connection, credentials);
    void vscode.window.showInformationMessage(`The saved credentials of "${connection.name}" are now used with ${serviceAddress(connection.baseUrl)}.`);
    return true;
  }
  if (failure.kind === 'cancelled') return true;
  const choice = await vscode.window.showErrorMessage(failure.message, ENTER_NEW);
  return choice !== ENTER_NEW;
}

/** The two hosts, or the two whole addresses when only their paths differ. */
function distinctNames(a: string, b: string): [string, string] {
  const host = (address: string): string => {
    try {
      return new URL(address).host;
    } catch {
      return address;
    }
  };
  return host(a) === host(b) ? [a, b] : [host(a), host(b)];
}

/** Opens the user settings.json at `dataQuery.connections`, with the entry of the connection (a node's, `{connection}`'s or a picked one) selected. */
async function editConnection(store: ConnectionStore, arg?: unknown): Promise<void> {
  let name: string | undefined;
  if (isArgumentObject(arg)) {
    if (typeof arg.connection !== 'string') throw new DqError('usage', 'dataQuery.editConnection: pass an object {connection}.');
    name = arg.connection.trim();
  } else if ((arg as ExplorerNode | undefined)?.kind === 'connection') {
    name = (arg as Extract<ExplorerNode, { kind: 'connection' }>).connection.name;
  } else {
    const names = store.list().map((c) => c.name);
    name = names.length === 0 ? undefined : await vscode.window.showQuickPick(names, { title: 'Edit Connection in Settings' });
    if (names.length > 0 && name === undefined) return;
  }
  await vscode.commands.executeCommand(EditorCommands.openSettingsJson, { revealSetting: { key: CONNECTIONS_SETTING } });
  const editor = vscode.window.activeTextEditor;
  if (editor && name !== undefined) selectEntry(editor, name);
}

/** Selects the name of a connection's entry in the open settings.json, after the `dataQuery.connections` key. */
function selectEntry(editor: vscode.TextEditor, name: string): void {
  const text = editor.document.getText();
  const setting = text.indexOf('"dataQuery.connections"');
  if (setting < 0) return;
  const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`"name"\\s*:\\s*(${escape(JSON.stringify(name))})`, 'g');
  pattern.lastIndex = setting;
  const match = pattern.exec(text);
  if (!match) return;
  const start = editor.document.positionAt(match.index + match[0].length - match[1].length);
  const end = editor.document.positionAt(match.index + match[0].length);
  editor.selection = new vscode.Selection(start, end);
  editor.revealRange(new vscode.Range(start, end), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

async function removeConnection(store: ConnectionStore, node?: ExplorerNode): Promise<void> {
  if (!node || node.kind !== 'connection') return;
  const name = node.connection.name;
  const remove = 'Remove';
  const choice = await vscode.window.showWarningMessage(`Remove the connection "${name}" and its stored credentials?`, { modal: true }, remove);
  if (choice === remove) await store.remove(name);
}

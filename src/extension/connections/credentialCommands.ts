// Set Credentials: tests the client ID and secret with a token request before storing them
// (Edit and Retry on failure), and for credentials saved for another base URL asks first
// whether to use them with the new one. Given an argument object it asks nothing and the same
// test decides. Also what the two boxes that ask for credentials say and refuse, which Add
// Connection shares.

import * as vscode from 'vscode';
import type { Credentials } from '../../client/types';
import type { Logger } from '../../core/logger';
import type { ExplorerNode } from '../explorer/explorerNodes';
import { Commands } from '../ui/ids';
import { askAboutFailure } from '../ui/presentError';
import type { ClientPool } from './clientPool';
import { checkCredentialArgs } from './connectionArgs';
import type { RemoteConnection } from './connectionConfig';
import type { ConnectionStore } from './connectionStore';
import { testConnection } from './connectionTest';
import { serviceAddress } from './credentialBinding';

export const EDIT = 'Edit and Retry';
const ENTER_NEW = 'Enter New Credentials';

export async function setCredentials(store: ConnectionStore, pool: ClientPool, logger: Logger, node?: ExplorerNode): Promise<void> {
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
    const choice = await askAboutFailure(failure, EDIT);
    if (choice !== EDIT) return;
  }
}

/** The programmatic form, `{connection, clientId, clientSecret}`: resolves with the connection's name once the credentials are tested and stored. */
export async function setCredentialsFrom(args: Record<string, unknown>, store: ConnectionStore, pool: ClientPool, logger: Logger): Promise<{ name: string }> {
  const { connection, credentials } = checkCredentialArgs(args, store.list());
  const failure = await testConnection(pool, connection, credentials, logger, 'Setting the credentials of');
  if (failure) throw failure;
  await store.setCredentials(connection, credentials);
  return { name: connection.name };
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

/** The box that asks for a client ID; blank is refused. */
export const CLIENT_ID_BOX = {
  prompt: 'Client ID (kept in VS Code secret storage)',
  validate: (value: string): string | undefined => (value.trim() ? undefined : 'Enter the client ID.'),
};

/** The box that asks for a client secret, hiding what is typed; blank is refused. */
export const CLIENT_SECRET_BOX = {
  prompt: 'Client secret (kept in VS Code secret storage)',
  password: true,
  validate: (value: string): string | undefined => (value.trim() ? undefined : 'Enter the client secret.'),
};

/** Client ID and secret, in two boxes that refuse blank values; the ID comes back trimmed. */
async function askForCredentials(draft: Credentials, title: (step: 1 | 2) => string): Promise<Credentials | undefined> {
  const clientId = await vscode.window.showInputBox({
    title: title(1),
    prompt: CLIENT_ID_BOX.prompt,
    value: draft.clientId,
    ignoreFocusOut: true,
    validateInput: CLIENT_ID_BOX.validate,
  });
  if (clientId === undefined) return undefined;
  const clientSecret = await vscode.window.showInputBox({
    title: title(2),
    prompt: CLIENT_SECRET_BOX.prompt,
    value: draft.clientSecret,
    password: CLIENT_SECRET_BOX.password,
    ignoreFocusOut: true,
    validateInput: CLIENT_SECRET_BOX.validate,
  });
  if (clientSecret === undefined) return undefined;
  return { clientId: clientId.trim(), clientSecret };
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
  const choice = await askAboutFailure(failure, ENTER_NEW);
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

// The connection commands: Add Connection (the wizard, or an argument object that asks
// nothing and resolves once the connection is tested and saved), Try Sample Data, Set
// Credentials, Edit Connection in Settings (the user settings.json at the connection's entry)
// and Remove Connection.

import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { ExplorerNode } from '../explorer/explorerNodes';
import { registerCommand, registerArgsOrInteractiveCommand } from '../ui/commands';
import { Commands, EditorCommands } from '../ui/ids';
import { addConnection, type RevealConnection } from './addConnectionWizard';
import type { ClientPool } from './clientPool';
import { checkAddConnectionArgs, connectionNameArg } from './connectionArgs';
import { SAMPLE_CONNECTION_NAME, uniqueName } from './connectionConfig';
import { CONNECTIONS_SETTING, type ConnectionStore } from './connectionStore';
import { testConnection } from './connectionTest';
import { setCredentials, setCredentialsFrom } from './credentialCommands';

export function registerConnectionCommands(store: ConnectionStore, pool: ClientPool, logger: Logger, reveal: RevealConnection): vscode.Disposable[] {
  return [
    registerArgsOrInteractiveCommand(Commands.addConnection, 'Add Connection', logger, {
      fromArgs: (args) => addConnectionFrom(args, store, pool, logger),
      interactive: () => addConnection(store, pool, logger, reveal),
    }),
    registerCommand(Commands.trySampleData, () => trySampleData(store, reveal)),
    registerArgsOrInteractiveCommand(Commands.setCredentials, 'Set Credentials', logger, {
      fromArgs: (args) => setCredentialsFrom(args, store, pool, logger),
      interactive: (node) => setCredentials(store, pool, logger, node as ExplorerNode | undefined),
    }),
    registerArgsOrInteractiveCommand(Commands.editConnection, 'Edit Connection in Settings', logger, {
      fromArgs: (args) => editConnection(connectionNameArg(args)),
      interactive: async (node) => {
        const chosen = await connectionToEdit(store, node as ExplorerNode | undefined);
        if (chosen !== 'cancelled') await editConnection(chosen.name);
      },
    }),
    registerCommand(Commands.removeConnection, (node?: ExplorerNode) => removeConnection(store, node)),
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

/** The programmatic form: resolves with the connection's name once it is tested and saved. */
async function addConnectionFrom(args: unknown, store: ConnectionStore, pool: ClientPool, logger: Logger): Promise<{ name: string }> {
  const { connection, credentials } = checkAddConnectionArgs(args, store.list().map((c) => c.name));
  const failure = await testConnection(pool, connection, credentials, logger, 'Adding the connection');
  if (failure) throw failure;
  await store.add(connection, credentials);
  return { name: connection.name };
}

/** The connection Edit Connection is for: a node's, or one picked from the list (none when there is none); `cancelled` when the pick was. */
async function connectionToEdit(store: ConnectionStore, node: ExplorerNode | undefined): Promise<{ name?: string } | 'cancelled'> {
  if (node?.kind === 'connection') return { name: node.connection.name };
  const names = store.list().map((c) => c.name);
  if (names.length === 0) return {};
  const name = await vscode.window.showQuickPick(names, { title: 'Edit Connection in Settings' });
  return name === undefined ? 'cancelled' : { name };
}

/** Opens the user settings.json at `dataQuery.connections`, with the entry of the connection named selected. */
async function editConnection(name: string | undefined): Promise<void> {
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

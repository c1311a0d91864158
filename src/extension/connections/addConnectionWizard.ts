// The Add Connection wizard: name, base URL (and, for plain http to another machine, an
// explicit opt-in), client ID and secret, then the data prefix, namespaces and scope (Enter
// keeps the defaults). It tests them with a token request and saves only on success; on
// failure it shows the reason and offers to edit what was typed.

import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { askAboutFailure } from '../ui/presentError';
import type { ClientPool } from './clientPool';
import { checkAddConnectionArgs, type AddConnectionArgs } from './connectionArgs';
import { checkBaseUrl, DEFAULT_DATA_PREFIX, DEFAULT_NAMESPACES, insecureHost, type Connection } from './connectionConfig';
import type { ConnectionStore } from './connectionStore';
import { testConnection } from './connectionTest';
import { askForCredentials, EDIT } from './credentialCommands';

/** Shows a connection in the explorer, selected and expanded. */
export type RevealConnection = (connection: Connection) => Thenable<void>;

const ALLOW_HTTP = 'Allow Plain HTTP';
const ADD_STEPS = 5;

/** Asks, tests and saves; on a failed test shows why and offers to edit what was typed. */
export async function addConnection(store: ConnectionStore, pool: ClientPool, logger: Logger, reveal: RevealConnection): Promise<void> {
  let draft: AddConnectionArgs = { name: '', baseUrl: 'https://', clientId: '', clientSecret: '' };
  for (;;) {
    const typed = await askForConnection(draft, store.list().map((c) => c.name));
    if (!typed) return;
    draft = typed;
    const { connection, credentials } = checkAddConnectionArgs(draft, []);
    const failure = await testConnection(pool, connection, credentials, logger, 'Adding the connection');
    if (!failure) {
      await store.add(connection, credentials);
      void vscode.window.showInformationMessage(`Connection "${connection.name}" added.`);
      await reveal(connection);
      return;
    }
    if (failure.kind === 'cancelled') return;
    const choice = await askAboutFailure(failure, EDIT);
    if (choice !== EDIT) return;
  }
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

// The Add Connection wizard: name, base URL (and, for plain http to another machine, an
// explicit opt-in), client ID and secret, then the data prefix, namespaces and scope (Enter
// keeps the defaults), one step after another with Back on each after the first and Escape
// cancelling it all. It tests them with a token request and saves only on success; on failure
// it shows the reason and offers to edit what was typed.

import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { runPickSteps, type PickStep } from '../ui/multiStepPick';
import { askAboutFailure } from '../ui/presentError';
import type { ClientPool } from './clientPool';
import { checkAddConnectionArgs, type AddConnectionArgs } from './connectionArgs';
import { checkBaseUrl, DEFAULT_DATA_PREFIX, DEFAULT_NAMESPACES, insecureHost, type Connection } from './connectionConfig';
import type { ConnectionStore } from './connectionStore';
import { testConnection } from './connectionTest';
import { CLIENT_ID_BOX, CLIENT_SECRET_BOX, EDIT } from './credentialCommands';

/** Shows a connection in the explorer, selected and expanded. */
export type RevealConnection = (connection: Connection) => Thenable<void>;

const ALLOW_HTTP = 'Allow Plain HTTP';

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
  // apart from the steps' state, which going Back winds back to an earlier step's: edits of
  // the last step stay when the person goes Back and forward again
  const options: ConnectionOptions = { dataPrefix: draft.dataPrefix, namespaces: draft.namespaces, scope: draft.scope };
  const typed = await runPickSteps<AddConnectionArgs>('Add Connection', { ...draft, allowInsecureHttp: undefined }, [
    {
      prompt: 'A name for the connection, shown in the explorer',
      value: (s) => s.name,
      validate: (v) => (!v.trim() ? 'Enter a name.' : taken.includes(v.trim()) ? `A connection named "${v.trim()}" already exists.` : undefined),
      apply: (s, v) => (s.name = v.trim()),
    },
    {
      prompt: 'The gateway base URL, e.g. https://api.example.com',
      value: (s) => s.baseUrl,
      validate: (v) => checkBaseUrl(v),
      // plain http to another machine needs an explicit opt-in; declined, the URL is asked again
      confirm: async (v) => {
        const host = insecureHost(v.trim());
        return !host || allowPlainHttp(host);
      },
      apply: (s, v) => {
        s.baseUrl = v.trim();
        s.allowInsecureHttp = insecureHost(s.baseUrl) ? true : undefined;
      },
    },
    { ...CLIENT_ID_BOX, value: (s) => s.clientId, apply: (s, v) => (s.clientId = v.trim()) },
    { ...CLIENT_SECRET_BOX, value: (s) => s.clientSecret, apply: (s, v) => (s.clientSecret = v) },
    optionsStep(options),
  ]);
  if (!typed) return undefined;
  const { name, baseUrl, clientId, clientSecret, allowInsecureHttp } = typed;
  return { name, baseUrl, clientId, clientSecret, ...options, allowInsecureHttp };
}

type ConnectionOptions = Pick<AddConnectionArgs, 'dataPrefix' | 'namespaces' | 'scope'>;

/**
 * The optional last step: data prefix, namespaces and scope, each showing its value or the
 * default. Enter on the first item keeps them; picking another edits it and comes back.
 */
function optionsStep(options: ConnectionOptions): PickStep<AddConnectionArgs> {
  return {
    placeholder: 'Press Enter to add the connection, or pick a setting to change it first',
    items: async (state) => [
      { label: `$(check) Add "${state.name}"`, description: 'test the connection and save it', isDefault: true, apply: () => undefined },
      {
        label: 'Data prefix',
        description: options.dataPrefix ?? `${DEFAULT_DATA_PREFIX} (default)`,
        detail: 'Path under the base URL where the data query service is mounted',
        edit: {
          prompt: `Path under the base URL where the data query service is mounted; empty for the default, ${DEFAULT_DATA_PREFIX}`,
          value: () => options.dataPrefix ?? DEFAULT_DATA_PREFIX,
          validate: checkDataPrefix,
          apply: (_s, v) => (options.dataPrefix = dataPrefixOf(v)),
        },
      },
      {
        label: 'Namespaces',
        description: options.namespaces?.join(', ') ?? `${DEFAULT_NAMESPACES.join(', ')} (default)`,
        detail: 'The namespaces to show (the service cannot list them)',
        edit: {
          prompt: `Namespaces to show, separated by commas; empty for the default ones (${DEFAULT_NAMESPACES.join(', ')})`,
          value: () => (options.namespaces ?? DEFAULT_NAMESPACES).join(', '),
          apply: (_s, v) => (options.namespaces = namespacesOf(v)),
        },
      },
      {
        label: 'Scope',
        description: options.scope ?? "the credentials' default account",
        detail: 'Account identifier sent with every listing and query',
        edit: {
          prompt: "Account identifier sent as scope; empty for the credentials' default account",
          value: () => options.scope ?? '',
          apply: (_s, v) => (options.scope = v.trim() || undefined),
        },
      },
    ],
  };
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

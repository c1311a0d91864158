// Reads and writes connections: their settings in `dataQuery.connections` (user settings)
// and their credentials in SecretStorage, keyed by connection name and bound to the base URL
// they were saved for (credentialVault.ts). Nothing else ever sees a secret: not settings,
// not logs, not files. Credentials of connections no longer in the settings are deleted on
// activation and whenever the setting changes.

import * as vscode from 'vscode';
import type { Credentials } from '../../client/types';
import { isRecord } from '../../core/isRecord';
import type { Logger } from '../../core/logger';
import { inspectSetting, settingAsIs, updateSetting } from '../ui/vscodeSettings';
import { missingCredentials } from './clientPool';
import { parseConnections, toSettingEntry, type Connection, type ParsedConnections, type RemoteConnection } from './connectionConfig';
import { credentialsSavedElsewhere } from './credentialBinding';
import { CredentialVault, type CredentialsState } from './credentialVault';

export const CONNECTIONS_SETTING = 'dataQuery.connections';
const KEY = CONNECTIONS_SETTING;

export class ConnectionStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the connection list in settings changes (from here or by hand). */
  readonly onDidChangeConnections = this.changed.event;
  private readonly credentialsChanged = new vscode.EventEmitter<string>();
  /** Fires with a connection's name when its credentials are stored anew. */
  readonly onDidChangeCredentials = this.credentialsChanged.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly vault: CredentialVault;

  constructor(
    secrets: vscode.SecretStorage,
    private readonly logger: Logger,
    globalState: vscode.Memento,
  ) {
    this.vault = new CredentialVault(secrets, globalState, logger);
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(KEY)) this.changed.fire();
      }),
    );
    // Secrets of entries gone from the settings go when the extension starts, not on every
    // edit: a name being retyped, or an entry cut and pasted back, keeps its secret meanwhile
    // (it is bound to its base URL, so no other service can get it).
    void this.prune();
  }

  read(): ParsedConnections {
    return parseConnections(settingAsIs(KEY));
  }

  list(): Connection[] {
    return this.read().connections;
  }

  /** Saves credentials first, then the setting, so a listed connection always has them. */
  async add(connection: Connection, credentials?: Credentials): Promise<void> {
    const write = async (): Promise<void> => {
      const raw = inspectSetting<unknown[]>(KEY)?.globalValue;
      const entries = Array.isArray(raw) ? [...raw] : [];
      entries.push(toSettingEntry(connection));
      await updateSetting(KEY, entries, vscode.ConfigurationTarget.Global);
    };
    if (credentials && connection.kind === 'remote') {
      await this.vault.save(connection, credentials, write);
      this.credentialsChanged.fire(connection.name);
    } else {
      await write();
    }
    this.logger.info(`Added connection "${connection.name}".`);
  }

  async remove(name: string): Promise<void> {
    const raw = inspectSetting<unknown[]>(KEY)?.globalValue;
    const entries = Array.isArray(raw) ? raw : [];
    const kept = entries.filter((e) => !(typeof e === 'object' && e !== null && (e as { name?: unknown }).name === name));
    await updateSetting(KEY, kept, vscode.ConfigurationTarget.Global);
    await this.vault.delete(name);
    this.logger.info(`Removed connection "${name}" and its stored credentials.`);
  }

  /**
   * The credentials to send for a connection in the settings: none when it has none, or when
   * they were saved for another base URL than the one it has now.
   */
  async getCredentials(name: string): Promise<Credentials | undefined> {
    const connection = this.remote(name);
    return connection ? this.vault.credentials(connection) : undefined;
  }

  /** The credentials to send to `connection`'s service; rejects saying why there are none. */
  async credentialsFor(connection: RemoteConnection): Promise<Credentials> {
    const found = await this.vault.stateOf(connection);
    if (found.state === 'bound') return found.credentials;
    if (found.state === 'missing') throw missingCredentials(connection.name);
    this.vault.reportElsewhere(connection, found.savedFor);
    throw credentialsSavedElsewhere(connection.name, found.savedFor, connection.baseUrl);
  }

  /** What is stored for a connection, and whether it was saved for the base URL it has now. */
  credentialsState(connection: RemoteConnection): Promise<CredentialsState> {
    return this.vault.stateOf(connection);
  }

  /** Stores credentials for a connection, bound to its current base URL. */
  async setCredentials(connection: RemoteConnection, credentials: Credentials): Promise<void> {
    await this.vault.save(connection, credentials);
    this.credentialsChanged.fire(connection.name);
  }

  dispose(): void {
    this.changed.dispose();
    this.credentialsChanged.dispose();
    for (const s of this.subscriptions) s.dispose();
  }

  private remote(name: string): RemoteConnection | undefined {
    const connection = this.list().find((c) => c.name === name);
    return connection?.kind === 'remote' ? connection : undefined;
  }

  /** Deletes credentials whose connection left the settings (an entry skipped for a mistake still counts as there). */
  private async prune(): Promise<void> {
    const settings = (): { names: Set<string>; connections: RemoteConnection[] } => {
      const raw = settingAsIs(KEY);
      const names = (Array.isArray(raw) ? raw : []).map((entry) => (isRecord(entry) && typeof entry.name === 'string' ? entry.name.trim() : ''));
      return {
        names: new Set(names.filter((name) => name !== '')),
        connections: this.list().filter((c): c is RemoteConnection => c.kind === 'remote'),
      };
    };
    try {
      await this.vault.prune(settings);
    } catch (err) {
      this.logger.warn(`Could not clean up stored credentials: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

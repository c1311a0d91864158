// Reads and writes connections: their settings in `dataQuery.connections` (user settings)
// and their credentials in SecretStorage, keyed by connection name. Nothing else ever sees
// a secret: not settings, not logs, not files.

import * as vscode from 'vscode';
import type { Credentials } from '../../client/types';
import type { Logger } from '../../core/logger';
import { parseConnections, toSettingEntry, type Connection, type ParsedConnections } from './connectionConfig';

const SECTION = 'dataQuery';
const KEY = 'connections';

function secretKey(name: string): string {
  return `dataQuery.credentials/${name}`;
}

export class ConnectionStore implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the connection list in settings changes (from here or by hand). */
  readonly onDidChangeConnections = this.changed.event;
  private readonly credentialsChanged = new vscode.EventEmitter<string>();
  /** Fires with a connection's name when its credentials are stored anew. */
  readonly onDidChangeCredentials = this.credentialsChanged.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly logger: Logger,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.${KEY}`)) this.changed.fire();
      }),
    );
  }

  read(): ParsedConnections {
    return parseConnections(vscode.workspace.getConfiguration(SECTION).get<unknown>(KEY));
  }

  list(): Connection[] {
    return this.read().connections;
  }

  /** Saves credentials first, then the setting, so a listed connection always has them. */
  async add(connection: Connection, credentials?: Credentials): Promise<void> {
    if (credentials) await this.setCredentials(connection.name, credentials);
    const raw = vscode.workspace.getConfiguration(SECTION).inspect<unknown[]>(KEY)?.globalValue;
    const entries = Array.isArray(raw) ? [...raw] : [];
    entries.push(toSettingEntry(connection));
    await vscode.workspace.getConfiguration(SECTION).update(KEY, entries, vscode.ConfigurationTarget.Global);
    this.logger.info(`Added connection "${connection.name}".`);
  }

  async remove(name: string): Promise<void> {
    const raw = vscode.workspace.getConfiguration(SECTION).inspect<unknown[]>(KEY)?.globalValue;
    const entries = Array.isArray(raw) ? raw : [];
    const kept = entries.filter((e) => !(typeof e === 'object' && e !== null && (e as { name?: unknown }).name === name));
    await vscode.workspace.getConfiguration(SECTION).update(KEY, kept, vscode.ConfigurationTarget.Global);
    await this.secrets.delete(secretKey(name));
    this.logger.info(`Removed connection "${name}" and its stored credentials.`);
  }

  async getCredentials(name: string): Promise<Credentials | undefined> {
    const stored = await this.secrets.get(secretKey(name));
    if (!stored) return undefined;
    try {
      const value = JSON.parse(stored) as Partial<Credentials>;
      if (typeof value.clientId === 'string' && typeof value.clientSecret === 'string') {
        return { clientId: value.clientId, clientSecret: value.clientSecret };
      }
    } catch {
      // fall through: treated as missing
    }
    this.logger.warn(`Stored credentials for "${name}" could not be read; enter them again.`);
    return undefined;
  }

  async setCredentials(name: string, credentials: Credentials): Promise<void> {
    await this.secrets.store(secretKey(name), JSON.stringify({ clientId: credentials.clientId, clientSecret: credentials.clientSecret }));
    this.credentialsChanged.fire(name);
  }

  dispose(): void {
    this.changed.dispose();
    this.credentialsChanged.dispose();
    for (const s of this.subscriptions) s.dispose();
  }
}

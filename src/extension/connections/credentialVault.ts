// The credentials of remote connections in SecretStorage, each bound to the service it was
// saved for (see credentialBinding.ts), and the list of names that have some, kept in global
// state because SecretStorage cannot be listed: so secrets of connections gone from the
// settings can be found and deleted. Writes, reads that upgrade old records, and clean-ups
// run one at a time, so a clean-up never sees a connection half added. Pure: SecretStorage
// and global state are handed in.

import type { Credentials } from '../../client/types';
import type { Logger } from '../../core/logger';
import type { RemoteConnection } from './connectionConfig';
import { credentialsSavedElsewhere, parseStoredCredentials, sameService, serviceAddress, storedCredentialsText } from './credentialBinding';
import { SerialQueue } from '../../core/serialQueue';

/** The parts of VS Code's SecretStorage used here. */
export interface SecretsLike {
  get(key: string): Thenable<string | undefined>;
  store(key: string, value: string): Thenable<void>;
  delete(key: string): Thenable<void>;
}

/** The parts of VS Code's global state (a Memento) used here. */
export interface StateLike {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

/** What is stored for a connection, compared with where it points now. */
export type CredentialsState =
  | { state: 'missing' }
  | { state: 'bound'; credentials: Credentials }
  /** saved for another service: `credentials` is only for testing them at the new URL once the person agreed */
  | { state: 'elsewhere'; savedFor: string; credentials: Credentials };

const NAMES_KEY = 'dataQuery.credentialNames';

export function secretKey(name: string): string {
  return `dataQuery.credentials/${name}`;
}

export class CredentialVault {
  private readonly queue = new SerialQueue();
  /** mismatches already logged, so a redraw of the tree does not repeat them */
  private readonly warned = new Set<string>();

  constructor(
    private readonly secrets: SecretsLike,
    private readonly state: StateLike,
    private readonly logger: Logger,
  ) {}

  /** Names that have stored credentials. */
  names(): string[] {
    const value = this.state.get<unknown>(NAMES_KEY);
    return Array.isArray(value) ? value.filter((n): n is string => typeof n === 'string') : [];
  }

  /**
   * What is stored for `connection`. A record saved before binding is taken as bound to the
   * connection's current base URL, and saved again that way.
   */
  stateOf(connection: RemoteConnection): Promise<CredentialsState> {
    return this.exclusive(() => this.read(connection));
  }

  /** The credentials to send to `connection`'s service: none when missing or saved for another one. */
  async credentials(connection: RemoteConnection): Promise<Credentials | undefined> {
    const found = await this.stateOf(connection);
    if (found.state === 'bound') return found.credentials;
    if (found.state === 'elsewhere') this.reportElsewhere(connection, found.savedFor);
    return undefined;
  }

  /**
   * Stores credentials bound to `connection`'s base URL. `thenWrite` (the settings entry of a
   * new connection) runs after the secret is stored and before the name is listed, so a
   * listed name always has its entry in the settings.
   */
  save(connection: RemoteConnection, credentials: Credentials, thenWrite?: () => Thenable<void>): Promise<void> {
    return this.exclusive(async () => {
      await this.secrets.store(secretKey(connection.name), storedCredentialsText(credentials, connection.baseUrl));
      await thenWrite?.();
      await this.list(connection.name);
    });
  }

  /** Deletes a connection's credentials. */
  delete(name: string): Promise<void> {
    return this.exclusive(async () => {
      await this.secrets.delete(secretKey(name));
      await this.unlist(name);
    });
  }

  /**
   * Deletes the credentials of every listed name the settings lack, and lists the names of
   * connections whose credentials were stored before there was a list. The settings are read
   * once earlier writes are done, so an entry being added counts. Returns the names whose
   * credentials were deleted.
   */
  prune(settings: () => { names: ReadonlySet<string>; connections: readonly RemoteConnection[] }): Promise<string[]> {
    return this.exclusive(async () => {
      const { names, connections } = settings();
      const gone = this.names().filter((name) => !names.has(name));
      for (const name of gone) {
        await this.secrets.delete(secretKey(name));
        await this.unlist(name);
        this.logger.info(`Deleted the stored credentials of "${name}": it is no longer in dataQuery.connections.`);
      }
      const listed = new Set(this.names());
      for (const connection of connections) {
        if (!listed.has(connection.name)) await this.read(connection);
      }
      return gone;
    });
  }

  private async read(connection: RemoteConnection): Promise<CredentialsState> {
    const text = await this.secrets.get(secretKey(connection.name));
    if (text === undefined) return { state: 'missing' };
    const stored = parseStoredCredentials(text);
    if (!stored) {
      this.logger.warn(`Stored credentials for "${connection.name}" could not be read; enter them again.`);
      return { state: 'missing' };
    }
    const credentials = { clientId: stored.clientId, clientSecret: stored.clientSecret };
    if (stored.boundTo === undefined) {
      await this.secrets.store(secretKey(connection.name), storedCredentialsText(credentials, connection.baseUrl));
      await this.list(connection.name);
      this.logger.info(`The stored credentials of "${connection.name}" are now bound to ${serviceAddress(connection.baseUrl)}.`);
      return { state: 'bound', credentials };
    }
    await this.list(connection.name);
    if (sameService(stored.boundTo, connection.baseUrl)) return { state: 'bound', credentials };
    return { state: 'elsewhere', savedFor: stored.boundTo, credentials };
  }

  /** Logs, once per pair of addresses, that credentials saved for `savedFor` were kept from `connection`. */
  reportElsewhere(connection: RemoteConnection, savedFor: string): void {
    const key = JSON.stringify([connection.name, savedFor, serviceAddress(connection.baseUrl)]);
    if (this.warned.has(key)) return;
    this.warned.add(key);
    const err = credentialsSavedElsewhere(connection.name, savedFor, connection.baseUrl);
    this.logger.warn(`${err.message} ${err.hint ?? ''}`.trim());
  }

  private async list(name: string): Promise<void> {
    const names = this.names();
    if (!names.includes(name)) await this.state.update(NAMES_KEY, [...names, name]);
  }

  private async unlist(name: string): Promise<void> {
    const names = this.names();
    if (names.includes(name)) await this.state.update(NAMES_KEY, names.filter((n) => n !== name));
  }

  /** Runs `work` after every earlier call has settled. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.queue.run(work);
  }
}

// One client per connection, built on first use and closed when settings change or the
// extension stops. Sample connections point at the in-process emulator with its generated
// credentials; remote ones read credentials from SecretStorage at the moment of use.

import type { Dispatcher } from 'undici';
import { DqError } from '../../client/errors';
import type { Credentials, DataQueryClientOptions, ProxyOptions } from '../../client/types';
import type { Logger } from '../../core/logger';
import type { Connection } from './connectionConfig';
import type { SampleEmulatorHost } from './sampleEmulatorHost';

/** What the explorer and the commands use of the shared client. */
export interface ExplorerClient {
  testConnection(options?: { signal?: AbortSignal }): Promise<void>;
  listTables(namespace: string, options?: { signal?: AbortSignal; priority?: 'user' | 'background' }): Promise<string[]>;
  close(): Promise<void>;
}

export interface ClientPoolDeps {
  createClient(options: DataQueryClientOptions): ExplorerClient;
  createDispatcher(proxy?: ProxyOptions): Dispatcher;
  /** VS Code's http.proxy, http.noProxy and http.proxyStrictSSL, read when a client is built */
  proxySettings(): ProxyOptions;
  credentials(name: string): Promise<Credentials | undefined>;
  sample: SampleEmulatorHost;
  logger: Logger;
  userAgent: string;
}

export interface ConnectionSession {
  client: ExplorerClient;
  namespaces: string[];
}

/** The fields of a remote connection that a client needs, before it is saved. */
export interface RemoteTarget {
  baseUrl: string;
  dataPrefix: string;
  scope?: string;
  allowInsecureHttp: boolean;
}

interface Entry {
  session: Promise<ConnectionSession>;
  dispatcher?: Dispatcher;
}

export class ClientPool {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly deps: ClientPoolDeps) {}

  /** The client and namespaces of a connection; starts the emulator for a sample one. */
  session(connection: Connection): Promise<ConnectionSession> {
    const existing = this.entries.get(connection.name);
    if (existing) return existing.session;
    const entry: Entry = { session: Promise.resolve(undefined as never) };
    entry.session = this.open(connection, entry).catch((err: unknown) => {
      this.entries.delete(connection.name);
      throw err;
    });
    this.entries.set(connection.name, entry);
    return entry.session;
  }

  /** A client for a connection that is not saved yet (Add Connection tests it first). */
  transient(target: RemoteTarget, credentials: Credentials): { client: ExplorerClient; dispose(): Promise<void> } {
    const dispatcher = this.deps.createDispatcher(this.deps.proxySettings());
    const client = this.build(target, async () => credentials, dispatcher);
    return { client, dispose: () => this.closeQuietly(client, dispatcher) };
  }

  /** Closes every client; the next use builds fresh ones (after settings changed). */
  async reset(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(
      entries.map(async (e) => {
        try {
          const { client } = await e.session;
          await this.closeQuietly(client, e.dispatcher);
        } catch {
          // never opened
        }
      }),
    );
  }

  dispose(): Promise<void> {
    return this.reset();
  }

  private async open(connection: Connection, entry: Entry): Promise<ConnectionSession> {
    if (connection.kind === 'sample') {
      const emulator = await this.deps.sample.get();
      // the emulator listens on the loopback interface: never send that through a proxy
      entry.dispatcher = this.deps.createDispatcher({ useEnvironment: false });
      const client = this.build(
        { baseUrl: emulator.baseUrl, dataPrefix: emulator.dataPrefix, allowInsecureHttp: false },
        async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }),
        entry.dispatcher,
      );
      return { client, namespaces: [...emulator.namespaces] };
    }
    entry.dispatcher = this.deps.createDispatcher(this.deps.proxySettings());
    const name = connection.name;
    const client = this.build(connection, async () => {
      const credentials = await this.deps.credentials(name);
      if (!credentials) {
        throw new DqError('auth', `No client ID and secret are stored for the connection "${name}".`, {
          hint: 'Use "Set Credentials" on the connection to enter them.',
        });
      }
      return credentials;
    }, entry.dispatcher);
    return { client, namespaces: [...connection.namespaces] };
  }

  private build(target: RemoteTarget, credentials: () => Promise<Credentials>, dispatcher: Dispatcher): ExplorerClient {
    return this.deps.createClient({
      baseUrl: target.baseUrl,
      dataPrefix: target.dataPrefix,
      scope: target.scope,
      allowInsecureHttp: target.allowInsecureHttp,
      credentials,
      dispatcher,
      logger: this.deps.logger,
      userAgent: this.deps.userAgent,
    });
  }

  private async closeQuietly(client: ExplorerClient, dispatcher?: Dispatcher): Promise<void> {
    try {
      await client.close();
    } catch (err) {
      this.deps.logger.debug(`Closing a client failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    try {
      await dispatcher?.close();
    } catch {
      // already closed by the client
    }
  }
}

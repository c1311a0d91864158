// One client per connection, built on first use and closed when that connection's settings
// (or, for a remote one, the proxy settings) change, or when the extension stops. Sample
// connections point at the in-process emulator with its generated credentials; remote ones
// read credentials from SecretStorage at the moment of use, and only those saved for the
// base URL the client was built for.

import type { Dispatcher } from 'undici';
import { DqError } from '../../client/errors';
import type { DataQueryClient } from '../../client/dataQueryClient';
import type { Operation } from '../../core/contract';
import type { Credentials, DataQueryClientOptions, ProxyOptions } from '../../client/types';
import type { Logger } from '../../core/logger';
import type { Connection, RemoteConnection } from './connectionConfig';
import type { SampleEmulatorHost } from './sampleEmulatorHost';

/** The shared client of a connection, as the explorer, the jobs and the preview use it. */
export type ExplorerClient = DataQueryClient;

export function missingCredentials(connection: string): DqError {
  return new DqError('auth', `No client ID and secret are stored for the connection "${connection}".`, {
    hint: 'Use "Set Credentials" on the connection to enter them.',
  });
}

export interface ClientPoolDeps {
  createClient(options: DataQueryClientOptions): ExplorerClient;
  createDispatcher(proxy?: ProxyOptions): Dispatcher;
  /** VS Code's http.proxy, http.noProxy and http.proxyStrictSSL, read when a client is built */
  proxySettings(): ProxyOptions;
  /** per-operation limits from settings (arranged higher limits), read when a client is built */
  rateLimits(): Partial<Record<Operation, number>>;
  /** the credentials saved for this connection's base URL; undefined (or a rejection saying why) when there are none */
  credentials(connection: RemoteConnection): Promise<Credentials | undefined>;
  sample: SampleEmulatorHost;
  logger: Logger;
  userAgent: string;
  /** where the rate budget shared with every process on this machine is kept; absent: this window counts alone */
  sharedBudgetFolder?: string;
}

export interface ConnectionSession {
  client: ExplorerClient;
  namespaces: string[];
  /** aborted when the session closes: pass it to calls, so that their end reads as cancelled */
  signal: AbortSignal;
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
  /** the settings the session was built from; another value means it must be rebuilt */
  key: string;
  closing: AbortController;
}

export class ClientPool {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly deps: ClientPoolDeps) {}

  /** The client and namespaces of a connection; starts the emulator for a sample one. */
  session(connection: Connection): Promise<ConnectionSession> {
    const key = this.key(connection);
    const existing = this.entries.get(connection.name);
    if (existing?.key === key) return existing.session;
    if (existing) void this.close(connection.name, existing);
    const entry: Entry = { session: Promise.resolve(undefined as never), key, closing: new AbortController() };
    entry.session = this.open(connection, entry).catch((err: unknown) => {
      if (this.entries.get(connection.name) === entry) this.entries.delete(connection.name);
      throw err;
    });
    this.entries.set(connection.name, entry);
    return entry.session;
  }

  /**
   * Closes the sessions of connections that are gone or whose settings changed, and keeps
   * the others with their running work. Returns the names of the closed ones.
   */
  retain(connections: Connection[]): string[] {
    const keys = new Map(connections.map((c) => [c.name, this.key(c)]));
    const closed = [...this.entries].filter(([name, entry]) => keys.get(name) !== entry.key);
    for (const [name, entry] of closed) void this.close(name, entry);
    return closed.map(([name]) => name);
  }

  /** Closes one connection's session (its credentials changed); the next use builds a fresh one. */
  forget(name: string): void {
    const entry = this.entries.get(name);
    if (entry) void this.close(name, entry);
  }

  /** A client for a connection that is not saved yet (Add Connection tests it first). */
  transient(target: RemoteTarget, credentials: Credentials): { client: ExplorerClient; dispose(): Promise<void> } {
    const dispatcher = this.deps.createDispatcher(this.deps.proxySettings());
    const client = this.build(target, async () => credentials, dispatcher);
    return { client, dispose: () => this.closeQuietly(client, dispatcher) };
  }

  /** Closes every client. */
  async dispose(): Promise<void> {
    await Promise.all([...this.entries].map(([name, entry]) => this.close(name, entry)));
  }

  /** Cancels the session's work, then closes its client; the next use builds a fresh one. */
  private async close(name: string, entry: Entry): Promise<void> {
    if (this.entries.get(name) === entry) this.entries.delete(name);
    entry.closing.abort();
    try {
      const { client } = await entry.session;
      await this.closeQuietly(client, entry.dispatcher);
    } catch {
      // never opened
    }
  }

  /** What a session depends on: the connection's settings and, for a remote one, the proxy's. */
  private key(connection: Connection): string {
    const limits = this.deps.rateLimits();
    return JSON.stringify(connection.kind === 'remote' ? [connection, limits, this.deps.proxySettings()] : [connection, limits]);
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
      return { client, namespaces: [...emulator.namespaces], signal: entry.closing.signal };
    }
    entry.dispatcher = this.deps.createDispatcher(this.deps.proxySettings());
    const remote: RemoteConnection = connection;
    const client = this.build(remote, async () => {
      const credentials = await this.deps.credentials(remote);
      if (!credentials) throw missingCredentials(remote.name);
      return credentials;
    }, entry.dispatcher);
    return { client, namespaces: [...connection.namespaces], signal: entry.closing.signal };
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
      rateLimits: this.deps.rateLimits(),
      sharedBudgetFolder: this.deps.sharedBudgetFolder,
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

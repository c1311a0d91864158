// What the sync host needs to reach a connection's service: its address, the credentials
// (read at the moment of the run: from SecretStorage for a remote connection, the emulator's
// generated ones for the sample data), the proxy and the rate limits. Pure: the settings and
// secrets are handed in, so plain tests can use it.

import type { Operation } from '../../core/contract';
import type { Credentials, ProxyOptions } from '../../client/types';
import type { SyncServiceConfig } from '../../sync/syncProtocol';
import type { Connection, RemoteConnection } from '../connections/connectionConfig';
import type { SampleEmulator } from '../connections/sampleEmulatorHost';

export interface ServiceConfigDeps {
  /** the sample-data emulator running in the extension host, started when needed */
  sample(): Promise<Pick<SampleEmulator, 'baseUrl' | 'dataPrefix' | 'clientId' | 'clientSecret'>>;
  /** the credentials saved for this connection's base URL; rejects saying why there are none */
  credentials(connection: RemoteConnection): Promise<Credentials>;
  proxySettings(): ProxyOptions;
  rateLimits(): Partial<Record<Operation, number>>;
  userAgent: string;
}

export async function syncServiceConfig(connection: Connection, deps: ServiceConfigDeps): Promise<SyncServiceConfig> {
  const common = { rateLimits: deps.rateLimits(), userAgent: deps.userAgent };
  if (connection.kind === 'sample') {
    const emulator = await deps.sample();
    return {
      ...common,
      baseUrl: emulator.baseUrl,
      dataPrefix: emulator.dataPrefix,
      allowInsecureHttp: false,
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
      // the emulator listens on the loopback interface: never through a proxy
      proxy: { useEnvironment: false },
    };
  }
  const credentials = await deps.credentials(connection);
  return {
    ...common,
    baseUrl: connection.baseUrl,
    dataPrefix: connection.dataPrefix,
    scope: connection.scope,
    allowInsecureHttp: connection.allowInsecureHttp,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    proxy: deps.proxySettings(),
  };
}

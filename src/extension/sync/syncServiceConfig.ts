// What the sync host needs to reach a connection's service: its address, the credentials
// (read at the moment of the run: from SecretStorage for a remote connection, the emulator's
// generated ones for the sample data), the proxy and the rate limits. Pure: the settings and
// secrets are handed in, so plain tests can use it. Also the source the meta table records for
// a connection's tables (with the tag of its client ID, read with the credentials at the run),
// which says whose tables the explorer marks (from the connection alone: the explorer reads no
// secrets, so it knows the service, and the credentials only of the runs it saw).

import type { Operation } from '../../core/contract';
import type { Credentials, ProxyOptions } from '../../client/types';
import type { SyncServiceConfig } from '../../sync/syncProtocol';
import { sourceIdentity } from '../../sync/syncSource';
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

/**
 * The source recorded for the sample data: its emulator listens on another port each time it
 * starts, and its data is the same whatever the port, so the address cannot stand for it.
 */
export const SAMPLE_DATA_SOURCE = 'sample data';

/**
 * The source the meta table records for the tables a connection syncs (see
 * src/sync/syncSource.ts): with the client ID, the one a run records; without it (the explorer
 * reads no secrets), the connection's service alone, without client tag.
 */
export function syncSourceOf(connection: Connection, clientId?: string): string {
  if (connection.kind === 'sample') return SAMPLE_DATA_SOURCE;
  return sourceIdentity({ baseUrl: connection.baseUrl, dataPrefix: connection.dataPrefix, scope: connection.scope, clientId });
}

export async function syncServiceConfig(connection: Connection, deps: ServiceConfigDeps): Promise<SyncServiceConfig> {
  const common = { rateLimits: deps.rateLimits(), userAgent: deps.userAgent };
  if (connection.kind === 'sample') {
    const emulator = await deps.sample();
    return {
      ...common,
      baseUrl: emulator.baseUrl,
      dataPrefix: emulator.dataPrefix,
      source: SAMPLE_DATA_SOURCE,
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
    source: syncSourceOf(connection, credentials.clientId),
    allowInsecureHttp: connection.allowInsecureHttp,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    proxy: deps.proxySettings(),
  };
}

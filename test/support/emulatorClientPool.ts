// The extension's ClientPool as tests build it outside VS Code: real clients over real HTTP,
// every connection signing in with the emulator's credentials, no proxy and no sample.

import { DataQueryClient } from '../../src/client/dataQueryClient';
import { createDispatcher } from '../../src/client/dispatcher';
import { nullLogger } from '../../src/core/logger';
import type { RunningEmulator } from '../../src/emulator/emulator';
import { ClientPool } from '../../src/extension/connections/clientPool';
import { SampleEmulatorHost } from '../../src/extension/connections/sampleEmulatorHost';

export function emulatorClientPool(emulator: Pick<RunningEmulator, 'clientId' | 'clientSecret'>, userAgent: string): ClientPool {
  return new ClientPool({
    createClient: (options) => new DataQueryClient(options),
    createDispatcher,
    proxySettings: () => ({}),
    rateLimits: () => ({}),
    credentials: async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }),
    sample: new SampleEmulatorHost(() => Promise.reject(new Error('no sample here')), nullLogger),
    logger: nullLogger,
    userAgent,
  });
}

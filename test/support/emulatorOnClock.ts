// An emulator and a client of it over real HTTP, one fake clock driving both, so a client that
// waited shows it in the clock, not in the test's running time; and the DqError a call fails with.

import { DataQueryClient } from '../../src/client/dataQueryClient';
import type { DqError } from '../../src/client/errors';
import type { DataQueryClientOptions } from '../../src/client/types';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/emulator';
import { dqRejection } from './dqRejection';
import { FakeClock } from './fakeClock';

export interface ClockedEmulator {
  clock: FakeClock;
  emu: RunningEmulator;
  client: DataQueryClient;
}

/** Jobs complete at once unless `emulator` says otherwise; `client` overrides the client's options. */
export async function emulatorOnClock(emulator: EmulatorOptions = {}, client: Partial<DataQueryClientOptions> = {}): Promise<ClockedEmulator> {
  const clock = new FakeClock();
  const emu = await startEmulator({ clock, jobDelayMs: 0, ...emulator });
  return {
    clock,
    emu,
    client: new DataQueryClient({
      baseUrl: emu.baseUrl,
      dataPrefix: emu.dataPrefix,
      credentials: async () => ({ clientId: emu.clientId, clientSecret: emu.clientSecret }),
      clock,
      ...client,
    }),
  };
}

/** The DqError a client call fails with, its time run on the fake clock. */
export function failure(clock: FakeClock, call: Promise<unknown>): Promise<DqError> {
  return dqRejection(clock.run(call), 'the call to fail');
}

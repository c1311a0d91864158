// What an emulator really serves, asked through the shared client: the reference that
// tests compare a view or a command's output against.

import { DataQueryClient } from '../../src/client/dataQueryClient';
import type { RunningEmulator } from '../../src/emulator/emulator';

export async function tablesOf(emulator: RunningEmulator, namespace: string): Promise<string[]> {
  const client = new DataQueryClient({
    baseUrl: emulator.baseUrl,
    dataPrefix: emulator.dataPrefix,
    credentials: async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }),
  });
  try {
    return await client.listTables(namespace);
  } finally {
    await client.close();
  }
}

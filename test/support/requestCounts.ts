// How many calls of one operation an emulator has answered so far.

import type { RunningEmulator } from '../../src/emulator/emulator';
import type { RequestLogEntry } from '../../src/emulator/requestLog';

export function requestsOf(emulator: RunningEmulator, operation: RequestLogEntry['operation']): number {
  return emulator.requestLog.entries().filter((e) => e.operation === operation).length;
}

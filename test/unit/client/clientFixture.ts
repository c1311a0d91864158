// Builds a DataQueryClient wired to a MockGateway and a FakeClock, with a logger that keeps
// every line so tests can check what was logged (and that no secret was).

import { DataQueryClient } from '../../../src/client/dataQueryClient';
import type { DataQueryClientOptions } from '../../../src/client/types';
import type { Logger } from '../../../src/core/logger';
import * as assert from 'node:assert/strict';
import { FakeClock, flushMicrotasks } from '../../support/fakeClock';
import { MockGateway, ORIGIN } from '../../support/mockGateway';

export const CLIENT_ID = 'client-id-123';
export const CLIENT_SECRET = 's3cr3t-value-XYZ';

export class MemoryLogger implements Logger {
  readonly lines: string[] = [];
  trace(m: string): void {
    this.lines.push(`trace ${m}`);
  }
  debug(m: string): void {
    this.lines.push(`debug ${m}`);
  }
  info(m: string): void {
    this.lines.push(`info ${m}`);
  }
  warn(m: string): void {
    this.lines.push(`warn ${m}`);
  }
  error(m: string): void {
    this.lines.push(`error ${m}`);
  }
}

/**
 * The outcome of a call that must settle without waiting (no time passes on the fake clock):
 * fails at once, instead of hanging until the test's timeout, when the call waits instead.
 */
export async function atOnce<T>(promise: Promise<T>): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await flushMicrotasks(20);
  assert.ok(settled, 'the call settled at once instead of waiting');
  return promise;
}

export interface Fixture {
  clock: FakeClock;
  gateway: MockGateway;
  logger: MemoryLogger;
  client: DataQueryClient;
}

export function makeFixture(overrides: Partial<DataQueryClientOptions> = {}, gateway = new MockGateway()): Fixture {
  const clock = new FakeClock();
  const logger = new MemoryLogger();
  const client = new DataQueryClient({
    baseUrl: ORIGIN,
    credentials: async () => ({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }),
    clock,
    logger,
    dispatcher: gateway.agent,
    random: () => 0.5,
    ...overrides,
  });
  return { clock, gateway, logger, client };
}

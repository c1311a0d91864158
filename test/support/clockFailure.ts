// The DqError a client call fails with, its time run on a fake clock.

import * as assert from 'node:assert/strict';
import { isDqError, type DqError } from '../../src/client/errors';
import type { FakeClock } from './fakeClock';

export async function failure(clock: FakeClock, call: Promise<unknown>): Promise<DqError> {
  const err = await clock.run(call).then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  assert.ok(isDqError(err), `expected a DqError, got ${String(err)}`);
  return err;
}

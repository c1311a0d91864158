// What a test expects of a call that must fail as a user would see it fail: with a DqError.

import * as assert from 'node:assert/strict';
import { isDqError, type DqError } from '../../src/client/errors';

/** The DqError `promise` rejects with; fails the test, saying `expected`, if it resolves, or if it rejects with anything else. */
export async function dqRejection(promise: Promise<unknown>, expected = 'a failure'): Promise<DqError> {
  const err = await promise.then(
    () => assert.fail(`expected ${expected}`),
    (e: unknown) => e,
  );
  assert.ok(isDqError(err), `a DqError, not ${String(err)}`);
  return err;
}

// What the engine tests expect of a request the engine refuses: an EngineError of one kind.

import * as assert from 'node:assert/strict';
import { isEngineError } from '../../../src/engine/engineErrors';
import type { EngineErrorKind } from '../../../src/engine/engineProtocol';

/** The message of the EngineError of `kind` that `promise` rejects with; fails the test if it resolves or rejects otherwise. */
export async function rejection(promise: Promise<unknown>, kind: EngineErrorKind): Promise<string> {
  const err = await promise.then(
    () => assert.fail(`expected a ${kind} error`),
    (e: unknown) => e,
  );
  assert.ok(isEngineError(err), String(err));
  assert.equal(err.kind, kind, err.message);
  return err.message;
}

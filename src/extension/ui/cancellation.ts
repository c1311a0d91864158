// A read or export the user (or a newer view) stopped: not a failure to show.

import { isCancelled } from '../../client/errors';
import { isEngineError } from '../../engine/engineErrors';

export function isCancellation(err: unknown): boolean {
  return isCancelled(err) || (isEngineError(err) && err.kind === 'cancelled');
}

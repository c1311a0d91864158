// The client's errors as dq shows them: where a hint speaks of a setting in general terms
// (the client serves the extension too), dq names its own option instead.

import { DqError } from '../client/errors';

const INSECURE_HINT = 'Use https://, or pass --allow-insecure-http (or set DQ_ALLOW_INSECURE_HTTP=1) if you trust the network.';

/** `err` with the hint a dq user can act on; unchanged when the client's hint already fits. */
export function forCommandLine(err: DqError): DqError {
  if (err.kind !== 'insecure') return err;
  const copy = new DqError(err.kind, err.message, {
    status: err.status,
    type: err.type,
    uuid: err.uuid,
    operation: err.operation,
    details: err.details,
    hint: INSECURE_HINT,
    cause: err.cause,
  });
  copy.stack = err.stack;
  return copy;
}

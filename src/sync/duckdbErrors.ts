// Turns what DuckDB reports into DqErrors a person can act on: an interrupt (cancelled), a full
// disk or a folder that cannot be written (io), no memory left (io), a record over the size a
// line may have, and result files DuckDB cannot load (invalidResponse). Each says the database
// stays at its last complete sync.

import { cancelledError, DqError, isDqError } from '../client/errors';
import { recordTooLong } from './jsonEscapes';

/** A run stopped by its abort signal: the table and its meta row stay as they were. */
export function duckdbCancelled(what: string): DqError {
  return cancelledError(`The sync of ${what}`, { after: '; its table and sync state stay as they were.' });
}

/** A DuckDB failure on `what` in the database `file` as a DqError; a DqError passes as it is. */
export function duckdbFailure(err: unknown, file: string, what: string, signal?: AbortSignal): DqError {
  if (isDqError(err)) return err;
  const raw = err instanceof Error ? err.message : String(err);
  const first = raw.split('\n')[0].trim();
  const kind = /^([A-Za-z ]+?) Error:/.exec(first)?.[1]?.toLowerCase() ?? '';
  if (kind === 'interrupt' || signal?.aborted) return duckdbCancelled(what);
  const code = (err as { code?: unknown }).code;
  if (/no space left|disk is full|ENOSPC|could not write|could not truncate|file too large|EFBIG|read-only file system|permission denied/i.test(raw) || typeof code === 'string') {
    return new DqError('io', `Writing ${what} to ${file} failed: ${first}`, {
      hint: 'Free disk space or choose a folder you can write (--to); the database stays at its last complete sync.',
      cause: err,
    });
  }
  if (kind === 'out of memory') {
    return new DqError('io', `DuckDB ran out of memory applying ${what}: ${first}`, { hint: 'Close other programs or sync fewer tables at once.', cause: err });
  }
  const tooLong = /"maximum_object_size" of \d+ bytes exceeded while reading file "(.*?)"/.exec(first);
  if (tooLong) return recordTooLong(what, tooLong[1]);
  if (kind === 'invalid input' || kind === 'conversion' || kind === 'constraint') {
    return new DqError('invalidResponse', `The result files of ${what} could not be loaded: ${first}`, {
      hint: 'Sync the table again; if it fails the same way, report the table and its schema version to the provider.',
      cause: err,
    });
  }
  return new DqError('io', `The sync database ${file} failed on ${what}: ${first}`, {
    hint: 'Check the file and the folder it is in; the database stays at its last complete sync.',
    cause: err,
  });
}

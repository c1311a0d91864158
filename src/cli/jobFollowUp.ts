// What dq says when a command stops (a failure, Ctrl-C) after its job exists on the service:
// the job lives on there (there is no cancel endpoint), so the error line names it and says
// which command gets its files later, and with --json the record and the error are printed on
// stdout as the one object a script reads.

import { DqError, isCancelled } from '../client/errors';
import type { JobRecord } from '../core/contract';
import { redact } from '../core/logger';
import { shownJob } from './dataCommands';

/** A failure of a command whose job exists: `failure` is what went wrong, `job` the last record seen. */
export class JobStageError extends Error {
  constructor(
    readonly failure: unknown,
    readonly job: JobRecord,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
    this.name = 'JobStageError';
  }
}

/** The words dq's cancel line uses, on stderr and in --json. */
export const CANCELLED_TEXT = 'interrupted; nothing was left half-written.';

/**
 * The sentence the error line ends with: how to get the job's files later. Empty when there is
 * nothing to get (the job failed, or the service no longer has it).
 */
export function jobFollowUp(job: JobRecord, failure: unknown): string {
  if (failure instanceof DqError && (failure.kind === 'jobFailed' || failure.kind === 'jobExpired')) return '';
  const id = shellWord(job.id);
  switch (job.status) {
    case 'complete': {
      const until = job.expires_at ? `until ${job.expires_at}` : 'for about 24 hours after it started';
      return `Job ${job.id} is complete on the service and keeps its files ${until}: \`dq download ${id}\` fetches them.`;
    }
    case 'waiting':
    case 'running':
      return `Job ${job.id} keeps running on the service: \`dq download ${id}\` waits for it and fetches its files (\`dq wait ${id}\` only waits).`;
    default:
      return '';
  }
}

/** `{"job", "files": [], "error": {"kind", "type", "uuid", "message"}}`: what --json prints for a job that did not end in files. */
export function failureJson(job: JobRecord, failure: unknown): unknown {
  let error: { kind: string; type: string | null; uuid: string | null; message: string };
  if (isCancelled(failure)) {
    error = { kind: 'cancelled', type: null, uuid: null, message: CANCELLED_TEXT };
  } else if (failure instanceof DqError) {
    const text = failure.hint ? `${sentence(failure.message)} ${failure.hint}` : failure.message;
    error = { kind: failure.kind, type: failure.type ? redact(failure.type) : null, uuid: failure.uuid ? redact(failure.uuid) : null, message: redact(text) };
  } else {
    error = { kind: 'error', type: null, uuid: null, message: redact(failure instanceof Error ? failure.message : String(failure)) };
  }
  return { job: shownJob(job), files: [], error };
}

/** `text` ended with a full stop, unless it already ends a sentence. */
export function sentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?]["')\]`]*$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** A job id as a shell word: as it is when it is plain (a uuid), else in single quotes. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9._:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

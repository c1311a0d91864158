// Every failure the client reports is a DqError with a kind that callers branch on and a
// message a person can act on. Messages never contain tokens, secrets or signed URLs, and
// neither does the `cause` it keeps.

import { redact } from '../core/logger';
import { proxyRefusalStatus } from './proxyRefusal';

export type ErrorKind =
  | 'usage' // the caller's input is invalid; refused before any request
  | 'auth' // missing or rejected credentials or token
  | 'notFound' // namespace, table, job or object does not exist (or has expired)
  | 'validation' // the service rejected the request body or parameters
  | 'snapshotRequired' // `since` is older than retained history
  | 'rateLimited' // 429 and retries exhausted
  | 'account' // AccountNotOnboarded, AccountDisabled, ...
  | 'server' // 5xx or another unexpected answer
  | 'invalidResponse' // the answer could not be understood
  | 'network' // connection refused, reset, DNS, TLS, timeout
  | 'jobFailed' // the job ended in `failed`
  | 'jobExpired' // the job or its objects were deleted (about 24 h after start)
  | 'insecure' // plain http to a non-loopback host without opt-in
  | 'io' // a local file-system failure (disk full, permission denied, read-only): never retried
  | 'cancelled'; // the caller aborted

export interface DqErrorInit {
  status?: number;
  /** the server's error `type` */
  type?: string;
  /** the server's error `uuid`: support asks for it */
  uuid?: string;
  /** the operation that failed, e.g. `listTables` */
  operation?: string;
  /** extra fields from the error body (`id`, `kind`, `location`, `since`, ...) */
  details?: Record<string, unknown>;
  /** what the user can do next */
  hint?: string;
  /** the underlying failure: kept as its name, code and a message without URLs or secrets */
  cause?: unknown;
}

export class DqError extends Error {
  readonly kind: ErrorKind;
  readonly status?: number;
  readonly type?: string;
  readonly uuid?: string;
  readonly operation?: string;
  readonly details?: Record<string, unknown>;
  readonly hint?: string;

  constructor(kind: ErrorKind, message: string, init: DqErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: safeCause(init.cause) });
    this.name = 'DqError';
    this.kind = kind;
    this.status = init.status;
    this.type = init.type;
    this.uuid = init.uuid;
    this.operation = init.operation;
    this.details = init.details;
    this.hint = init.hint;
  }

  /** One line: kind, status, server type and uuid, message (ended with a full stop), and what to do next. */
  describe(): string {
    const facts: string[] = [this.kind];
    if (this.status !== undefined) facts.push(`HTTP ${this.status}`);
    if (this.type) facts.push(this.type);
    if (this.uuid) facts.push(`uuid ${this.uuid}`);
    if (!this.hint) return `${facts.join(', ')}: ${this.message}`;
    // the message ends as a sentence before the hint starts another one
    const stop = /[.!?]["')\]]*$/.test(this.message.trimEnd()) ? '' : '.';
    return `${facts.join(', ')}: ${this.message.trimEnd()}${stop} ${this.hint}`;
  }
}

/** A copy of a raw failure (and its causes) that keeps name, code and a cleaned message. */
export function safeCause(err: unknown, depth = 0): unknown {
  if (err instanceof DqError) return err;
  if (depth >= 4) return undefined;
  const raw = err instanceof Error ? err : new Error(String(err));
  const inner = raw.cause === undefined ? undefined : safeCause(raw.cause, depth + 1);
  const copy = new Error(redact(raw.message), inner === undefined ? undefined : { cause: inner });
  copy.name = raw.name;
  const code = (raw as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  return copy;
}

/**
 * Work its caller or the user stopped: `<what> was cancelled`, and `after` as it goes on
 * (`.`, ` while waiting for x.`, `; nothing was copied.`).
 */
export function cancelledError(what: string, init: DqErrorInit & { after?: string } = {}): DqError {
  const { after = '', ...rest } = init;
  return new DqError('cancelled', `${what} was cancelled${after}`, rest);
}

export function isDqError(err: unknown): err is DqError {
  return err instanceof DqError;
}

/**
 * A `cancelled` DqError, or a raw abort. A proxy refusing a tunnel is not one, although
 * undici names it AbortError too.
 */
export function isCancelled(err: unknown): boolean {
  if (err instanceof DqError) return err.kind === 'cancelled';
  return err instanceof Error && err.name === 'AbortError' && proxyRefusalStatus(err) === undefined;
}

// Turns HTTP answers and transport failures into DqErrors with a kind, the server's type and
// uuid, the body's extra fields, and a hint saying what to do next. Every piece of text
// that came from elsewhere passes through `redact` first, which drops every URL's query.
// A sign-in answer's raw body is never shown: it may hold a token.

import type { Operation, ServiceErrorBody } from '../core/contract';
import { isRecord } from '../core/isRecord';
import { redact } from '../core/logger';
import { cancelledError, DqError, type ErrorKind } from './errors';
import { ProxyRefusalError, proxyRefusalStatus } from './proxyRefusal';
import { errorCode, SLOW_ANSWER_CODE } from './retryPolicy';

export const ACCOUNT_ERROR_TYPES = [
  'AccountNotOnboarded',
  'AccountDisabled',
  'AccountUnderMaintenance',
  'RequestTypeForbidden',
] as const;

const ACCOUNT_HINTS: Record<string, string> = {
  AccountNotOnboarded: 'This account is not set up for the Data Query Service yet; ask your administrator or the provider to onboard it.',
  AccountDisabled: 'This account is disabled for the Data Query Service; ask your administrator or the provider to re-enable it.',
  AccountUnderMaintenance: 'The account is under maintenance; try again later.',
  RequestTypeForbidden: 'These credentials may not make this kind of request; check the API key\'s permissions or the scope used.',
};

/** What a failure is about: a rate-limited operation, the sign-in, or an object download. */
export type CallName = Operation | 'login' | 'download';

const OPERATION_LABELS: Record<CallName, string> = {
  login: 'Sign-in',
  download: 'Downloading a result file',
  listTables: 'Listing tables',
  getSchema: 'Reading the table schema',
  createJob: 'Creating the query job',
  getJob: 'Reading the job status',
  createUrls: 'Requesting download links',
};

export function operationLabel(operation: CallName): string {
  return OPERATION_LABELS[operation] ?? operation;
}

/** Collapses whitespace, redacts, and cuts to `max` characters. */
export function excerpt(text: string, max = 200): string {
  const flat = redact(text.replace(/\s+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** `text` without the byte order mark some gateways put in front of a UTF-8 answer. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The `error` object of a JSON error envelope, or undefined when the body is not one. */
export function parseErrorBody(bodyText: string): ServiceErrorBody | undefined {
  if (!bodyText) return undefined;
  try {
    const parsed: unknown = JSON.parse(withoutBom(bodyText));
    if (isRecord(parsed)) {
      const inner = parsed.error;
      if (isRecord(inner)) return inner as ServiceErrorBody;
      if (typeof inner === 'string') return { message: inner };
      if (typeof parsed.message === 'string') return { message: parsed.message };
    }
  } catch {
    /* not JSON */
  }
  return undefined;
}

/** A non-empty server string, redacted. */
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? redact(v) : undefined;
}

/** Server data with every string in it redacted. */
function redactedValue(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(redactedValue);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactedValue(v)]));
  return value;
}

function detailsOf(body: ServiceErrorBody | undefined): Record<string, unknown> | undefined {
  if (!body) return undefined;
  const details: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === 'type' || k === 'uuid' || k === 'message') continue;
    details[k] = redactedValue(v);
  }
  return Object.keys(details).length > 0 ? details : undefined;
}

function defaultNotFoundKind(operation: CallName): string | undefined {
  switch (operation) {
    case 'listTables':
      return 'namespace';
    case 'getJob':
      return 'job';
    case 'createUrls':
      return 'object';
    default:
      return undefined;
  }
}

/** The `kind` values a not-found body may carry (contract section 4). */
const NOT_FOUND_KINDS: readonly string[] = ['namespace', 'table', 'object', 'job'];

/** A 404 whose body names no kind may come from a path the service does not have at all. */
const WRONG_PATH_HINT = 'If that is right, check the base URL and data prefix of the connection: the data calls may be going to a path the service does not have.';

function notFoundHint(kind: string | undefined, id: string | undefined, bodyNamedKind: boolean): string {
  const what = id ? ` "${id}"` : '';
  const orPath = bodyNamedKind ? '' : ` ${WRONG_PATH_HINT}`;
  switch (kind) {
    case 'namespace':
      return `Check the namespace name${what}; the service has no list of namespaces, so use one your provider names (for example canvas or catalog).${orPath}`;
    case 'table':
      return `Check the table name${what}; list the namespace's tables to see what exists.${orPath}`;
    case 'job':
      return `Check the job id; a job and its files are deleted about 24 hours after it starts, so an older job must be run again.${orPath}`;
    case 'object':
      return `The result file no longer exists (results are deleted about 24 hours after the job started); run the query again.${orPath}`;
    default:
      return 'Check the namespace and table names, and the base URL and data prefix of the connection; list the namespace\'s tables to see what exists.';
  }
}

/** A sign-in answered 404: the base URL does not lead to the gateway's token endpoint. */
const LOGIN_NOT_FOUND_HINT =
  'Check the base URL: it must be the service\'s gateway address alone, without the data prefix or any other path (sign-in goes to the base URL followed by /ids/auth/login).';

/** What a create-job request asked for, so a range refusal can say which end is wrong. */
export interface RequestedRange {
  since?: string;
  until?: string;
}

/** Milliseconds of an ISO date-time, or undefined. */
function timeOf(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Which range refusal a 400 is (contract 2.3 and 4): `snapshot` when `since` is older than
 * the retained history (SnapshotRequired), `range` when the range has no data (OutOfRange:
 * `since` at or after the latest change, or `until` later than it). Without a type, the
 * body's `since` (earliest allowed) and what was asked tell them apart.
 */
function rangeRefusal(type: string | undefined, earliest: string | undefined, requested: RequestedRange | undefined): 'snapshot' | 'range' | undefined {
  if (type && /snapshot/i.test(type)) return 'snapshot';
  if (type && /range/i.test(type)) return 'range';
  if (earliest === undefined) return undefined;
  const asked = timeOf(requested?.since);
  const first = timeOf(earliest);
  if (asked !== undefined && first !== undefined && asked >= first) return 'range';
  return 'snapshot';
}

function snapshotRequiredHint(earliest: string | undefined, latest: string | undefined): string {
  const from = earliest ? ` The earliest allowed since is ${earliest}${latest ? ` (data until ${latest})` : ''}; a since from then on also works, but misses the changes before it.` : '';
  return `The service no longer keeps changes that far back. Run a full snapshot (omit since).${from}`;
}

function outOfRangeHint(earliest: string | undefined, latest: string | undefined, requested: RequestedRange | undefined): string {
  const newest = latest ? ` (the latest committed change is at ${latest})` : '';
  const askedUntil = timeOf(requested?.until);
  const last = timeOf(latest);
  if (askedUntil !== undefined && last !== undefined && askedUntil > last) {
    return `The requested until is later than the latest committed change${newest}; omit until, and it defaults to the latest change.`;
  }
  const askedSince = timeOf(requested?.since);
  const first = timeOf(earliest);
  if (askedSince !== undefined && first !== undefined && askedSince < first) {
    return `The requested since is earlier than the service allows; the earliest allowed since is ${earliest as string}. Use that or a later since, or run a full snapshot (omit since).`;
  }
  const lowest = earliest ? `, no earlier than ${earliest}` : '';
  if (requested && requested.since === undefined) {
    return `The requested range has no data${newest}. Wait for new data (the service refreshes every few hours) and try again, or choose a range within the data the service holds.`;
  }
  return `There is no data after the requested since yet${newest}. Wait for new data (the service refreshes every few hours) and try again, or use an earlier since${lowest}.`;
}

/** What to check when the service calls a request malformed, by what was asked. */
function badRequestHint(operation: CallName): string {
  switch (operation) {
    case 'createJob':
      return 'Check the request\'s format, mode and since/until values.';
    case 'createUrls':
      return 'The object ids come from the job, so they cannot be mistyped; the job\'s results may have expired. Run the query again, and contact support if the links are refused again.';
    case 'getJob':
      return 'Check the job id.';
    default:
      return 'Check the namespace and table names and the scope used.';
  }
}

export interface ResponseFacts {
  status: number;
  bodyText: string;
  operation: CallName;
  /** 401 after a forced token refresh on a data call */
  afterRefresh?: boolean;
  /** calls per minute allowed for the operation, for the 429 hint */
  limit?: number;
  /** number of retries already made */
  retries?: number;
  /** the since/until a create-job request asked for */
  requested?: RequestedRange;
}

/** The DqError for a non-success HTTP answer. */
export function errorFromResponse(facts: ResponseFacts): DqError {
  const { status, bodyText, operation } = facts;
  const body = parseErrorBody(bodyText);
  const type = str(body?.type);
  const uuid = str(body?.uuid);
  const details = detailsOf(body);
  const label = operationLabel(operation);
  const serverMessage = str(body?.message);
  // a sign-in answer that is not an error envelope is not shown: it may hold a token
  const raw = body || operation === 'login' || !bodyText.trim() ? undefined : `the gateway answered: ${excerpt(bodyText)}`;
  const said = serverMessage ?? raw;
  const message = `${label} failed with HTTP ${status}${said ? `: ${said}` : ''}`;
  const init = { status, type, uuid, operation, details };
  const make = (kind: ErrorKind, hint: string): DqError => new DqError(kind, message, { ...init, hint });

  if (type && (ACCOUNT_ERROR_TYPES as readonly string[]).includes(type)) {
    return make('account', ACCOUNT_HINTS[type]);
  }
  if (operation === 'login') {
    if (status === 400) {
      return make('auth', 'The sign-in request was refused as malformed; check the base URL points at the gateway and the client ID and secret have no stray characters.');
    }
    if (status === 401 || status === 403) {
      return make('auth', 'Check the client ID and secret; they may be wrong, revoked or for another region.');
    }
    if (status === 404) return make('notFound', LOGIN_NOT_FOUND_HINT);
  }
  if (status === 401) {
    return make(
      'auth',
      facts.afterRefresh
        ? 'The sign-in worked, but the service did not accept the token it had just issued either. Check that the client ID and secret are the right ones for this service and region, and that they are allowed to use the Data Query Service; then try again.'
        : 'Check the client ID and secret.',
    );
  }
  if (status === 403) {
    return make('auth', 'These credentials are not allowed to do this; check the API key\'s permissions and the scope used.');
  }
  if (status === 404) {
    const named = str(body?.kind);
    const known = named !== undefined && NOT_FOUND_KINDS.includes(named);
    const kind = known ? named : defaultNotFoundKind(operation);
    const id = str(body?.id);
    return new DqError('notFound', message, {
      ...init,
      details: { ...(details ?? {}), ...(kind && !named ? { kind } : {}) },
      hint: notFoundHint(kind, id, known),
    });
  }
  if (status === 400) {
    const earliest = str(body?.since);
    const latest = str(body?.until);
    const refusal = rangeRefusal(type, earliest, facts.requested);
    if (refusal === 'snapshot') return make('snapshotRequired', snapshotRequiredHint(earliest, latest));
    if (refusal === 'range') return make('validation', outOfRangeHint(earliest, latest, facts.requested));
    const loc = body?.location;
    let where = '';
    if (loc && typeof loc === 'object') {
      const l = loc as { line?: unknown; column?: unknown; character?: unknown };
      where = ` The problem is at line ${redact(String(l.line))}, column ${redact(String(l.column))} (character ${redact(String(l.character))}) of the request.`;
    }
    return make('validation', `${badRequestHint(operation)}${where}`);
  }
  if (status === 429) {
    const limit = facts.limit !== undefined ? ` (${facts.limit} calls a minute)` : '';
    return make(
      'rateLimited',
      `The service's rate limit for this operation${limit} is used up, possibly by another client with the same credentials; wait a minute and try again, or ask the provider for higher limits.`,
    );
  }
  if (status === 504) {
    const tries = facts.retries ? ` after ${facts.retries} retries` : '';
    return make('server', `The gateway timed out${tries}; try again in a few minutes.`);
  }
  if (status === 501 || status === 505) {
    return make('server', 'The server at this base URL does not support this request; check that the base URL points at the Data Query Service\'s gateway.');
  }
  if (status === 511) {
    return make('network', 'The network wants you to sign in first (a captive portal or a proxy); sign in to the network, then try again.');
  }
  if (status >= 500) {
    const tries = facts.retries ? ` It failed again after ${facts.retries} retries.` : '';
    return make('server', `The service had a problem.${tries} Try again later; if it persists, contact support${uuid ? ` quoting uuid ${uuid}` : ''}.`);
  }
  return make('server', 'The service gave an unexpected answer; try again, and contact support if it persists.');
}

/** The DqError for a failure before any HTTP status arrived. Only an abort of `signal` is a cancel. */
export function errorFromNetwork(err: unknown, operation: CallName, target: string, signal?: AbortSignal): DqError {
  if (err instanceof DqError) return err;
  if (signal?.aborted) {
    return cancelledError(operationLabel(operation), { operation });
  }
  const refusal = proxyRefusalStatus(err);
  if (refusal !== undefined) return proxyRefused(err, refusal, operation, target);
  const code = errorCode(err);
  const raw = err instanceof Error ? err.message : String(err);
  if (code === SLOW_ANSWER_CODE) {
    return new DqError('network', `${operationLabel(operation)} failed: ${redact(raw)}`, {
      operation,
      hint: 'The service or the network is overloaded; try again later, or check the network and proxy.',
      cause: err,
    });
  }
  const message = `${operationLabel(operation)} could not reach ${target}: ${redact(raw)}${code ? ` (${code})` : ''}`;
  let hint = 'Check the network connection and proxy settings, then try again.';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') hint = 'Check the base URL\'s host name and your DNS or proxy settings.';
  else if (code === 'ECONNREFUSED') hint = 'Nothing answered at that address; check the base URL and port, or the proxy.';
  else if (code && /CERT|SSL|TLS|SELF_SIGNED/i.test(code)) hint = 'The TLS certificate was not accepted; check the URL, or the proxy\'s certificate settings (strict SSL).';
  else if (code && /TIMEOUT/.test(code)) hint = 'The request timed out; try again, or check the network and proxy.';
  return new DqError('network', message, { operation, hint, cause: err });
}

/** A proxy that would not open a tunnel: its status, and what to change. */
function proxyRefused(err: unknown, status: number, operation: CallName, target: string): DqError {
  const proxy = err instanceof ProxyRefusalError ? `the proxy ${err.proxy}` : 'the proxy';
  const message = `${operationLabel(operation)} could not reach ${target}: ${proxy} refused to open a connection to it (the proxy answered HTTP ${status})`;
  const hint =
    status === 407
      ? 'The proxy wants credentials: put user:password@ before the host in the proxy URL, or set them in the proxy settings.'
      : 'Check the proxy settings, or ask whoever runs the proxy whether it lets connections to this host through.';
  return new DqError('network', message, { operation, hint, details: { proxyStatus: status }, cause: err });
}

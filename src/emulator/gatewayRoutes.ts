// The gateway: the token endpoint and the five data endpoints of the contract, with
// authentication, account errors, per-credential rate limits and injected faults applied in
// the order a real gateway applies them.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../core/clock';
import { FORMATS, MODES, TOKEN_PATH, type Format, type Mode, type Operation } from '../core/contract';
import { isoUtc } from '../core/isoTime';
import type { Logger } from '../core/logger';
import { FaultInjector, type AccountErrorType, type RetryAfterForm } from './faults';
import { BodyTooLargeError, header, readBody, sendError, sendJson } from './httpSupport';
import type { JobEngine } from './jobEngine';
import { JsonSyntaxError, parseJsonWithLocations, type ParsedJson } from './jsonBody';
import { objectFileName } from './objectNames';
import type { PresignedUrls } from './presignedUrls';
import type { RateLimits } from './rateLimits';
import type { RequestLogEntry } from './requestLog';
import type { ChangeHistory } from './sampleData/changeHistory';
import type { SampleCatalog } from './sampleData/sampleCatalog';
import { tableSchema } from './sampleData/tableModel';
import type { TokenIssuer } from './tokenIssuer';

export interface ClientAccount {
  secret: string;
  /** every data call of this credential answers this account error */
  accountError?: AccountErrorType;
}

export interface GatewayContext {
  prefix: string;
  clock: Clock;
  logger: Logger;
  clients: Map<string, ClientAccount>;
  tokens: TokenIssuer;
  catalog: SampleCatalog;
  history: ChangeHistory;
  jobs: JobEngine;
  limits: RateLimits;
  faults: FaultInjector;
  urls: PresignedUrls;
  /** how a 429 names its wait */
  retryAfter: RetryAfterForm;
  accountStatus: 403 | 500;
  /** called before an object URL is handed out, so generation can start early */
  prepareObject: (objectId: string) => void;
}

type Note = (fields: Partial<RequestLogEntry>) => void;

interface Route {
  operation: Operation;
  params: string[];
}

const MAX_URLS_PER_REQUEST = 1000;

function matchRoute(method: string, segments: string[]): Route | 'method' | undefined {
  const [a, b, c, d, e] = segments;
  const n = segments.length;
  let found: { operation: Operation; method: string; params: string[] } | undefined;
  if (a === 'query' && c === 'table' && n === 3) found = { operation: 'listTables', method: 'GET', params: [b] };
  else if (a === 'query' && c === 'table' && n === 5 && e === 'schema') found = { operation: 'getSchema', method: 'GET', params: [b, d] };
  else if (a === 'query' && c === 'table' && n === 5 && e === 'data') found = { operation: 'createJob', method: 'POST', params: [b, d] };
  else if (a === 'job' && n === 2) found = { operation: 'getJob', method: 'GET', params: [b] };
  else if (a === 'object' && b === 'url' && n === 2) found = { operation: 'createUrls', method: 'POST', params: [] };
  if (!found) return undefined;
  if (found.method !== method) return 'method';
  return { operation: found.operation, params: found.params };
}

export async function handleGateway(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, note: Note): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://gateway.invalid');
  const method = req.method ?? 'GET';
  note({ auth: authKind(req) });

  if (url.pathname === TOKEN_PATH) {
    note({ operation: 'token' });
    if (method !== 'POST') return sendError(res, 405, 'MethodNotAllowed', 'The token endpoint accepts POST only.', {}, { Allow: 'POST' });
    return handleToken(ctx, req, res, note);
  }

  const base = `/${ctx.prefix}/`;
  if (!url.pathname.startsWith(base)) return sendError(res, 404, 'NotFound', `No route for ${method} ${url.pathname}.`);
  let segments: string[];
  try {
    segments = url.pathname.slice(base.length).split('/').map(decodeURIComponent);
  } catch {
    return sendError(res, 400, 'ValidationError', 'The request path is not valid percent-encoding.');
  }
  const route = matchRoute(method, segments);
  if (route === undefined) return sendError(res, 404, 'NotFound', `No route for ${method} ${url.pathname}.`);
  if (route === 'method') return sendError(res, 405, 'MethodNotAllowed', `${method} is not allowed on ${url.pathname}.`);
  note({ operation: route.operation });

  // A load balancer in front of the gateway answers before the gateway sees the call.
  if (ctx.faults.roll('html5xx')) return sendBalancerPage(res, ctx.faults.draw('html5xx') < 0.5 ? 502 : 503);

  // Authentication: Authorization wins over the legacy x-svcauth header.
  const token = bearerToken(req);
  if (token === undefined) {
    return sendError(res, 401, 'Unauthorized', 'Missing or malformed access token.', {}, { 'WWW-Authenticate': 'Bearer' });
  }
  const check = ctx.tokens.verify(token);
  if (!check.ok) {
    const message = check.reason === 'expired' ? 'The access token has expired.' : 'The access token is not valid.';
    return sendError(res, 401, 'Unauthorized', message, {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }
  note({ clientId: check.clientId });
  if (ctx.faults.roll('tokenReject')) {
    return sendError(res, 401, 'Unauthorized', 'The access token is not valid.', {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }

  const account = ctx.clients.get(check.clientId)?.accountError ?? ctx.faults.options.account;
  if (account) return sendError(res, ctx.accountStatus, account, accountMessage(account));

  const rate = ctx.limits.take(check.clientId, route.operation);
  if (!rate.allowed) {
    const headers = retryAfterHeader(ctx, rate.retryAfterMs);
    return sendError(res, 429, 'RateLimitExceeded', `Too many ${route.operation} calls: the limit is ${rate.limit} per window.`, {}, headers);
  }
  const storm = ctx.faults.stormLeft(check.clientId, ctx.clock.now());
  if (storm > 0) {
    const headers = retryAfterHeader(ctx, storm);
    return sendError(res, 429, 'RateLimitExceeded', 'Too many requests.', {}, headers);
  }
  if (ctx.faults.roll('gatewayTimeout')) return sendJson(res, 504, { error: { message: 'Gateway timeout: the upstream did not answer in time.' } });
  if (ctx.faults.roll('serverError')) {
    const variant = ctx.faults.draw('serverError');
    const status = variant < 0.5 ? 500 : variant < 0.75 ? 502 : 503;
    return sendError(res, status, status === 503 ? 'ServiceUnavailable' : 'InternalServerError', 'The service failed to answer; try again.');
  }
  if (ctx.faults.roll('drop')) cutResponseShort(res);

  const scope = url.searchParams.get('scope') ?? undefined;
  if (scope !== undefined && (route.operation === 'listTables' || route.operation === 'getSchema' || route.operation === 'createJob')) {
    if (!/^[A-Za-z0-9_.:~-]{1,128}$/.test(scope)) {
      return sendError(res, 400, 'ValidationError', 'The scope parameter must be an account identifier.');
    }
  }

  switch (route.operation) {
    case 'listTables':
      return listTables(ctx, res, route.params[0]);
    case 'getSchema':
      return getSchema(ctx, res, route.params[0], route.params[1]);
    case 'createJob':
      return createJob(ctx, req, res, route.params[0], route.params[1], check.clientId, scope);
    case 'getJob':
      return getJob(ctx, res, route.params[0]);
    case 'createUrls':
      return createUrls(ctx, req, res);
  }
}

function authKind(req: IncomingMessage): RequestLogEntry['auth'] {
  const a = req.headers.authorization !== undefined;
  const x = req.headers['x-svcauth'] !== undefined;
  return a && x ? 'both' : a ? 'authorization' : x ? 'x-svcauth' : 'none';
}

/** The token from `Authorization: Bearer`, else from `x-svcauth`; undefined when malformed. */
function bearerToken(req: IncomingMessage): string | undefined {
  const authorization = header(req, 'authorization');
  if (authorization !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return m ? m[1] : undefined;
  }
  const legacy = header(req, 'x-svcauth');
  if (legacy !== undefined) {
    const m = /^(?:Bearer\s+)?(\S+)\s*$/i.exec(legacy);
    return m ? m[1] : undefined;
  }
  return undefined;
}

function accountMessage(type: AccountErrorType): string {
  switch (type) {
    case 'AccountNotOnboarded':
      return 'This account has not been onboarded to the data service yet.';
    case 'AccountDisabled':
      return 'This account is disabled for the data service.';
    case 'AccountUnderMaintenance':
      return 'This account is under maintenance; try again later.';
    case 'RequestTypeForbidden':
      return 'This account may not make this type of request.';
  }
}

/** Retry-After for a wait of `ms`, in the form the gateway is set to use, rounded up to whole seconds. */
function retryAfterHeader(ctx: GatewayContext, ms: number): Record<string, string> {
  switch (ctx.retryAfter) {
    case 'none':
      return {};
    case 'date':
      // an HTTP date has whole seconds: round up, so waiting until then is never too early
      return { 'Retry-After': new Date(Math.ceil((ctx.clock.now() + ms) / 1000) * 1000).toUTCString() };
    case 'seconds':
      return { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) };
  }
}

const BALANCER_TITLES: Record<502 | 503, string> = { 502: '502 Bad Gateway', 503: '503 Service Temporarily Unavailable' };

/** The HTML page a load balancer sends when the gateway behind it fails or is overloaded. */
function sendBalancerPage(res: ServerResponse, status: 502 | 503): void {
  const title = BALANCER_TITLES[status];
  const page = `<!DOCTYPE html>\n<html>\n<head><title>${title}</title></head>\n<body>\n<h1>${title}</h1>\n<hr><p>load balancer</p>\n</body>\n</html>\n`;
  res.writeHead(status, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(page) });
  res.end(page);
}

/** Makes the response send its headers and part of its body, then break the connection. */
function cutResponseShort(res: ServerResponse): void {
  res.end = ((chunk?: unknown) => {
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) {
      const bytes = Buffer.from(chunk as string | Buffer);
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
    } else {
      res.socket?.destroy();
    }
    return res;
  }) as typeof res.end;
}

async function handleToken(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, note: Note): Promise<void> {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header(req, 'authorization') ?? '');
  const unauthorized = (message: string): void =>
    sendError(res, 401, 'Unauthorized', message, {}, { 'WWW-Authenticate': 'Basic realm="dq"' });
  let body: string;
  try {
    body = await readBody(req, 16_384);
  } catch (err) {
    if (err instanceof BodyTooLargeError) return sendError(res, 400, 'InvalidRequest', err.message);
    throw err;
  }
  if (!m) return unauthorized('Client credentials are missing: send HTTP Basic authentication.');
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const clientId = colon > 0 ? decoded.slice(0, colon) : '';
  const secret = colon > 0 ? decoded.slice(colon + 1) : '';
  const account = ctx.clients.get(clientId);
  if (!account || account.secret !== secret) return unauthorized('The client credentials are not valid.');
  note({ clientId });
  const contentType = (header(req, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== 'application/x-www-form-urlencoded') {
    return sendError(res, 400, 'InvalidRequest', 'The body must be application/x-www-form-urlencoded.');
  }
  const grant = new URLSearchParams(body).get('grant_type');
  if (grant !== 'client_credentials') {
    return sendError(res, 400, 'UnsupportedGrantType', 'grant_type must be client_credentials.');
  }
  const opaque = ctx.faults.roll('opaqueToken');
  const issued = ctx.tokens.issue(clientId, opaque);
  ctx.logger.debug(`emulator: issued ${opaque ? 'an opaque' : 'a'} token for ${clientId}`);
  const answer: Record<string, unknown> = { access_token: issued.accessToken, expires_in: issued.expiresIn, token_type: 'Bearer', scope: 'urn:dq:query' };
  if (ctx.faults.roll('noExpiresIn')) delete answer.expires_in;
  sendJson(res, 200, answer, { 'Cache-Control': 'no-store' });
}

function notFound(res: ServerResponse, kind: 'namespace' | 'table' | 'job' | 'object', id: string): void {
  sendError(res, 404, 'NotFound', `The ${kind} "${id}" does not exist.`, { id, kind });
}

function listTables(ctx: GatewayContext, res: ServerResponse, ns: string): void {
  const tables = ctx.catalog.tables(ns);
  if (!tables) return notFound(res, 'namespace', ns);
  sendJson(res, 200, { tables });
}

function getSchema(ctx: GatewayContext, res: ServerResponse, ns: string, name: string): void {
  if (!ctx.catalog.hasNamespace(ns)) return notFound(res, 'namespace', ns);
  const table = ctx.catalog.table(ns, name);
  if (!table) return notFound(res, 'table', name);
  sendJson(res, 200, { version: table.version, schema: tableSchema(table) });
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

async function createJob(
  ctx: GatewayContext,
  req: IncomingMessage,
  res: ServerResponse,
  ns: string,
  name: string,
  clientId: string,
  scope: string | undefined,
): Promise<void> {
  if (!ctx.catalog.hasNamespace(ns)) return notFound(res, 'namespace', ns);
  const table = ctx.catalog.table(ns, name);
  if (!table) return notFound(res, 'table', name);

  const parsed = await readJson(req, res);
  if (!parsed) return;
  const invalid = (message: string, field?: string): void =>
    sendError(res, 400, 'ValidationError', message, { location: (field && parsed.memberLocations.get(field)) || { line: 1, column: 1, character: 1 } });
  const body = parsed.value;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalid('The body must be a JSON object.');
  const fields = body as Record<string, unknown>;
  if ('filter' in fields) return invalid('filter is reserved and not implemented; omit it.', 'filter');
  if (fields.format === undefined) return invalid(`format is required: one of ${FORMATS.join(', ')}.`);
  if (typeof fields.format !== 'string' || !(FORMATS as readonly string[]).includes(fields.format)) {
    return invalid(`format must be one of ${FORMATS.join(', ')}.`, 'format');
  }
  if (fields.mode !== undefined && (typeof fields.mode !== 'string' || !(MODES as readonly string[]).includes(fields.mode))) {
    return invalid(`mode must be one of ${MODES.join(', ')}.`, 'mode');
  }
  const dates: { since?: number; until?: number } = {};
  for (const key of ['since', 'until'] as const) {
    const v = fields[key];
    if (v === undefined || v === null) continue;
    const ms = typeof v === 'string' && ISO_DATE_TIME.test(v) ? Date.parse(v) : NaN;
    if (!Number.isFinite(ms)) return invalid(`${key} must be a UTC date-time such as 2026-01-31T08:00:00Z.`, key);
    dates[key] = ms;
  }
  const now = ctx.clock.now();
  const latest = ctx.history.latestCommit(now);
  const earliest = ctx.history.earliestSince(now);
  if (dates.since !== undefined && dates.until !== undefined && dates.since > dates.until) {
    return invalid('since must not be later than until.', 'since');
  }
  // `until` defaults to the latest committed change; one after it would name data that does not exist yet
  if (dates.until !== undefined && dates.until > latest) {
    return sendError(res, 400, 'OutOfRange', `until is later than the latest committed change (${isoUtc(latest)}); omit until to use it.`, {
      since: isoUtc(earliest),
      until: isoUtc(latest),
    });
  }
  if (dates.since !== undefined && dates.since < earliest) {
    return sendError(res, 400, 'SnapshotRequired', 'since is older than the retained history: run a snapshot query first.', {
      since: isoUtc(earliest),
    });
  }
  // A since equal to the latest commit (nothing new since the last job) still gets a job, with
  // no records: the extension's "changes since" right after a job relies on that answer.
  if (dates.since !== undefined && dates.since > latest) {
    return sendError(res, 400, 'OutOfRange', 'The requested range has no data: since is after the latest committed change.', {
      since: isoUtc(earliest),
      until: isoUtc(latest),
    });
  }
  const until = dates.until ?? latest;
  const { job } = ctx.jobs.create({
    clientId,
    table,
    format: fields.format as Format,
    mode: (fields.mode as Mode | undefined) ?? 'expanded',
    scope,
    range: { since: dates.since, until },
    rawSince: typeof fields.since === 'string' ? fields.since : undefined,
    rawUntil: typeof fields.until === 'string' ? fields.until : undefined,
  });
  const record = ctx.jobs.record(job);
  const finished = record.status === 'complete' || record.status === 'failed';
  sendJson(res, finished ? 200 : 202, record);
}

function getJob(ctx: GatewayContext, res: ServerResponse, id: string): void {
  const job = ctx.jobs.get(id);
  if (!job) return notFound(res, 'job', id);
  sendJson(res, 200, ctx.jobs.record(job));
}

async function createUrls(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const parsed = await readJson(req, res);
  if (!parsed) return;
  const items = parsed.value;
  const at = { line: 1, column: 1, character: 1 };
  if (!Array.isArray(items) || items.length === 0) {
    return sendError(res, 400, 'ValidationError', 'The body must be a non-empty JSON array of {"id": "<object id>"}.', { location: at });
  }
  if (items.length > MAX_URLS_PER_REQUEST) {
    return sendError(res, 400, 'ValidationError', `At most ${MAX_URLS_PER_REQUEST} objects per request.`, { location: at });
  }
  const urls: Record<string, { url: string }> = {};
  for (const item of items) {
    const id = typeof item === 'object' && item !== null ? (item as Record<string, unknown>).id : undefined;
    if (typeof id !== 'string' || id === '') {
      return sendError(res, 400, 'ValidationError', 'Every item must be {"id": "<object id>"}.', { location: at });
    }
    const found = ctx.jobs.object(id);
    if (!found || ctx.jobs.status(found.job) !== 'complete') return notFound(res, 'object', id);
    urls[id] = { url: ctx.urls.sign(id, objectFileName(found.job, found.part)) };
    ctx.prepareObject(id);
  }
  sendJson(res, 200, { urls });
}

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<ParsedJson | undefined> {
  let text: string;
  try {
    text = await readBody(req);
  } catch (err) {
    if (err instanceof BodyTooLargeError) {
      sendError(res, 413, 'ValidationError', err.message);
      return undefined;
    }
    throw err;
  }
  try {
    return parseJsonWithLocations(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      sendError(res, 400, 'ValidationError', err.message, { location: err.location });
      return undefined;
    }
    throw err;
  }
}

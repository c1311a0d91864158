// The object host: serves result objects at pre-signed URLs. No credential is needed or
// wanted; the signature in the query is checked instead. Supports HEAD, single byte ranges
// (206, or 416 when unsatisfiable), ETag with If-None-Match and If-Range. Errors have XML
// bodies, as storage services send them. Faults: bodies truncated or dropped half-way, links
// that expire early (before the first byte or part-way through), Range requests ignored.

import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { FaultInjector } from './faults';
import { header } from './httpSupport';
import type { JobEngine } from './jobEngine';
import type { ObjectStore } from './objectStore';
import type { PresignedUrls } from './presignedUrls';
import type { RequestLogEntry } from './requestLog';

export interface ObjectHostContext {
  jobs: JobEngine;
  store: ObjectStore;
  urls: PresignedUrls;
  faults: FaultInjector;
  logger: Logger;
  clock: Clock;
  /** each response's body is sent no faster than this, like one connection to an object store */
  bytesPerSecond?: number;
}

function sendXml(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>\n`;
  res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Parses a single `bytes=` range against a size; 'invalid' is ignored, 'unsatisfiable' is 416. */
export function parseRange(value: string, size: number): { start: number; end: number } | 'invalid' | 'unsatisfiable' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(value.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'invalid';
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return 'invalid';
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

export async function handleObjectRequest(
  ctx: ObjectHostContext,
  req: IncomingMessage,
  res: ServerResponse,
  note: (fields: Partial<RequestLogEntry>) => void,
): Promise<void> {
  void note;
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://objects.invalid');
  if (method !== 'GET' && method !== 'HEAD') return sendXml(res, 405, 'MethodNotAllowed', 'Only GET and HEAD are allowed.', { Allow: 'GET, HEAD' });
  if (!url.pathname.startsWith('/bucket/')) return sendXml(res, 404, 'NoSuchKey', 'The specified key does not exist.');

  const check = ctx.urls.verify(url.pathname, url.searchParams);
  if (!check.ok) {
    if (check.reason === 'expired') return sendXml(res, 403, 'AccessDenied', 'Request has expired');
    return sendXml(res, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  }
  const found = ctx.jobs.object(check.objectId);
  if (!found) return sendXml(res, 404, 'NoSuchKey', 'The specified key does not exist.');
  const stored = await ctx.store.ensure(found.job, found.part);

  const baseHeaders: Record<string, string | number> = {
    'Content-Type': stored.gzip ? 'application/gzip' : 'application/vnd.apache.parquet',
    ETag: stored.etag,
    'Accept-Ranges': 'bytes',
    'Last-Modified': new Date(found.job.createdAt).toUTCString(),
  };
  const inm = header(req, 'if-none-match');
  if (inm !== undefined && inm.split(',').some((t) => t.trim() === stored.etag || t.trim() === '*')) {
    res.writeHead(304, { ETag: stored.etag });
    res.end();
    return;
  }

  let start = 0;
  let end = stored.size - 1;
  let status = 200;
  const rangeHeader = header(req, 'range');
  const ifRange = header(req, 'if-range');
  if (rangeHeader !== undefined && (ifRange === undefined || ifRange === stored.etag) && !ctx.faults.roll('ignoreRange')) {
    const range = parseRange(rangeHeader, stored.size);
    if (range === 'unsatisfiable') {
      return sendXml(res, 416, 'InvalidRange', 'The requested range is not satisfiable.', { 'Content-Range': `bytes */${stored.size}` });
    }
    if (range !== 'invalid') {
      ({ start, end } = range);
      status = 206;
      baseHeaders['Content-Range'] = `bytes ${start}-${end}/${stored.size}`;
    }
  }
  const length = Math.max(0, end - start + 1);
  const expireAfter = expiredPartWay(ctx, url.searchParams, length);
  if (expireAfter === 0 || (expireAfter !== undefined && method === 'HEAD')) return sendXml(res, 403, 'AccessDenied', 'Request has expired');
  res.writeHead(status, { ...baseHeaders, 'Content-Length': length });
  if (method === 'HEAD' || length === 0) {
    res.end();
    return;
  }

  // Faults: a truncated body (the connection ends early) or a dropped connection (reset),
  // half-way; a link that expires part-way is dropped where it expires.
  const truncate = ctx.faults.roll('truncate');
  const drop = expireAfter !== undefined || (!truncate && ctx.faults.roll('drop'));
  const sent = expireAfter ?? (truncate || drop ? Math.floor(length / 2) : length);
  const sendUntil = start + sent - 1;
  if (sendUntil < start) {
    res.socket?.destroy();
    return;
  }
  const file = createReadStream(stored.path, { start, end: sendUntil });
  file.on('error', (err) => {
    ctx.logger.warn(`emulator: reading an object failed: ${err.message}`);
    res.destroy();
  });
  res.on('close', () => file.destroy());
  const stream: Readable = ctx.bytesPerSecond === undefined ? file : file.pipe(paced(ctx.bytesPerSecond, ctx.clock));
  stream.on('end', () => {
    if (!truncate && !drop) return;
    const socket = res.socket;
    if (!socket) return;
    // Let the sent bytes reach the client, then cut the connection.
    if (drop && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else socket.end(() => socket.destroy());
  });
  stream.pipe(res, { end: !(truncate || drop) });
}

/** Passes bytes on no sooner than `bytesPerSecond` allows, counted from the first byte. */
function paced(bytesPerSecond: number, clock: Clock): Transform {
  const started = clock.now();
  let passed = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      passed += chunk.length;
      const wait = started + (passed / bytesPerSecond) * 1000 - clock.now();
      if (wait <= 0) done(null, chunk);
      else clock.sleep(wait).then(() => done(null, chunk), done);
    },
  });
}

/**
 * The early-expiry fault: undefined when this link does not expire now; else how many bytes
 * of the answer go out before the connection is cut (0: refused before the first byte).
 * Either way the link is refused from then on.
 */
function expiredPartWay(ctx: ObjectHostContext, query: URLSearchParams, length: number): number | undefined {
  if (!ctx.faults.roll('expireUrl')) return undefined;
  ctx.urls.revoke(query);
  const at = ctx.faults.draw('expireUrl');
  return at < 0.5 ? 0 : Math.floor(length * (at - 0.5) * 2);
}

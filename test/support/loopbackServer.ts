// A small configurable stand-in for the gateway and the object host, listening on two
// different loopback ports, for integration tests over real HTTP. The gateway issues tokens
// and pre-signed links; the object host serves objects with Range support and can be told
// to misbehave per object: drop the connection mid-body, refuse a link, ignore Range,
// change size between requests, stall, trickle, never end, or fail outright. The gateway can
// trickle its table list.

import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ObjectRequest {
  objectId: string;
  range?: string;
  authorization?: string;
  cookie?: string;
  sig: string;
}

export interface ObjectFaults {
  /** byte offsets: each request (in turn) is cut off after sending up to that offset of the object */
  dropAt?: number[];
  /** answer 403 to this many requests first */
  forbid?: number;
  /** answer 200 with the whole object even to Range requests */
  ignoreRange?: boolean;
  /** total size reported in Content-Range of 206 answers */
  rangeTotal?: number;
  /** send this many bytes, then hold the connection open without finishing */
  stallAt?: number;
  /** answer every request with this status */
  failStatus?: number;
  /** send the object one byte at a time, one every this many ms (real time) */
  trickleMs?: number;
  /** answer 200 without Content-Length and send the object over and over, up to ENDLESS_LIMIT bytes */
  endless?: boolean;
}

/** How much an `endless` object sends at most, so a client that never stops fills no disk. */
export const ENDLESS_LIMIT = 32 * 1024 * 1024;

export class LoopbackService {
  readonly objects = new Map<string, Buffer>();
  readonly faults = new Map<string, ObjectFaults>();
  readonly objectRequests: ObjectRequest[] = [];
  readonly linkRequests: string[][] = [];
  readonly gatewayAuth: string[] = [];
  readonly token = `eyJhbGciOiJub25lIn0.${Buffer.from(JSON.stringify({ exp: Math.floor(Date.now() / 1000) + 3600 })).toString('base64url')}.sig`;
  gatewayUrl = '';
  objectUrl = '';
  /** base of the links handed out; defaults to the object host */
  linkBase?: string;
  /** when set, the table list is sent one byte at a time, one every this many ms */
  trickleTablesMs?: number;
  /** requests for the table list */
  tableRequests = 0;
  private readonly gateway = http.createServer((req, res) => this.onGateway(req, res));
  private readonly objectHost = http.createServer((req, res) => this.onObject(req, res));
  private readonly validSigs = new Set<string>();
  private readonly stalled: http.ServerResponse[] = [];
  private readonly gatewaySockets = new Set<Socket>();

  async start(): Promise<this> {
    this.gateway.on('connection', (socket: Socket) => {
      this.gatewaySockets.add(socket);
      socket.on('close', () => this.gatewaySockets.delete(socket));
    });
    this.gatewayUrl = `http://127.0.0.1:${await listen(this.gateway)}`;
    this.objectUrl = `http://127.0.0.1:${await listen(this.objectHost)}`;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.stalled) res.destroy();
    this.gateway.closeAllConnections();
    this.objectHost.closeAllConnections();
    await Promise.all([close(this.gateway), close(this.objectHost)]);
  }

  /** Connections to the gateway that its clients have not closed yet. */
  openGatewayConnections(): number {
    return this.gatewaySockets.size;
  }

  requestsFor(objectId: string): ObjectRequest[] {
    return this.objectRequests.filter((r) => r.objectId === objectId);
  }

  private onGateway(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0];
      this.gatewayAuth.push(String(req.headers.authorization ?? ''));
      if (req.method === 'POST' && path === '/ids/auth/login') {
        return json(res, 200, { access_token: this.token, expires_in: 3600, token_type: 'Bearer' });
      }
      if (req.headers.authorization !== `Bearer ${this.token}`) return json(res, 401, { error: { message: 'Unauthorized' } });
      if (req.method === 'POST' && path === '/dap/object/url') {
        const ids = (JSON.parse(body) as { id: string }[]).map((o) => o.id);
        this.linkRequests.push(ids);
        const urls: Record<string, { url: string }> = {};
        for (const id of ids) {
          if (!this.objects.has(id)) return json(res, 404, { error: { type: 'NotFound', uuid: 'u-obj', message: 'no object', id, kind: 'object' } });
          const sig = randomBytes(8).toString('hex');
          this.validSigs.add(sig);
          urls[id] = { url: `${this.linkBase ?? this.objectUrl}/bucket/${encodeURIComponent(id)}?X-Amz-Signature=${sig}` };
        }
        return json(res, 200, { urls });
      }
      if (req.method === 'GET' && path === '/dap/query/canvas/table') {
        this.tableRequests++;
        const tables = { tables: ['accounts', 'courses'] };
        if (this.trickleTablesMs !== undefined) return trickle(res, 200, Buffer.from(JSON.stringify(tables)), this.trickleTablesMs, this.stalled);
        return json(res, 200, tables);
      }
      return json(res, 404, { error: { message: 'no route' } });
    });
  }

  private onObject(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.objectUrl);
    const objectId = decodeURIComponent(url.pathname.replace(/^\/bucket\//, ''));
    const sig = url.searchParams.get('X-Amz-Signature') ?? '';
    const range = typeof req.headers.range === 'string' ? req.headers.range : undefined;
    this.objectRequests.push({ objectId, range, authorization: req.headers.authorization, cookie: req.headers.cookie, sig });
    const data = this.objects.get(objectId);
    const faults = this.faults.get(objectId) ?? {};
    if (!data || !this.validSigs.has(sig)) return text(res, 404, '<Error><Code>NoSuchKey</Code></Error>');
    if (faults.failStatus) return text(res, faults.failStatus, 'failing on purpose');
    if (faults.endless) return endless(res, data);
    if (faults.forbid && faults.forbid > 0) {
      faults.forbid--;
      this.validSigs.delete(sig); // that link is dead now
      return text(res, 403, '<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
    }
    let start = 0;
    const m = range ? /^bytes=(\d+)-$/.exec(range) : null;
    if (m && !faults.ignoreRange) start = Number(m[1]);
    const partial = start > 0;
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/octet-stream',
      'content-length': data.length - start,
      'accept-ranges': 'bytes',
    };
    if (partial) headers['content-range'] = `bytes ${start}-${data.length - 1}/${faults.rangeTotal ?? data.length}`;
    if (faults.trickleMs !== undefined) return trickle(res, partial ? 206 : 200, data.subarray(start), faults.trickleMs, this.stalled, headers);
    res.writeHead(partial ? 206 : 200, headers);
    const dropAt = faults.dropAt?.shift();
    if (faults.stallAt !== undefined) {
      res.write(data.subarray(start, Math.max(start, faults.stallAt)));
      this.stalled.push(res);
      return;
    }
    if (dropAt !== undefined && dropAt > start && dropAt < data.length) {
      res.write(data.subarray(start, dropAt), () => setTimeout(() => res.socket?.destroy(), 5));
      return;
    }
    res.end(data.subarray(start));
  }
}

/** Sends `body` one byte every `everyMs` until it is all sent or the client goes away. */
function trickle(res: http.ServerResponse, status: number, body: Buffer, everyMs: number, open: http.ServerResponse[], headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers, 'content-length': body.length });
  open.push(res);
  let sent = 0;
  const timer = setInterval(() => {
    if (res.destroyed || sent >= body.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(body.subarray(sent, ++sent));
  }, everyMs);
  res.on('close', () => clearInterval(timer));
}

/** Sends `data` again and again without a Content-Length, until ENDLESS_LIMIT or the client goes away. */
function endless(res: http.ServerResponse, data: Buffer): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  let sent = 0;
  const more = (): void => {
    while (!res.destroyed && sent < ENDLESS_LIMIT) {
      sent += data.length;
      if (!res.write(data)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end();
  };
  more();
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function text(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function listen(server: http.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

// A gateway on a loopback port that signs anyone in and answers each data call with what a
// test sets: hostile names, messages and schemas, as a broken or malicious service might send.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeJwt } from './mockGateway';

export interface ScriptedAnswer {
  status: number;
  body: unknown;
}

export class HostileGateway {
  /** answers by `METHOD /path` (the path under the data prefix `dap`, without the query) */
  readonly answers = new Map<string, ScriptedAnswer>();
  readonly clientId = 'hostile-client';
  readonly clientSecret = 'hostile-secret';
  readonly dataPrefix = 'dap';
  baseUrl = '';
  private readonly token = fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600 });
  private readonly server = http.createServer((req, res) => this.answer(req, res));

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The environment that points dq at this gateway. */
  env(): NodeJS.ProcessEnv {
    return { DQ_BASE_URL: this.baseUrl, DQ_DATA_PREFIX: this.dataPrefix, DQ_CLIENT_ID: this.clientId, DQ_CLIENT_SECRET: this.clientSecret };
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    req.resume();
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method === 'POST' && path === '/ids/auth/login') return send(res, 200, { access_token: this.token, expires_in: 3600, token_type: 'Bearer' });
      if (req.headers.authorization !== `Bearer ${this.token}`) return send(res, 401, { error: { message: 'Unauthorized' } });
      const scripted = this.answers.get(`${req.method} ${path.replace(`/${this.dataPrefix}`, '')}`);
      if (!scripted) return send(res, 404, { error: { type: 'NotFound', message: `nothing scripted for ${req.method} ${path}` } });
      send(res, scripted.status, scripted.body);
    });
  }
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

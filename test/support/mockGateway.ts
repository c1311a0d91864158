// An in-process stand-in for the gateway built on undici's MockAgent: no sockets, so unit
// tests of the client run under a fake clock. Tests script each route's answers and read
// back every request the client made.

import { MockAgent } from 'undici';

export const ORIGIN = 'https://api.example.test';

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** An answer, or 'drop' to fail the request as if the connection was reset. */
export type Handler = (req: SeenRequest, count: number) => Answer | 'drop';

/** A JWT-shaped token with the given claims (unsigned: the client never verifies). */
export function fakeJwt(claims: Record<string, unknown>): string {
  const part = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

export class MockGateway {
  readonly agent = new MockAgent();
  readonly requests: SeenRequest[] = [];
  private readonly routes = new Map<string, { handler: Handler; count: number }>();
  private tokenSeq = 0;

  constructor() {
    this.agent.disableNetConnect();
    this.agent
      .get(ORIGIN)
      .intercept({ path: () => true, method: () => true })
      .reply((opts) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries((opts.headers ?? {}) as Record<string, string>)) headers[k.toLowerCase()] = String(v);
        const req: SeenRequest = {
          method: opts.method,
          path: opts.path,
          headers,
          body: typeof opts.body === 'string' ? opts.body : undefined,
        };
        this.requests.push(req);
        const route = this.routes.get(`${req.method} ${req.path.split('?')[0]}`);
        if (!route) return { statusCode: 599, data: `no route for ${req.method} ${req.path}` };
        route.count++;
        const answer = route.handler(req, route.count);
        if (answer === 'drop') {
          const err = new Error('other side closed') as Error & { code: string };
          err.code = 'UND_ERR_SOCKET';
          throw err;
        }
        const data = typeof answer.body === 'string' ? answer.body : answer.body === undefined ? '' : JSON.stringify(answer.body);
        return {
          statusCode: answer.status,
          data,
          responseOptions: { headers: { 'content-type': typeof answer.body === 'string' ? 'text/html' : 'application/json', ...(answer.headers ?? {}) } },
        };
      })
      .persist();
  }

  /** Scripts `method path` (path without query). */
  on(method: string, path: string, handler: Handler): this {
    this.routes.set(`${method} ${path}`, { handler, count: 0 });
    return this;
  }

  /** Login answering a fresh token each time, valid `lifetimeS` seconds from `nowMs`. */
  onLogin(nowMs: () => number, lifetimeS = 3600): this {
    return this.on('POST', '/ids/auth/login', () => ({
      status: 200,
      body: {
        access_token: fakeJwt({ sub: 'client', n: ++this.tokenSeq, exp: Math.floor(nowMs() / 1000) + lifetimeS }),
        expires_in: lifetimeS,
        token_type: 'Bearer',
      },
    }));
  }

  /** Requests made to `method path`. */
  seen(method: string, path: string): SeenRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.split('?')[0] === path);
  }

  logins(): number {
    return this.seen('POST', '/ids/auth/login').length;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

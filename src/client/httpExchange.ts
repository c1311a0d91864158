// One HTTP request whose whole answer is read as text: what both the API transport and the
// sign-in need. Retrying, limiting and error mapping stay with the callers.

import { request, type Dispatcher } from 'undici';

export interface Exchange {
  status: number;
  retryAfter: string | string[] | undefined;
  text: string;
}

export interface ExchangeInit {
  method: 'GET' | 'POST';
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  timeoutMs: number;
}

export async function exchange(url: string, init: ExchangeInit): Promise<Exchange> {
  const res = await request(url, {
    method: init.method,
    dispatcher: init.dispatcher,
    headers: init.headers,
    body: init.body,
    signal: init.signal,
    headersTimeout: init.timeoutMs,
    bodyTimeout: init.timeoutMs,
  });
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], text: await res.body.text() };
}

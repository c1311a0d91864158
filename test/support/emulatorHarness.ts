// Raw HTTP helpers for testing the emulator: a hand-driven clock, token requests and data
// calls with fetch. Deliberately independent of the project's client.

import type { Clock } from '../../src/core/clock';
import type { RunningEmulator } from '../../src/emulator/emulator';

export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 0, 15, 9, 30)) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
}

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function raw(url: string, init: RequestInit = {}): Promise<RawResponse> {
  const res = await fetch(url, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

export async function tokenFor(emu: RunningEmulator, id = emu.clientId, secret = emu.clientSecret): Promise<string> {
  const res = await raw(`${emu.baseUrl}/ids/auth/login`, {
    method: 'POST',
    headers: { authorization: basic(id, secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`token request answered ${res.status}`);
  return res.json.access_token as string;
}

/** Calls a data endpoint (path relative to the prefix) with a bearer token. */
export function api(emu: RunningEmulator, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return raw(`${emu.baseUrl}/${emu.dataPrefix}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function download(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Creates a job, lets the clock finish it, and returns the completed record. */
export async function completedJob(emu: RunningEmulator, clock: ManualClock, token: string, ns: string, table: string, body: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const created = await api(emu, token, 'POST', `/query/${ns}/table/${table}/data`, body);
  if (created.status !== 200 && created.status !== 202) throw new Error(`create job answered ${created.status}: ${created.text}`);
  clock.advance(60_000);
  const job = await api(emu, token, 'GET', `/job/${encodeURIComponent(created.json.id)}`);
  return job.json;
}

export async function urlsFor(emu: RunningEmulator, token: string, objects: { id: string }[]): Promise<string[]> {
  const res = await api(emu, token, 'POST', '/object/url', objects);
  if (res.status !== 200) throw new Error(`object urls answered ${res.status}: ${res.text}`);
  return objects.map((o) => res.json.urls[o.id].url as string);
}

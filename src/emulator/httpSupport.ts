// Small helpers for the emulator's HTTP handlers: JSON answers, the error envelope of the
// contract (section 4), and bounded body reading.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceErrorBody } from '../core/contract';

export class BodyTooLargeError extends Error {}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** An error body with a fresh uuid, as support would ask for. */
export function errorBody(type: string, message: string, extra: Partial<ServiceErrorBody> = {}): { error: ServiceErrorBody } {
  return { error: { type, uuid: randomUUID(), message, ...extra } };
}

export function sendError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  extra: Partial<ServiceErrorBody> = {},
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, errorBody(type, message, extra), headers);
}

export function readBody(req: IncomingMessage, limit = 1_048_576): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLargeError(`The request body exceeds ${limit} bytes.`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

// Pre-signed object URLs: the object host accepts a URL without any credential when its
// path and expiry carry a valid HMAC signature made by this emulator.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/clock';

export type UrlCheck = { ok: true; objectId: string } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

const PATH = /^\/bucket\/([A-Za-z0-9_-]+)\/([A-Za-z0-9._-]+)$/;

export class PresignedUrls {
  private readonly key = randomBytes(32);

  constructor(
    private readonly clock: Clock,
    private readonly ttlSec: number,
    private readonly objectBaseUrl: () => string,
  ) {}

  sign(objectId: string, fileName: string): string {
    const path = `/bucket/${Buffer.from(objectId).toString('base64url')}/${fileName}`;
    const expires = Math.floor(this.clock.now() / 1000) + this.ttlSec;
    return `${this.objectBaseUrl()}${path}?expires=${expires}&signature=${this.signature(path, expires)}`;
  }

  verify(pathname: string, query: URLSearchParams): UrlCheck {
    const m = PATH.exec(pathname);
    const expiresText = query.get('expires') ?? '';
    const given = query.get('signature') ?? '';
    if (!m || !/^\d{1,12}$/.test(expiresText) || given === '') return { ok: false, reason: 'malformed' };
    const expires = Number(expiresText);
    const expected = Buffer.from(this.signature(pathname, expires));
    const actual = Buffer.from(given);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return { ok: false, reason: 'signature' };
    if (expires * 1000 <= this.clock.now()) return { ok: false, reason: 'expired' };
    return { ok: true, objectId: Buffer.from(m[1], 'base64url').toString('utf8') };
  }

  private signature(path: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${path}\n${expires}`).digest('base64url');
  }
}

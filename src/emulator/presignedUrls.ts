// Pre-signed object URLs: the object host accepts a URL without any credential when its
// path, expiry and link id carry a valid HMAC signature made by this emulator, and the link
// has not been revoked (the early-expiry fault). The random link id makes every URL handed
// out distinct, so revoking one never revokes another for the same object.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/clock';

export type UrlCheck = { ok: true; objectId: string } | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

const PATH = /^\/bucket\/([A-Za-z0-9_-]+)\/([A-Za-z0-9._-]+)$/;

export class PresignedUrls {
  private readonly key = randomBytes(32);
  private readonly revoked = new Set<string>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlSec: number,
    private readonly objectBaseUrl: () => string,
  ) {}

  sign(objectId: string, fileName: string): string {
    const path = `/bucket/${Buffer.from(objectId).toString('base64url')}/${fileName}`;
    const expires = Math.floor(this.clock.now() / 1000) + this.ttlSec;
    const link = randomBytes(8).toString('hex');
    return `${this.objectBaseUrl()}${path}?expires=${expires}&link=${link}&signature=${this.signature(path, expires, link)}`;
  }

  verify(pathname: string, query: URLSearchParams): UrlCheck {
    const m = PATH.exec(pathname);
    const expiresText = query.get('expires') ?? '';
    const link = query.get('link') ?? '';
    const given = query.get('signature') ?? '';
    if (!m || !/^\d{1,12}$/.test(expiresText) || !/^[0-9a-f]{16}$/.test(link) || given === '') return { ok: false, reason: 'malformed' };
    const expires = Number(expiresText);
    const expected = Buffer.from(this.signature(pathname, expires, link));
    const actual = Buffer.from(given);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return { ok: false, reason: 'signature' };
    if (expires * 1000 <= this.clock.now() || this.revoked.has(link)) return { ok: false, reason: 'expired' };
    return { ok: true, objectId: Buffer.from(m[1], 'base64url').toString('utf8') };
  }

  /** Makes a link answer as expired from now on, whatever its expiry says. */
  revoke(query: URLSearchParams): void {
    this.revoked.add(query.get('link') ?? '');
  }

  private signature(path: string, expires: number, link: string): string {
    return createHmac('sha256', this.key).update(`${path}\n${expires}\n${link}`).digest('base64url');
  }
}

// Issues and verifies the gateway's access tokens: compact JWTs signed with HS256 under a
// secret that lives only in this process. A token from another emulator instance, an altered
// token or an expired one fails verification.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/clock';
import { base64UrlEncode, decodeJwt } from '../core/jwtCodec';

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
}

export type TokenCheck =
  | { ok: true; clientId: string; expiresAt: number }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' };

export class TokenIssuer {
  private readonly key = randomBytes(32);
  private counter = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlSec: number,
  ) {}

  issue(clientId: string): IssuedToken {
    const iat = Math.floor(this.clock.now() / 1000);
    const header = base64UrlEncode(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const claims = base64UrlEncode(
      JSON.stringify({ sub: clientId, iat, exp: iat + this.ttlSec, iss: 'dq-emulator', jti: `${iat}-${++this.counter}` }),
    );
    const signature = this.sign(`${header}.${claims}`);
    return { accessToken: `${header}.${claims}.${signature}`, expiresIn: this.ttlSec };
  }

  verify(token: string): TokenCheck {
    const decoded = decodeJwt(token);
    if (!decoded || decoded.header.alg !== 'HS256') return { ok: false, reason: 'malformed' };
    const [h, p, s] = token.split('.');
    const expected = Buffer.from(this.sign(`${h}.${p}`));
    const given = Buffer.from(s);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
    const { sub, exp } = decoded.claims;
    if (typeof sub !== 'string' || typeof exp !== 'number') return { ok: false, reason: 'malformed' };
    if (exp * 1000 <= this.clock.now()) return { ok: false, reason: 'expired' };
    return { ok: true, clientId: sub, expiresAt: exp * 1000 };
  }

  private sign(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }
}

// Issues and verifies the gateway's access tokens: compact JWTs signed with HS256 under a
// secret that lives only in this process, or (the opaqueToken fault) random strings that are
// not JWTs, remembered here until they expire. A token from another emulator instance, an
// altered token or an expired one fails verification.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/clock';
import { base64UrlEncode, decodeJwt } from '../core/jwtCodec';

const OPAQUE_KEPT_MS = 86_400_000;

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
  /** opaque token -> who it was issued to and when it expires (ms) */
  private readonly opaque = new Map<string, { clientId: string; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlSec: number,
  ) {}

  /** A JWT, or with `opaque` a random token that carries nothing a client could read. */
  issue(clientId: string, opaque = false): IssuedToken {
    if (opaque) return this.issueOpaque(clientId);
    const iat = Math.floor(this.clock.now() / 1000);
    const header = base64UrlEncode(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
    const claims = base64UrlEncode(
      JSON.stringify({ sub: clientId, iat, exp: iat + this.ttlSec, iss: 'dq-emulator', jti: `${iat}-${++this.counter}` }),
    );
    const signature = this.sign(`${header}.${claims}`);
    return { accessToken: `${header}.${claims}.${signature}`, expiresIn: this.ttlSec };
  }

  verify(token: string): TokenCheck {
    const held = this.opaque.get(token);
    if (held) {
      if (held.expiresAt <= this.clock.now()) return { ok: false, reason: 'expired' };
      return { ok: true, clientId: held.clientId, expiresAt: held.expiresAt };
    }
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

  private issueOpaque(clientId: string): IssuedToken {
    const now = this.clock.now();
    // expired ones are kept a day, so a late caller hears "expired" rather than "not valid"
    for (const [token, held] of this.opaque) if (held.expiresAt + OPAQUE_KEPT_MS <= now) this.opaque.delete(token);
    // no dots: nothing in it parses as a JWT
    const token = `dqo_${randomBytes(30).toString('base64url')}`;
    this.opaque.set(token, { clientId, expiresAt: now + this.ttlSec * 1000 });
    return { accessToken: token, expiresIn: this.ttlSec };
  }

  private sign(input: string): string {
    return createHmac('sha256', this.key).update(input).digest('base64url');
  }
}

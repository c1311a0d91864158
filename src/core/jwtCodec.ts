// Encoding and decoding of JSON Web Token segments (base64url JSON). No signing here: the
// emulator signs with node:crypto; clients only read claims such as `exp`.

import { isRecord } from './isRecord';

export function base64UrlEncode(data: string | Uint8Array): string {
  return Buffer.from(data).toString('base64url');
}

export function base64UrlDecode(segment: string): Buffer {
  return Buffer.from(segment, 'base64url');
}

/** True when `token` has the three dot-separated base64url parts of a compact JWT. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/** The header and claims of a compact JWT, or undefined when it is not one. Unverified. */
export function decodeJwt(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } | undefined {
  if (!looksLikeJwt(token)) return undefined;
  const [h, p] = token.split('.');
  try {
    const header: unknown = JSON.parse(base64UrlDecode(h).toString('utf8'));
    const claims: unknown = JSON.parse(base64UrlDecode(p).toString('utf8'));
    if (!isRecord(header) || !isRecord(claims)) return undefined;
    return { header, claims };
  } catch {
    return undefined;
  }
}

/** The `exp` claim in ms since the epoch, when the token is a JWT that carries one. */
export function jwtExpiryMs(token: string): number | undefined {
  const exp = decodeJwt(token)?.claims.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
}

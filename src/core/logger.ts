// A minimal leveled logger interface. The extension adapts a LogOutputChannel to it, the
// CLI writes to stderr, tests collect lines. Callers never pass secrets; `redact` is a
// last line of defence for text that came from elsewhere (URLs, headers, bodies).

export interface Logger {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const nullLogger: Logger = {
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

const BEARER = /(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;

/**
 * Query parameters that carry a signature, a credential or a token: AWS (`X-Amz-*`), Google
 * Cloud Storage (`X-Goog-*`, `GoogleAccessId`, `Signature`), Azure SAS (`sig` and the
 * delegation key fields), CloudFront (`Signature`, `Key-Pair-Id`, `Policy`), OAuth.
 */
const SECRET_PARAMS = [
  'X-Amz-[A-Za-z-]+',
  'X-Goog-[A-Za-z-]+',
  'GoogleAccessId',
  'Signature',
  'Key-Pair-Id',
  'Policy',
  'sig',
  'se',
  'st',
  'sv',
  'skoid',
  'sktid',
  'skt',
  'ske',
  'sks',
  'skv',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'expires',
  'exp',
].join('|');
/** Where a parameter starts: `?`, `&` or `;`, plain, URL-encoded, HTML- or JSON-escaped, or after a space or quote. */
const PARAM_START = String.raw`^|[?&;\s"'(,]|%3F|%26|&amp;|\\u0026`;
/** A value runs to the next parameter, space, quote or bracket (an encoded `&` included). */
const PARAM_VALUE = String.raw`(?:(?!%26|\\u0026)[^&\s"'<>#])*`;
const QUERY = new RegExp(`(${PARAM_START})(${SECRET_PARAMS})(=|%3D)${PARAM_VALUE}`, 'gi');

/** Masks tokens, authorization values and URL signatures in free text. */
export function redact(text: string): string {
  return text.replace(BEARER, '$1 ***').replace(JWT, '***').replace(QUERY, '$1$2$3***');
}

/** Shows a URL without its query string (pre-signed URLs carry their credential there). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '<invalid url>';
  }
}

/** Every http(s) URL in `text` shown as `safeUrl` shows it, for messages of errors from elsewhere. */
export function withSafeUrls(text: string): string {
  return text.replace(/https?:\/\/[^\s"'<>]+/gi, (url) => safeUrl(url));
}

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
const QUERY = /([?&])(X-Amz-[A-Za-z-]+|Signature|sig|signature|token|access_token|expires|Expires|exp)=[^&\s"']*/g;

/** Masks tokens, authorization values and URL signatures in free text. */
export function redact(text: string): string {
  return text.replace(BEARER, '$1 ***').replace(JWT, '***').replace(QUERY, '$1$2=***');
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

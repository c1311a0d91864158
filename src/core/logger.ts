// A minimal leveled logger interface. The extension adapts a LogOutputChannel to it, the
// CLI writes to stderr, tests collect lines. Callers never pass secrets; `redact` is a
// last line of defence for text that came from elsewhere (URLs, headers, bodies), and the one
// place where the secrets this process holds are masked, whatever text echoes them.

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

/**
 * The `user:password@` of a URL of any scheme. A password that is not percent-encoded may hold
 * `/`, `?`, `#` or `@`, and a parser then reads part of it as the port, path or query; so the
 * user info runs from the first `:` after `//` to the last `@` before a space or quote. A
 * `host:port/path@...` is masked too: better a host hidden than a password shown.
 */
const USER_INFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]*:[^\s"'<>]*@/gi;

/** `scheme://user:password@host` as `scheme://***@host`, anywhere in `text`; `scheme://user@host` stays. */
export function maskUserInfo(text: string): string {
  return text.replace(USER_INFO, '$1***@');
}

/** Secrets this process holds (client secrets, tokens), each form with how many holders it has. */
const knownSecrets = new Map<string, number>();
/** Shorter values are not masked: they would mask ordinary words. */
const MIN_SECRET_LENGTH = 4;

/**
 * Masks `value` (as written, URL-encoded and JSON-escaped) in every text `redact` cleans,
 * whatever shape it comes in, until the returned function releases it.
 */
export function holdSecret(value: string): () => void {
  const forms = [...new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)])].filter((f) => f.length >= MIN_SECRET_LENGTH);
  for (const f of forms) knownSecrets.set(f, (knownSecrets.get(f) ?? 0) + 1);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    for (const f of forms) {
      const left = (knownSecrets.get(f) ?? 1) - 1;
      if (left > 0) knownSecrets.set(f, left);
      else knownSecrets.delete(f);
    }
  };
}

function maskKnownSecrets(text: string): string {
  if (knownSecrets.size === 0) return text;
  let out = text;
  for (const secret of [...knownSecrets.keys()].sort((a, b) => b.length - a.length)) out = out.split(secret).join('***');
  return out;
}

/**
 * Masks the secrets held (holdSecret), tokens, authorization values, passwords in URLs and URL
 * signatures in free text. Every http(s) URL loses its query and fragment (signed links of any
 * style carry their credential there); known signature parameters are masked where no URL
 * shows (encoded or escaped).
 */
export function redact(text: string): string {
  return withSafeUrls(maskKnownSecrets(text)).replace(BEARER, '$1 ***').replace(JWT, '***').replace(QUERY, '$1$2$3***');
}

/** Shows a URL without its user info (as `***@`) and query string (pre-signed URLs carry their credential there). */
export function safeUrl(url: string): string {
  try {
    const u = new URL(maskUserInfo(url));
    const userInfo = u.username || u.password ? '***@' : '';
    return `${u.protocol}//${userInfo}${u.host}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '<invalid url>';
  }
}

/** An http(s) URL in free text (its slashes may be JSON-escaped): it runs to a space, quote or angle bracket. */
const HTTP_URL = /https?:(?:\/\/|\\\/\\\/)[^\s"'<>]+/gi;

/** A URL as written up to its query or fragment (shown as `?…` or `#…`), and any user name as `***@`. */
function withoutQuery(url: string): string {
  const cut = url.search(/[?#]/);
  const kept = cut < 0 ? url : `${url.slice(0, cut)}${url[cut]}…`;
  return kept.replace(/^(https?:(?:\/\/|\\\/\\\/))[^/?#@]*@/i, '$1***@');
}

/**
 * Every http(s) URL in `text` without its user info (as `***@`), query and fragment, the rest
 * as written; the user info of any other URL masked. For text from elsewhere: errors, answers.
 */
export function withSafeUrls(text: string): string {
  return maskUserInfo(text).replace(HTTP_URL, withoutQuery);
}

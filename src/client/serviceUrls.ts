// Builds the service's URLs from the base URL, the data prefix and encoded path segments,
// and refuses plain http to anything but this machine unless the caller opted in.

import { OPERATION_ROUTES, TOKEN_PATH, type Operation } from '../core/contract';
import { parseBaseUrl, parseHttpUrl, type ParsedUrl } from '../core/httpUrl';
import { DqError } from './errors';

/**
 * `localhost` and the literal loopback addresses: 127.0.0.0/8, ::1 and 127.x mapped into IPv6.
 * Names under `.localhost` do not count: they are looked up like any other name, and a
 * resolver may send them elsewhere.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  if (/^::ffff:127\./.test(host) || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(host)) return true;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m !== null && Number(m[1]) === 127 && m.slice(2).every((p) => Number(p) <= 255);
}

/** Parses and checks a URL the client is about to call. */
export function checkUrl(raw: string, allowInsecureHttp: boolean, what: string): URL {
  return usable(parseHttpUrl(raw), allowInsecureHttp, what);
}

/** Parses and checks the gateway's base URL. */
export function checkBaseUrl(raw: string, allowInsecureHttp: boolean): URL {
  return usable(parseBaseUrl(raw), allowInsecureHttp, 'base URL');
}

function usable(parsed: ParsedUrl, allowInsecureHttp: boolean, what: string): URL {
  const { url } = parsed;
  if (!url) throw new DqError('usage', `The ${what} cannot be used`, { hint: parsed.problem });
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new DqError('insecure', `Refusing plain http to ${url.host}: credentials and data would travel unencrypted`, {
      hint: 'Use https://, or explicitly allow insecure http for this connection if you trust the network.',
    });
  }
  return url;
}

export interface ServiceUrlsOptions {
  baseUrl: string;
  dataPrefix: string;
}

export class ServiceUrls {
  readonly base: string;
  readonly prefix: string;

  constructor(options: ServiceUrlsOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.prefix = options.dataPrefix.replace(/^\/+|\/+$/g, '');
  }

  login(): string {
    return `${this.base}${TOKEN_PATH}`;
  }

  /** The URL of `operation` with its path parameters encoded and an optional `scope`. */
  operation(operation: Operation, params: Record<string, string> = {}, scope?: string): string {
    const template = OPERATION_ROUTES[operation].template;
    const path = template.replace(/\{(\w+)\}/g, (_m, name: string) => {
      const value = params[name];
      if (value === undefined || value === '') {
        throw new DqError('usage', `Missing ${name} for ${operation}`, { operation });
      }
      return encodeURIComponent(value);
    });
    const prefix = this.prefix ? `/${this.prefix.split('/').map(encodeURIComponent).join('/')}` : '';
    const query = scope ? `?scope=${encodeURIComponent(scope)}` : '';
    return `${this.base}${prefix}${path}${query}`;
  }
}

// The connection pool every request of one client goes through: a keep-alive undici Agent,
// or a proxy-aware dispatcher when a proxy URL is given or the usual proxy environment
// variables are set (either case). NO_PROXY hosts bypass the proxy, and so does this machine
// (localhost, 127.0.0.0/8, ::1) whatever the settings say: a proxy would see plain-http
// credentials and reach its own loopback, not ours. A proxy that refuses a tunnel fails the
// request with a ProxyRefusalError naming it. VS Code does not proxy a bundled undici, so
// the extension builds one of these from its own settings. A proxy given as `host:port` (as
// curl takes it) means `http://host:port`; a value that cannot be used is a `usage` error
// naming where it came from, never a failure of the first request.

import { Agent, Dispatcher, EnvHttpProxyAgent } from 'undici';
import { DqError } from './errors';
import { ProxyRefusalError, proxyRefusalStatus } from './proxyRefusal';
import { isLoopbackHost } from './serviceUrls';
import type { ProxyOptions } from './types';

const POOL = { keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 8 } as const;

export interface ResolvedProxy {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string;
}

/** What a proxy value must look like, for messages. */
export const PROXY_FORM = 'http://host:port or host:port (https:// for a proxy spoken to over TLS), with user:password@ before the host if the proxy asks for them';

export type ParsedProxy = { url: string; problem?: undefined } | { url?: undefined; problem: string };

/**
 * A proxy value as undici takes it: an http(s) URL as given, or `[user:password@]host:port`
 * with `http://` put in front. Otherwise a short reason it cannot be used.
 */
export function parseProxyUrl(raw: string): ParsedProxy {
  const value = raw.trim();
  const schemed = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  const candidate = schemed ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { problem: 'it is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `${url.protocol}// proxies are not supported` };
  if (!url.hostname) return { problem: 'it names no host' };
  if (!schemed && !url.port) return { problem: 'it names no port' };
  return { url: candidate };
}

/** A proxy value as a message may show it: anything up to its last `@` (user and password) as `***`. */
export function shownProxy(raw: string): string {
  return raw.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^]*@/i, '$1***@');
}

/** `parseProxyUrl`, or a `usage` error naming `source` (an option or variable) and the expected form. */
export function checkProxyUrl(raw: string, source: string): string {
  const parsed = parseProxyUrl(raw);
  if (parsed.url !== undefined) return parsed.url;
  throw new DqError('usage', `${source} "${shownProxy(raw)}" is not a usable proxy: ${parsed.problem}`, {
    details: { source },
    hint: `Give the proxy as ${PROXY_FORM}.`,
  });
}

/** A variable set (to more than blanks) in lower or else upper case, with the name it was found under. */
function envValue(env: NodeJS.ProcessEnv, name: string): { name: string; value: string } | undefined {
  for (const n of [name.toLowerCase(), name.toUpperCase()]) {
    const v = env[n];
    if (v && v.trim()) return { name: n, value: v.trim() };
  }
  return undefined;
}

/**
 * Which proxy (if any) applies, from explicit options first and then the environment. Throws
 * a `usage` DqError when the value that applies cannot be used, naming where it came from.
 */
export function resolveProxy(proxy: ProxyOptions = {}): ResolvedProxy | undefined {
  const env = proxy.env ?? process.env;
  const useEnv = proxy.useEnvironment !== false;
  const listed = Array.isArray(proxy.noProxy) ? proxy.noProxy.join(',') : proxy.noProxy;
  const noProxy = listed ?? (useEnv ? envValue(env, 'no_proxy')?.value : undefined) ?? '';
  if (proxy.url && proxy.url.trim()) {
    const url = checkProxyUrl(proxy.url, 'The proxy URL');
    return { httpProxy: url, httpsProxy: url, noProxy };
  }
  if (!useEnv) return undefined;
  const fromEnv = (name: string): string | undefined => {
    const found = envValue(env, name);
    return found && checkProxyUrl(found.value, found.name);
  };
  const httpProxy = fromEnv('http_proxy');
  const httpsProxy = fromEnv('https_proxy') ?? httpProxy;
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy, noProxy };
}

/** One Agent, or a proxy dispatcher that routes per request host and honours NO_PROXY. */
export function createDispatcher(proxy?: ProxyOptions): Dispatcher {
  const rejectUnauthorized = proxy?.strictSSL !== false;
  const resolved = resolveProxy(proxy);
  const direct = new Agent({ ...POOL, connect: { rejectUnauthorized } });
  if (!resolved) return direct;
  // Every value is passed explicitly ('' = none) so undici never reads process.env itself.
  const proxied = new EnvHttpProxyAgent({
    ...POOL,
    httpProxy: resolved.httpProxy ?? '',
    httpsProxy: resolved.httpsProxy ?? '',
    noProxy: resolved.noProxy,
    connect: { rejectUnauthorized },
    requestTls: { rejectUnauthorized },
    proxyTls: { rejectUnauthorized },
  });
  return new ProxyRouter(direct, proxied, resolved);
}

/**
 * Sends requests for this machine straight to `direct` and every other one to `proxied`,
 * whose tunnel refusals become ProxyRefusalErrors naming the proxy.
 */
class ProxyRouter extends Dispatcher {
  constructor(
    private readonly direct: Agent,
    private readonly proxied: EnvHttpProxyAgent,
    private readonly proxies: ResolvedProxy,
  ) {
    super();
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = options.origin === undefined ? undefined : new URL(String(options.origin));
    if (origin && isLoopbackHost(origin.hostname)) return this.direct.dispatch(options, handler);
    const proxy = origin?.protocol === 'https:' ? this.proxies.httpsProxy : this.proxies.httpProxy;
    if (!origin || proxy === undefined) return this.proxied.dispatch(options, handler);
    const port = origin.port || (origin.protocol === 'https:' ? '443' : '80');
    return this.proxied.dispatch(options, namingRefusals(handler, shownProxy(proxy), `${origin.hostname}:${port}`));
  }

  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | void {
    const done = Promise.all([this.direct.close(), this.proxied.close()]).then(() => undefined);
    if (!callback) return done;
    done.then(callback, callback);
  }

  override destroy(): Promise<void>;
  override destroy(err: Error | null): Promise<void>;
  override destroy(callback: () => void): void;
  override destroy(err: Error | null, callback: () => void): void;
  override destroy(errOrCallback?: Error | null | (() => void), callback?: () => void): Promise<void> | void {
    const err = typeof errOrCallback === 'function' ? null : (errOrCallback ?? null);
    const then = typeof errOrCallback === 'function' ? errOrCallback : callback;
    const done = Promise.all([this.direct.destroy(err), this.proxied.destroy(err)]).then(() => undefined);
    if (!then) return done;
    done.then(then, then);
  }
}

/** `handler` with undici's tunnel refusal (an AbortError, like a cancel) replaced by a ProxyRefusalError. */
function namingRefusals(handler: Dispatcher.DispatchHandler, proxy: string, target: string): Dispatcher.DispatchHandler {
  const named = (err: Error): Error => {
    const status = proxyRefusalStatus(err);
    return status === undefined ? err : new ProxyRefusalError(status, proxy, target);
  };
  return new Proxy(handler, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (key === 'onError') return (err: Error) => value.call(target, named(err));
      if (key === 'onResponseError') return (controller: unknown, err: Error) => value.call(target, controller, named(err));
      return value.bind(target);
    },
  });
}

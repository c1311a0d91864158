// The connection pool every request of one client goes through: a keep-alive undici Agent,
// or a proxy-aware dispatcher when a proxy URL is given or the usual proxy environment
// variables are set (either case). NO_PROXY hosts bypass the proxy. VS Code does not proxy
// a bundled undici, so the extension builds one of these from its own settings.

import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { ProxyOptions } from './types';

const POOL = { keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 8 } as const;

export interface ResolvedProxy {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string;
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return v && v.trim() ? v.trim() : undefined;
}

/** Which proxy (if any) applies, from explicit options first and then the environment. */
export function resolveProxy(proxy: ProxyOptions = {}): ResolvedProxy | undefined {
  const env = proxy.env ?? process.env;
  const useEnv = proxy.useEnvironment !== false;
  const listed = Array.isArray(proxy.noProxy) ? proxy.noProxy.join(',') : proxy.noProxy;
  const noProxy = listed ?? (useEnv ? envValue(env, 'no_proxy') : undefined) ?? '';
  if (proxy.url && proxy.url.trim()) {
    return { httpProxy: proxy.url.trim(), httpsProxy: proxy.url.trim(), noProxy };
  }
  if (!useEnv) return undefined;
  const httpProxy = envValue(env, 'http_proxy');
  const httpsProxy = envValue(env, 'https_proxy') ?? httpProxy;
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpProxy, httpsProxy, noProxy };
}

/** One Agent, or a proxy dispatcher that routes per request host and honours NO_PROXY. */
export function createDispatcher(proxy?: ProxyOptions): Dispatcher {
  const rejectUnauthorized = proxy?.strictSSL !== false;
  const resolved = resolveProxy(proxy);
  if (!resolved) {
    return new Agent({ ...POOL, connect: { rejectUnauthorized } });
  }
  // Every value is passed explicitly ('' = none) so undici never reads process.env itself.
  return new EnvHttpProxyAgent({
    ...POOL,
    httpProxy: resolved.httpProxy ?? '',
    httpsProxy: resolved.httpsProxy ?? '',
    noProxy: resolved.noProxy,
    connect: { rejectUnauthorized },
    requestTls: { rejectUnauthorized },
    proxyTls: { rejectUnauthorized },
  });
}

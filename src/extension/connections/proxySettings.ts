// VS Code's proxy settings, for the dispatcher the client uses: the extension host does not
// proxy a bundled undici, so the extension passes them on itself.

import type { ProxyOptions } from '../../client/types';
import { setting } from '../ui/vscodeSettings';

export function readProxySettings(): ProxyOptions {
  const url = setting('http.proxy').trim();
  const noProxy = setting('http.noProxy') as string[];
  return {
    url: url ? url : undefined,
    noProxy: noProxy.length > 0 ? noProxy : undefined,
    strictSSL: setting('http.proxyStrictSSL'),
  };
}

// VS Code's proxy settings, for the dispatcher the client uses: the extension host does not
// proxy a bundled undici, so the extension passes them on itself.

import * as vscode from 'vscode';
import type { ProxyOptions } from '../../client/types';

export function readProxySettings(): ProxyOptions {
  const http = vscode.workspace.getConfiguration('http');
  const url = http.get<string>('proxy')?.trim();
  const noProxy = http.get<string[]>('noProxy');
  return {
    url: url ? url : undefined,
    noProxy: noProxy && noProxy.length > 0 ? noProxy : undefined,
    strictSSL: http.get<boolean>('proxyStrictSSL', true),
  };
}

// Where the machine-wide rate budget is kept: one small ledger file per service and account,
// in one folder every process of the user finds the same way. DQ_STATE_DIR moves it (scripts
// and tests that must keep processes apart); otherwise the user's runtime folder
// ($XDG_RUNTIME_DIR/dq), else the user's cache folder ($XDG_CACHE_HOME/dq, ~/.cache/dq,
// %LOCALAPPDATA%\dq\cache on Windows). Never a shared temporary folder: other users could
// read or fill it. A file's name is a hash of the base URL and the client ID: neither is
// readable from it.

import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';

/** The folder that holds the rate ledgers for this environment. */
export function rateLedgerFolder(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.DQ_STATE_DIR) return path.resolve(env.DQ_STATE_DIR);
  if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) return path.join(env.XDG_RUNTIME_DIR, 'dq');
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'dq');
  if (platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'dq', 'cache');
  return path.join(env.HOME || os.homedir(), '.cache', 'dq');
}

/**
 * The ledger file of one account at one service: the same for every spelling of the base URL
 * that reaches the same place (case of scheme and host, a default port, a trailing slash).
 */
export function rateLedgerFile(folder: string, baseUrl: string, clientId: string): string {
  const digest = createHash('sha256').update(`${serviceKey(baseUrl)}\n${clientId}`, 'utf8').digest('hex');
  return path.join(folder, `rate-ledger-${digest.slice(0, 32)}.json`);
}

function serviceKey(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl.replace(/\/+$/, '');
  }
}

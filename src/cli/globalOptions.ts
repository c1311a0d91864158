// Options every dq command understands, and how they become a DataQueryClient.

import type { OptionSpec, OptionValues } from './argParser';
import { UsageError } from './argParser';
import { DataQueryClient } from '../client/dataQueryClient';
import type { DataQueryClientOptions } from '../client/types';
import { checkProxyUrl } from '../client/dispatcher';
import { rateLedgerFolder } from '../client/rateLedgerFolder';
import { DEFAULT_DATA_PREFIX } from '../core/contract';
import { parseBaseUrl } from '../core/httpUrl';
import type { Logger } from '../core/logger';
import { redact } from '../core/logger';
import type { CliIo } from './cliIo';
import { jsonLogOf, type JsonLogLevel } from './jsonLog';
import { terminalLine } from './terminalLine';

export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { name: 'base-url', kind: 'string', env: 'DQ_BASE_URL', valueName: 'URL', description: 'gateway base URL, e.g. https://api.example.com' },
  { name: 'prefix', kind: 'string', env: 'DQ_DATA_PREFIX', valueName: 'PATH', description: `path of the data service under the gateway (default ${DEFAULT_DATA_PREFIX})` },
  { name: 'client-id', kind: 'string', env: 'DQ_CLIENT_ID', valueName: 'ID', description: 'client ID for the token request' },
  { name: 'client-secret', kind: 'string', env: 'DQ_CLIENT_SECRET', valueName: 'SECRET', description: 'client secret (prefer the environment variable: command lines are visible to other users)' },
  { name: 'scope', kind: 'string', env: 'DQ_SCOPE', valueName: 'ACCOUNT', description: 'account identifier sent as `scope` (default: the credentials\' own)' },
  { name: 'proxy', kind: 'string', env: 'DQ_PROXY', valueName: 'URL', description: 'HTTP(S) proxy, http://host:port or host:port; HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured too' },
  { name: 'allow-insecure-http', kind: 'boolean', env: 'DQ_ALLOW_INSECURE_HTTP', description: 'permit plain http:// to a host that is not this machine' },
  { name: 'json', kind: 'boolean', description: 'machine-readable output on stdout' },
  { name: 'progress', kind: 'boolean', negatable: true, description: 'progress on stderr (default: when stderr is a terminal)' },
  { name: 'help', kind: 'boolean', description: 'show help' },
];

/**
 * Logs warnings always, more with DQ_DEBUG=1; everything passes through `redact`. On a
 * terminal each line goes above the progress line instead of onto it; while stderr has a
 * JsonLog (`--log-format json`), each line is a JSON object there instead.
 */
export function stderrLogger(io: CliIo): Logger {
  const debug = io.env.DQ_DEBUG === '1';
  const terminal = terminalLine(io.stderr);
  const line = (level: JsonLogLevel, message: string): void => {
    const json = jsonLogOf(io.stderr);
    if (json) json.message(level, redact(message));
    else terminal.print(`dq: ${level === 'warn' ? 'warning' : level}: ${redact(message)}`);
  };
  return {
    trace: (m) => debug && line('trace', m),
    debug: (m) => debug && line('debug', m),
    info: (m) => debug && line('info', m),
    warn: (m) => line('warn', m),
    error: (m) => line('error', m),
  };
}

const CREDENTIALS_IN_URL = 'Do not put credentials in the URL; the client ID and secret are given separately and kept secret.';

/** A refused base URL as the message repeats it: any user info (a password, or a token as the user name) as `***@`. */
function shownBaseUrl(raw: string): string {
  return redact(raw).replace(/^(\s*[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/i, '$1***@');
}

/**
 * The --proxy / DQ_PROXY value as the client takes it (`host:port` as `http://host:port`), or a
 * usage error naming the one it came from. `given` holds the options of the command line.
 */
function proxyOption(options: OptionValues, io: CliIo, given?: ReadonlySet<string>): string | undefined {
  const raw = options.proxy as string | undefined;
  if (raw === undefined || raw.trim() === '') return undefined;
  const fromEnv = given ? !given.has('proxy') : io.env.DQ_PROXY === raw;
  return checkProxyUrl(raw, fromEnv ? 'DQ_PROXY' : '--proxy');
}

/** The client every command makes from the global options; `rateLimits` are those a command was given. */
export function createClient(options: OptionValues, io: CliIo, given?: ReadonlySet<string>, rateLimits?: DataQueryClientOptions['rateLimits']): DataQueryClient {
  const baseUrl = options['base-url'] as string | undefined;
  if (!baseUrl) throw new UsageError('no service given: pass --base-url or set DQ_BASE_URL (try `dq emulator` for a local one)');
  // any @ is user info: past the host, it ends a password holding a `/`, `?` or `#` that was read as port and path
  const problem = baseUrl.includes('@') ? CREDENTIALS_IN_URL : parseBaseUrl(baseUrl).problem;
  if (problem) throw new UsageError(`--base-url "${shownBaseUrl(baseUrl)}" cannot be used: ${problem}`);
  const clientId = options['client-id'] as string | undefined;
  const clientSecret = options['client-secret'] as string | undefined;
  if (!clientId) throw new UsageError('no client ID: pass --client-id or set DQ_CLIENT_ID');
  if (!clientSecret) throw new UsageError('no client secret: set DQ_CLIENT_SECRET (or pass --client-secret)');
  const proxyUrl = proxyOption(options, io, given);
  return new DataQueryClient({
    baseUrl,
    dataPrefix: (options.prefix as string | undefined) ?? DEFAULT_DATA_PREFIX,
    credentials: async () => ({ clientId, clientSecret }),
    scope: options.scope as string | undefined,
    logger: stderrLogger(io),
    proxy: { url: proxyUrl, env: io.env },
    allowInsecureHttp: options['allow-insecure-http'] === true,
    ...(rateLimits ? { rateLimits } : {}),
    // one budget with every dq and editor window using these credentials on this machine
    sharedBudgetFolder: rateLedgerFolder(io.env),
  });
}

export function progressWanted(options: OptionValues, io: CliIo): boolean {
  const explicit = options.progress;
  return typeof explicit === 'boolean' ? explicit : io.stderr.isTTY === true;
}

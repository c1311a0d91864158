// dq emulator: runs the local Data Query Service until interrupted, and prints the settings
// that point dq at it from this machine.

import { isLoopbackHost } from '../client/serviceUrls';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../emulator/emulator';
import { FAULT_KEYS } from '../emulator/faults';
import type { OptionSpec } from './argParser';
import { UsageError } from './argParser';
import type { CommandSpec } from './commandSpec';
import { EXIT } from './exitCodes';

const OPTIONS: readonly OptionSpec[] = [
  { name: 'host', kind: 'string', valueName: 'ADDR', description: 'address to listen on (default 127.0.0.1)' },
  { name: 'allow-remote', kind: 'boolean', description: 'permit a --host that is not loopback' },
  { name: 'port', kind: 'number', valueName: 'N', description: 'gateway port; 0 picks a free one (default 0)' },
  { name: 'prefix', kind: 'string', valueName: 'PATH', description: 'data service path (default dap)' },
  { name: 'client-id', kind: 'string', valueName: 'ID', description: 'accepted client ID (default: random)' },
  { name: 'client-secret', kind: 'string', valueName: 'S', description: 'accepted client secret (default: random)' },
  { name: 'token-ttl', kind: 'number', valueName: 'SEC', description: 'token lifetime (default 3600)' },
  { name: 'job-delay', kind: 'number', valueName: 'MS', description: 'how long a job takes (default 1500)' },
  { name: 'url-ttl', kind: 'number', valueName: 'SEC', description: 'pre-signed URL lifetime (default 900)' },
  { name: 'job-ttl', kind: 'number', valueName: 'SEC', description: 'jobs and their files are deleted SEC after the job starts (default 86400)' },
  {
    name: 'dedupe-window',
    kind: 'number',
    valueName: 'SEC',
    description: 'an identical create-job request within SEC returns the same job (default 600; 0 never reuses)',
  },
  { name: 'rows', kind: 'number', valueName: 'N', description: 'make the large sample table N rows long' },
  { name: 'seed', kind: 'number', valueName: 'N', description: 'seed of the sample data and faults (default 1)' },
  { name: 'limit-window', kind: 'number', valueName: 'SEC', description: 'rate-limit window (default 60)' },
  { name: 'limits', kind: 'boolean', negatable: true, description: 'enforce rate limits (default; --no-limits turns them off)' },
  { name: 'object-rate', kind: 'number', valueName: 'BYTES', description: 'pace each object download to BYTES per second, like an object store (default: unpaced)' },
  {
    name: 'faults',
    kind: 'string',
    valueName: 'SPEC',
    description: `inject faults, e.g. 5xx=0.1,drop=0.2,expireUrl=0.3,ignoreRange=0.1,seed=7 (shares 0 to 1; keys: ${FAULT_KEYS.join(', ')})`,
  },
  { name: 'json', kind: 'boolean', description: 'print one JSON line {baseUrl, dataPrefix, clientId, clientSecret}' },
  { name: 'help', kind: 'boolean', description: 'show help' },
];

function whole(value: unknown, option: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${option} must be a whole number of at least ${min} (got ${String(value)})`);
  return n;
}

function hostOf(url: string): string {
  return new URL(url).hostname;
}

/** An address to listen on that means "every address of this machine" (0.0.0.0, ::). */
function isWildcard(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === '0.0.0.0' || /^[0:]+$/.test(host);
}

/** `url` as this machine reaches it: a wildcard listening address becomes loopback (http://127.0.0.1:PORT). */
function reachableUrl(url: string): string {
  const u = new URL(url);
  if (!isWildcard(u.hostname)) return url;
  u.hostname = u.hostname.includes(':') ? '[::1]' : '127.0.0.1';
  return u.origin;
}

/** For an emulator other machines may reach: how they point dq at it. */
function remoteNote(emulator: RunningEmulator): string[] {
  if (isLoopbackHost(hostOf(emulator.baseUrl))) return [];
  const lines = [
    '',
    `From another machine: DQ_BASE_URL=http://<this machine's address>:${new URL(emulator.baseUrl).port}, with --allow-insecure-http`,
    '(or DQ_ALLOW_INSECURE_HTTP=1), since dq refuses plain http to other hosts unless told.',
  ];
  if (isLoopbackHost(hostOf(emulator.objectBaseUrl))) lines.push(`Result links name ${hostOf(emulator.objectBaseUrl)}, so downloads work on this machine only.`);
  return lines;
}

/** What to do about a listener that could not start, in words; undefined for other failures. */
function listenProblem(err: unknown, host: string, port: number): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const choose = 'choose another --port, or --port 0 for any free one';
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use by another program; ${choose}`;
    case 'EACCES':
      return `may not listen on port ${port} on ${host} (ports below 1024 need privileges); ${choose}`;
    case 'EADDRNOTAVAIL':
      return `--host ${host} is not an address of this machine; leave it out for 127.0.0.1`;
    default:
      return undefined;
  }
}

export const emulatorCommand: CommandSpec = {
  name: 'emulator',
  usage: 'dq emulator [--host 127.0.0.1] [--port N] [--prefix dap] [--client-id ID] [--client-secret S] [--token-ttl SEC] [--job-delay MS] [--url-ttl SEC] [--job-ttl SEC] [--dedupe-window SEC] [--rows N] [--seed N] [--limit-window SEC] [--no-limits] [--object-rate BYTES] [--faults SPEC] [--json]',
  summary: 'run a local Data Query Service (sample data, rate limits, faults) until Ctrl-C',
  options: OPTIONS,
  ownOptionsOnly: true,
  async run(ctx) {
    if (ctx.args.positionals.length > 0) throw new UsageError(`unexpected argument "${ctx.args.positionals[0]}"`);
    const o = ctx.args.options;
    const host = o.host as string | undefined;
    if (host !== undefined && !['127.0.0.1', 'localhost', '::1'].includes(host) && o['allow-remote'] !== true) {
      throw new UsageError(`--host ${host} would let other machines reach the emulator; add --allow-remote if that is what you want`);
    }
    const port = whole(o.port, '--port', 0);
    if (port !== undefined && port > 65535) throw new UsageError('--port must be at most 65535');
    const options: EmulatorOptions = {
      host,
      allowNonLoopback: o['allow-remote'] === true,
      port,
      prefix: o.prefix as string | undefined,
      clientId: o['client-id'] as string | undefined,
      clientSecret: o['client-secret'] as string | undefined,
      tokenTtlSec: whole(o['token-ttl'], '--token-ttl', 1),
      jobDelayMs: whole(o['job-delay'], '--job-delay', 0),
      urlTtlSec: whole(o['url-ttl'], '--url-ttl', 1),
      jobTtlSec: whole(o['job-ttl'], '--job-ttl', 1),
      dedupeWindowSec: whole(o['dedupe-window'], '--dedupe-window', 0),
      rows: whole(o.rows, '--rows', 0),
      seed: whole(o.seed, '--seed', 0),
      limitWindowSec: whole(o['limit-window'], '--limit-window', 1),
      limits: o.limits === false ? false : undefined,
      objectBytesPerSecond: whole(o['object-rate'], '--object-rate', 1),
      faults: o.faults as string | undefined,
    };
    let emulator: RunningEmulator;
    try {
      emulator = await startEmulator(options);
    } catch (err) {
      // Bad --faults specs, refused hosts and busy ports are all the caller's to fix.
      throw new UsageError(listenProblem(err, host ?? '127.0.0.1', port ?? 0) ?? (err instanceof Error ? err.message : String(err)));
    }
    const baseUrl = reachableUrl(emulator.baseUrl);
    // plain http is refused to a host that is not this machine (the gateway, or the links to objects)
    const insecure = [baseUrl, emulator.objectBaseUrl].map(hostOf).find((h) => !isLoopbackHost(h));
    const info = {
      baseUrl,
      dataPrefix: emulator.dataPrefix,
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
    };
    if (o.json) {
      ctx.io.stdout.write(`${JSON.stringify(info)}\n`);
    } else {
      ctx.io.stdout.write(
        [
          'Data Query emulator running',
          `  gateway:    ${emulator.baseUrl}`,
          `  objects:    ${emulator.objectBaseUrl}`,
          `  namespaces: ${emulator.namespaces.join(', ')}`,
          '',
          'Point dq at it (paste into a shell):',
          `  export DQ_BASE_URL=${baseUrl}`,
          `  export DQ_DATA_PREFIX=${emulator.dataPrefix}`,
          `  export DQ_CLIENT_ID=${emulator.clientId}`,
          `  export DQ_CLIENT_SECRET=${emulator.clientSecret}`,
          ...(insecure ? [`  export DQ_ALLOW_INSECURE_HTTP=1   # plain http to ${insecure}, which dq otherwise refuses`] : []),
          ...remoteNote(emulator),
          '',
          'Press Ctrl-C to stop.',
          '',
        ].join('\n'),
      );
    }
    await new Promise<void>((resolve) => {
      if (ctx.io.interrupt.aborted) resolve();
      else ctx.io.interrupt.addEventListener('abort', () => resolve(), { once: true });
    });
    await emulator.close();
    return EXIT.ok;
  },
};

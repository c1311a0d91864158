// The local Data Query Service: a gateway listener (token + data endpoints) and a separate
// object listener for pre-signed downloads, both on loopback by default. Everything is real
// HTTP; time comes from the injected clock, randomness from the seed.

import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { systemClock, type Clock } from '../core/clock';
import { DEFAULT_DATA_PREFIX, type Operation } from '../core/contract';
import { nullLogger, type Logger } from '../core/logger';
import { FaultInjector, parseFaultSpec, type AccountErrorType, type FaultOptions } from './faults';
import { handleGateway, type ClientAccount, type GatewayContext } from './gatewayRoutes';
import { sendError } from './httpSupport';
import { JobEngine } from './jobEngine';
import { ObjectStore } from './objectStore';
import { handleObjectRequest } from './objectRoutes';
import { PresignedUrls } from './presignedUrls';
import { RateLimits } from './rateLimits';
import { RequestLog, type RequestLogEntry } from './requestLog';
import { ChangeHistory } from './sampleData/changeHistory';
import { SampleCatalog, type CanvasTableSet } from './sampleData/sampleCatalog';
import { evolvedTable, type SchemaEvolution } from './sampleData/schemaEvolution';
import type { TableDef } from './sampleData/tableModel';
import { TokenIssuer } from './tokenIssuer';

export { parseFaultSpec } from './faults';
export type { FaultOptions, AccountErrorType } from './faults';
export type { RequestLogEntry } from './requestLog';

export interface EmulatorCredential {
  clientId: string;
  clientSecret: string;
  /** every data call with this credential answers this account error */
  accountError?: AccountErrorType;
}

export interface EmulatorOptions {
  /** default '127.0.0.1'; any non-loopback host is refused unless allowNonLoopback */
  host?: string;
  allowNonLoopback?: boolean;
  /** gateway port; default 0 = a free port */
  port?: number;
  /** object host port (a second listener); default 0 */
  objectPort?: number;
  /** path the data service is mounted under; default 'dap' */
  prefix?: string;
  clientId?: string;
  clientSecret?: string;
  /** more credentials, e.g. to show that limits are per credential */
  extraCredentials?: EmulatorCredential[];
  /** account error for the main credential */
  accountError?: AccountErrorType;
  /** status of account errors: 403 (newer gateways, default) or 500 (older ones) */
  accountErrorStatus?: 403 | 500;
  tokenTtlSec?: number;
  /** total time a job spends waiting + running; default 1500 */
  jobDelayMs?: number;
  urlTtlSec?: number;
  /** jobs expire this long after they start; default 86400 */
  jobTtlSec?: number;
  /** identical create-job requests within this window return the same job; default 600 */
  dedupeWindowSec?: number;
  /** rows of canvas_logs.web_logs (the large table); default 5000 */
  rows?: number;
  /** rows per result object before a result is split; default 100000 */
  rowsPerObject?: number;
  /** restrict the sample namespaces (default: all of them) */
  namespaces?: string[];
  /** the `canvas` tables: the service's whole list (default, 90 tables) or the seven `core` ones */
  canvasTables?: CanvasTableSet;
  seed?: number;
  limitWindowSec?: number;
  /** false = no limits; default DEFAULT_RATE_LIMITS */
  limits?: Partial<Record<Operation, number>> | false;
  /** false omits Retry-After on 429; default true (the fault spec's retryAfter=date|none overrides it) */
  retryAfter?: boolean;
  /** a spec string (see parseFaultSpec) or options; off by default */
  faults?: string | FaultOptions;
  /** gzip level of JSONL/CSV/TSV objects, 0 (stored, fastest) to 9; default 6 */
  gzipLevel?: number;
  /** pace each object download to this many bytes per second, like an object store's connections; default unpaced */
  objectBytesPerSecond?: number;
  /** where generated objects are cached; default a fresh folder in the OS temp dir */
  cacheDir?: string;
  /** share of log-table records delivered twice, as the service's at-least-once logs are; default 0 */
  duplicates?: number;
  clock?: Clock;
  logger?: Logger;
}

export interface RunningEmulator {
  /** gateway, e.g. http://127.0.0.1:43123 */
  baseUrl: string;
  /** the object host that pre-signed URLs point at */
  objectBaseUrl: string;
  dataPrefix: string;
  clientId: string;
  clientSecret: string;
  /** the sample namespaces (there is no list-namespaces endpoint) */
  namespaces: string[];
  requestLog: RequestLog;
  /** changes the pace of object downloads that start from now on (undefined: unpaced) */
  setObjectBytesPerSecond(bytesPerSecond: number | undefined): void;
  /**
   * Changes a table's schema (see schemaEvolution.ts) for jobs created from now on; an added
   * column has values in rows changed after commit time `at` (default the latest commit).
   * Returns the new version.
   */
  evolveTable(namespace: string, table: string, change: SchemaEvolution, at?: number): number;
  /** a table's current definition (its columns and schema version), for tests that compare with it */
  table(namespace: string, table: string): TableDef | undefined;
  /** closes both listeners and all sockets promptly, and removes cached objects */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host) && !options.allowNonLoopback) {
    throw new Error(`The emulator listens on loopback only; refusing host "${host}" (set allowNonLoopback to override).`);
  }
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? nullLogger;
  const seed = options.seed ?? 1;
  const prefix = (options.prefix ?? DEFAULT_DATA_PREFIX).replace(/^\/+|\/+$/g, '');
  if (!/^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) throw new Error(`Invalid data prefix "${options.prefix}".`);
  const clientId = options.clientId ?? `emu-${randomBytes(6).toString('hex')}`;
  const clientSecret = options.clientSecret ?? randomBytes(18).toString('base64url');
  const faultOptions = typeof options.faults === 'string' ? parseFaultSpec(options.faults) : (options.faults ?? {});
  const faults = new FaultInjector(faultOptions, seed);
  const catalog = new SampleCatalog({ rows: options.rows, namespaces: options.namespaces, canvasTables: options.canvasTables });
  if (options.duplicates !== undefined && !(options.duplicates >= 0 && options.duplicates <= 1)) {
    throw new Error(`duplicates must be a share from 0 to 1, not ${options.duplicates}.`);
  }
  const history = new ChangeHistory(seed, clock.now(), options.duplicates);
  const requestLog = new RequestLog();
  let bytesPerSecond = checkedPace(options.objectBytesPerSecond);

  const clients = new Map<string, ClientAccount>();
  clients.set(clientId, { secret: clientSecret, accountError: options.accountError });
  for (const c of options.extraCredentials ?? []) clients.set(c.clientId, { secret: c.clientSecret, accountError: c.accountError });

  const store = await ObjectStore.create({ history, logger, cacheDir: options.cacheDir, gzipLevel: options.gzipLevel });
  const jobs = new JobEngine({
    clock,
    jobDelayMs: options.jobDelayMs ?? 1500,
    jobTtlSec: options.jobTtlSec ?? 86_400,
    dedupeWindowSec: options.dedupeWindowSec ?? 600,
    rowsPerObject: options.rowsPerObject ?? 100_000,
    shouldFail: () => faults.roll('jobFail'),
    recordVariant: () => ({ hideExpiry: faults.roll('noExpiresAt'), extraFields: faults.roll('jobExtras') }),
    onExpire: (job) => store.evictJob(job),
  });
  let objectBaseUrl = '';
  const urls = new PresignedUrls(clock, options.urlTtlSec ?? 900, () => objectBaseUrl);

  const gatewayContext: GatewayContext = {
    prefix,
    clock,
    logger,
    clients,
    tokens: new TokenIssuer(clock, options.tokenTtlSec ?? 3600),
    catalog,
    history,
    jobs,
    limits: new RateLimits(clock, options.limits, (options.limitWindowSec ?? 60) * 1000),
    faults,
    urls,
    retryAfter: faultOptions.retryAfter ?? (options.retryAfter === false ? 'none' : 'seconds'),
    accountStatus: faultOptions.accountStatus ?? options.accountErrorStatus ?? 403,
    prepareObject: (id) => {
      const found = jobs.object(id);
      if (found) store.prepare(found.job, found.part);
    },
  };

  const timers = new Set<NodeJS.Timeout>();
  const delay = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const serve = (kind: 'gateway' | 'object') => async (req: IncomingMessage, res: ServerResponse) => {
    const entry: RequestLogEntry = {
      time: clock.now(),
      host: kind,
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0],
      status: 0,
      auth: 'none',
      credentialOnObjectUrl: false,
    };
    if (kind === 'object') {
      entry.credentialOnObjectUrl =
        req.headers.authorization !== undefined || req.headers['x-svcauth'] !== undefined || req.headers.cookie !== undefined;
      entry.operation = 'object';
    }
    res.on('close', () => {
      entry.status = res.statusCode;
      requestLog.add(entry);
    });
    const note = (fields: Partial<RequestLogEntry>): void => void Object.assign(entry, fields);
    try {
      const slow = faults.slowMs();
      if (slow > 0) await delay(slow);
      if (kind === 'gateway') await handleGateway(gatewayContext, req, res, note);
      else await handleObjectRequest({ jobs, store, urls, faults, logger, clock, bytesPerSecond }, req, res, note);
    } catch (err) {
      logger.error(`emulator: ${kind} request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendError(res, 500, 'InternalServerError', 'The emulator failed to answer this request.');
      else res.destroy();
    }
  };

  const gateway = createServer(serve('gateway'));
  const objects = createServer(serve('object'));
  const sockets = new Set<Socket>();
  for (const server of [gateway, objects]) {
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
  }
  await listen(gateway, options.port ?? 0, host);
  try {
    await listen(objects, options.objectPort ?? 0, host);
  } catch (err) {
    await new Promise<void>((resolve) => gateway.close(() => resolve()));
    await store.close();
    throw err;
  }
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const baseUrl = `http://${urlHost}:${(gateway.address() as AddressInfo).port}`;
  // listening on every address: links name this machine's loopback, an address a client can reach
  const linkHost = host === '0.0.0.0' ? '127.0.0.1' : /^[0:]+$/.test(host) ? '[::1]' : urlHost;
  objectBaseUrl = `http://${linkHost}:${(objects.address() as AddressInfo).port}`;
  logger.info(`emulator: gateway ${baseUrl}/${prefix}, objects ${objectBaseUrl}`);

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    objectBaseUrl,
    dataPrefix: prefix,
    clientId,
    clientSecret,
    namespaces: catalog.namespaces(),
    requestLog,
    setObjectBytesPerSecond: (value) => {
      bytesPerSecond = checkedPace(value);
    },
    table: (namespace, name) => catalog.table(namespace, name),
    evolveTable: (namespace, name, change, at) => {
      const table = catalog.table(namespace, name);
      if (!table) throw new Error(`There is no table ${namespace}.${name} in this emulator.`);
      const evolved = evolvedTable(table, change, at ?? history.latestCommit(clock.now()));
      catalog.replace(evolved);
      logger.info(`emulator: ${namespace}.${name} is now at schema version ${evolved.version} (${change})`);
      return evolved.version;
    },
    close: () =>
      (closing ??= (async () => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        const closed = Promise.all([gateway, objects].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
        for (const s of sockets) s.destroy();
        await closed;
        await store.close();
      })()),
  };
}

function checkedPace(bytesPerSecond: number | undefined): number | undefined {
  if (bytesPerSecond !== undefined && !(Number.isFinite(bytesPerSecond) && bytesPerSecond > 0)) {
    throw new Error(`objectBytesPerSecond must be a positive number, not ${bytesPerSecond}.`);
  }
  return bytesPerSecond;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

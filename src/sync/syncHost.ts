// The sync's child process (dist/syncHost.js): gets one request over IPC from the sync host
// client (see syncProtocol.ts), runs it and ends. A run builds a client for the connection
// from the request (credentials arrive in that message only), opens the target and syncs the
// tables, sending each progress event and finally the reports; a cancel message aborts the
// run, which leaves every table at its last complete sync. Reading the meta table opens the
// target read-only and closes it before answering, so the file is not held afterwards.

import { DataQueryClient } from '../client/dataQueryClient';
import { cancelledError, DqError, isDqError } from '../client/errors';
import { rateLedgerFolder } from '../client/rateLedgerFolder';
import { redact, type Logger } from '../core/logger';
import type { FromSyncHost, LogLevel, SyncRunRequest, SyncStateSummary, ToSyncHost } from './syncProtocol';
import type { TableSyncReport } from './syncReport';
import { runSync } from './syncRunner';
import { sourceIdentity } from './syncSource';
import { createTarget, parseTargetSpec } from './targetSpec';

/** How a table that needs a fresh snapshot gets one in the editor. */
const RESNAPSHOT_HINT = 'Take a fresh snapshot, which replaces the table: choose Resnapshot, or run the command again with resnapshot: true.';
/** The same for a table that came from another service, which may rather go to another target. */
const OTHER_SOURCE_HINT =
  "Take a fresh snapshot from this connection, which replaces the table: choose Resnapshot, or run the command again with resnapshot: true; or sync into another target (the dataQuery.sync.target setting).";
/** The same for a table synced from this service with other credentials: new ones of the same account, or another account's. */
const OTHER_CREDENTIALS_HINT =
  "If these are new credentials for the same account, take a fresh snapshot, which replaces the table: choose Resnapshot, or run the command again with resnapshot: true. If they are another account's, sync into another target (the dataQuery.sync.target setting).";

const HINTS: Record<string, string> = { otherSource: OTHER_SOURCE_HINT, otherCredentials: OTHER_CREDENTIALS_HINT };

const stop = new AbortController();

function send(message: FromSyncHost): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, undefined, () => resolve());
  });
}

/** Log lines go to the editor's log; nothing secret is in them, and redact is the last guard. */
const logger: Logger = {
  trace: () => undefined,
  debug: (m) => void log('debug', m),
  info: (m) => void log('info', m),
  warn: (m) => void log('warn', m),
  error: (m) => void log('error', m),
};

function log(level: LogLevel, message: string): Promise<void> {
  return send({ type: 'log', level, message: redact(message) });
}

async function run(request: SyncRunRequest): Promise<TableSyncReport[]> {
  const { service } = request;
  const spec = parseTargetSpec(request.target, { cwd: process.cwd(), env: process.env });
  const client = new DataQueryClient({
    baseUrl: service.baseUrl,
    dataPrefix: service.dataPrefix,
    scope: service.scope,
    allowInsecureHttp: service.allowInsecureHttp,
    credentials: async () => ({ clientId: service.clientId, clientSecret: service.clientSecret }),
    proxy: service.proxy,
    rateLimits: service.rateLimits,
    userAgent: service.userAgent,
    logger,
    // the editor's window and this run draw from one budget (the environment is the editor's)
    sharedBudgetFolder: rateLedgerFolder(process.env),
  });
  // an object store's endpoint and credentials come from the editor's environment (AWS_ENDPOINT_URL_S3, AWS_PROFILE)
  const target = createTarget(spec, { logger, workDir: request.workDir });
  try {
    await target.open(stop.signal);
    try {
      const reports = await runSync({
        client,
        target,
        // the editor names the source (the sample data's, or its connection's with the client tag)
        source: service.source ?? sourceIdentity({ baseUrl: service.baseUrl, dataPrefix: service.dataPrefix, scope: service.scope, clientId: service.clientId }),
        namespace: request.namespace,
        tables: request.tables,
        resnapshot: request.resnapshot,
        workDir: request.workDir,
        signal: stop.signal,
        onProgress: (progress) => void send({ type: 'progress', progress }),
        logger,
      });
      return reports.map((r) => (r.needsResnapshot && r.error ? { ...r, error: { ...r.error, hint: (r.error.reason && HINTS[r.error.reason]) ?? RESNAPSHOT_HINT } } : r));
    } finally {
      await target.close();
    }
  } finally {
    await client.close();
  }
}

async function listStates(targetText: string): Promise<SyncStateSummary[]> {
  const spec = parseTargetSpec(targetText, { cwd: process.cwd(), env: process.env });
  const target = createTarget(spec, { logger, readOnly: true });
  await target.open(stop.signal);
  try {
    return (await target.listStates()).map(({ schema: _schema, ...summary }) => summary);
  } finally {
    await target.close();
  }
}

async function serve(message: ToSyncHost): Promise<void> {
  try {
    if (message.type === 'run') await send({ type: 'reports', reports: await run(message.request) });
    else if (message.type === 'listStates') await send({ type: 'states', states: await listStates(message.target) });
  } catch (err) {
    const e = isDqError(err) ? err : new DqError('io', `The sync stopped: ${redact(err instanceof Error ? err.message : String(err))}`, { cause: err });
    await send({ type: 'error', error: { kind: stop.signal.aborted ? 'cancelled' : e.kind, message: e.message, hint: e.hint, uuid: e.uuid } });
  } finally {
    process.disconnect?.();
  }
}

let served = false;
process.on('message', (message: ToSyncHost) => {
  if (message.type === 'cancel') {
    stop.abort(cancelledError('The sync', { after: '.' }));
    return;
  }
  if (served) return;
  served = true;
  void serve(message);
});
// the editor went away: stop, so the target is left at its last complete run
process.on('disconnect', () => {
  stop.abort(new DqError('cancelled', 'The editor closed.'));
  setTimeout(() => process.exit(0), 5_000).unref();
});

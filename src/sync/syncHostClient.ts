// Runs syncs in a child process (dist/syncHost.js) so that the database engine's native code
// never runs in the caller's process: a crash there ends one run, not the editor. One process
// per request, started with the caller's own Node (the editor's Electron run as Node). A
// cancel asks the host to stop; a host that has not ended a few seconds later is killed, which
// leaves the target at its last complete run (each table is applied in one transaction).

import { fork, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cancelledError, DqError, type ErrorKind } from '../client/errors';
import { nullLogger, redact, type Logger } from '../core/logger';
import type { SyncProgress, TableSyncReport } from './syncReport';
import type { FromSyncHost, SyncRunRequest, SyncStateSummary, ToSyncHost } from './syncProtocol';

export interface SyncHostOptions {
  /** the host script: dist/syncHost.js in the extension */
  hostScript: string;
  /** the Node (or Electron run as Node) that runs the host; default process.execPath */
  execPath?: string;
  logger?: Logger;
  /** how long a cancelled host may take to end before it is killed; default 5 s */
  killAfterMs?: number;
}

const DEFAULT_KILL_AFTER_MS = 5_000;

type Answer = { type: 'reports'; reports: TableSyncReport[] } | { type: 'states'; states: SyncStateSummary[] };

export class SyncHostClient {
  private readonly logger: Logger;
  private readonly children = new Set<ChildProcess>();

  constructor(private readonly options: SyncHostOptions) {
    this.logger = options.logger ?? nullLogger;
  }

  /**
   * Syncs tables; resolves with one report per table (failed tables included). When `signal`
   * aborts, the tables not done yet are reported as cancelled.
   */
  async run(request: SyncRunRequest, onProgress: (progress: SyncProgress) => void = () => undefined, signal?: AbortSignal): Promise<TableSyncReport[]> {
    const seen = new Map<string, SyncProgress>();
    const track = (progress: SyncProgress): void => {
      seen.set(`${progress.namespace}.${progress.table}`, progress);
      onProgress(progress);
    };
    const answer = await this.request({ type: 'run', request }, track, signal, () => cancelledReports(request, seen));
    if (answer.type !== 'reports') throw new DqError('invalidResponse', 'The sync process answered something other than its reports.');
    return answer.reports;
  }

  /** The meta table's rows; the target is opened read-only and released before this resolves. */
  async listStates(target: string, signal?: AbortSignal): Promise<SyncStateSummary[]> {
    const answer = await this.request({ type: 'listStates', target }, () => undefined, signal);
    if (answer.type !== 'states') throw new DqError('invalidResponse', 'The sync process answered something other than the synced tables.');
    return answer.states;
  }

  /** Kills every host still running (the editor is closing); their targets stay at their last complete run. */
  dispose(): void {
    for (const child of this.children) child.kill('SIGKILL');
    this.children.clear();
  }

  private request(
    message: ToSyncHost,
    onProgress: (progress: SyncProgress) => void,
    signal: AbortSignal | undefined,
    whenKilled?: () => TableSyncReport[],
  ): Promise<Answer> {
    if (signal?.aborted) return Promise.reject(cancelledError('The sync', { after: ' before it started.' }));
    return new Promise<Answer>((resolve, reject) => {
      let answer: Answer | undefined;
      let failure: DqError | undefined;
      let killTimer: NodeJS.Timeout | undefined;
      let cancelled = false;
      const child = fork(this.options.hostScript, [], {
        execPath: this.options.execPath ?? process.execPath,
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'advanced',
      });
      this.children.add(child);
      if (child.stderr) createInterface({ input: child.stderr }).on('line', (line) => this.logger.debug(`sync: ${redact(line)}`));
      const onAbort = (): void => {
        cancelled = true;
        post(child, { type: 'cancel' });
        killTimer = setTimeout(() => {
          this.logger.warn(`The sync process ${child.pid} did not stop within ${Math.round(this.killAfter() / 1000)} s of the cancel; stopping it.`);
          child.kill('SIGKILL');
        }, this.killAfter());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      child.on('message', (m: FromSyncHost) => {
        switch (m.type) {
          case 'progress':
            onProgress(m.progress);
            return;
          case 'log':
            this.logger[m.level](redact(m.message));
            return;
          case 'error':
            failure = new DqError(toErrorKind(m.error.kind), m.error.message, { hint: m.error.hint, uuid: m.error.uuid });
            return;
          default:
            answer = m;
        }
      });
      child.once('error', (err) => {
        failure ??= new DqError('io', `The sync process could not start (${err.message}).`, { hint: 'Reinstall the extension if this persists.' });
      });
      child.once('exit', (code, how) => {
        clearTimeout(killTimer);
        signal?.removeEventListener('abort', onAbort);
        this.children.delete(child);
        if (answer) return resolve(answer);
        if (failure) return reject(failure);
        if (cancelled && whenKilled) return resolve({ type: 'reports', reports: whenKilled() });
        if (cancelled) return reject(cancelledError('The sync', { after: '.' }));
        reject(
          new DqError('io', `The sync process stopped unexpectedly (${how ?? `exit code ${code}`}).`, {
            hint: 'Each table stays at its last complete run: run the sync again to go on from there.',
          }),
        );
      });
      post(child, message);
    });
  }

  private killAfter(): number {
    return this.options.killAfterMs ?? DEFAULT_KILL_AFTER_MS;
  }
}

function post(child: ChildProcess, message: ToSyncHost): void {
  try {
    child.send(message);
  } catch {
    // the exit handler settles the request
  }
}

const KINDS: readonly ErrorKind[] = [
  'usage',
  'auth',
  'notFound',
  'validation',
  'snapshotRequired',
  'rateLimited',
  'account',
  'server',
  'invalidResponse',
  'network',
  'jobFailed',
  'jobExpired',
  'insecure',
  'io',
  'cancelled',
];

/** A kind named in a message from the host, as a DqError kind (`server` when unknown). */
export function toErrorKind(kind: string): ErrorKind {
  return (KINDS as readonly string[]).includes(kind) ? (kind as ErrorKind) : 'server';
}

/** Reports for a run whose host was killed after a cancel: every table not done is cancelled, its target unchanged. */
function cancelledReports(request: SyncRunRequest, seen: Map<string, SyncProgress>): TableSyncReport[] {
  const names = request.tables === 'all' ? [...seen.values()].map((p) => p.table) : request.tables;
  return names.map((table) => {
    const done = seen.get(`${request.namespace}.${table}`)?.report;
    return done ?? { namespace: request.namespace, table, outcome: 'cancelled', upserted: 0, deleted: 0, seconds: 0 };
  });
}

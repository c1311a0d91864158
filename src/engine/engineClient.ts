// The engine as the extension and the CLI use it. DuckDB runs in a child process started on
// first use and stopped after a quiet spell with nothing open in it (no result, no console
// holding it), so a native crash or a runaway query never takes the caller down. The client remembers what is open and registered: after an idle
// stop or a crash the next call starts a new process and reopens what it needs there.
// DuckDB in that process reads only in the folders it started with (engineHost.ts): the
// engine's own, those named in the options (the results' folder) and those of every file
// opened so far. A call naming a file elsewhere (a result saved in another folder, a synced
// database) waits for the requests running, then the process starts again with its folder
// added, and reopens what was open (a console's kept rows do not survive that).

import { fork, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { nullLogger, type Logger } from '../core/logger';
import { cancelledError, EngineError, isEngineError } from './engineErrors';
import type {
  AttachedDatabase,
  ChartSource,
  ExportSource,
  ExportTarget,
  FromHost,
  HostSettings,
  KeptSqlPage,
  Method,
  OpenedResult,
  Page,
  ColumnProfile,
  RequestParams,
  ResultProfile,
  RequestResults,
  ResultColumn,
  ResultSource,
  SqlPage,
  ToHost,
  View,
} from './engineProtocol';
import { SerialQueue } from '../core/serialQueue';
import { formatDuration } from '../core/durationText';
import type { ChartData, ChartSpec } from './chartProtocol';

export interface EngineOptions {
  /** the engine host script: dist/engineHost.js in the extension */
  hostScript: string;
  /** where the engine spills and keeps converted results (inside the extension's storage) */
  tempDir: string;
  /** DuckDB's memory limit; default 256 (queries beyond it spill to `tempDir` where they can) */
  memoryLimitMb?: number;
  /** default 2 */
  threads?: number;
  /** how much the kept copies of results may take on disk together, in MiB; default 4096, 0 keeps none */
  keptCopiesMb?: number;
  /** stop the process after this long without a call; default 5 minutes */
  idleMs?: number;
  /**
   * a cancelled request that has not ended this long after its cancel was sent means a process
   * that no longer answers (a query DuckDB does not interrupt): it is stopped, and the next
   * request starts it afresh; default 15 s
   */
  stuckAfterCancelMs?: number;
  logger?: Logger;
  /** folders whose files the engine reads (the results' folder), asked for as it starts: a file elsewhere costs a restart of the engine */
  readableFolders?: () => Promise<string[]>;
  /** the Node (or Electron run as Node) that runs the host; default process.execPath */
  execPath?: string;
}

export interface ProfileOptions {
  /** the columns to profile, by name (default all) */
  columns?: string[];
  /** each column's profile as it is done */
  onColumn?: (column: ColumnProfile) => void;
  /** rows of the result copied so far, while the profile waits for its copy */
  onRows?: (rows: number) => void;
  /**
   * a profile nobody waits on (the grid's strips): when the engine must restart to read files
   * in another folder, it is stopped at once (failing with `isYieldedToRestart`) rather than
   * holding the restart, and the file asked for, until it ends
   */
  background?: boolean;
}

/** The message of a background request stopped so that the engine could restart. */
const YIELDED = 'The SQL engine restarted to read files in another folder before this ended.';

/** What a background request the engine stopped so that it could restart fails with. */
export function yieldedToRestartError(): EngineError {
  return new EngineError('crashed', YIELDED);
}

/** Whether `err` is a background request the engine stopped to restart: asking again, once it has, is fine. */
export function isYieldedToRestart(err: unknown): boolean {
  return isEngineError(err) && err.kind === 'crashed' && err.message === YIELDED;
}

interface Pending {
  method: Method;
  resolve(value: unknown): void;
  reject(err: EngineError): void;
  onProgress?: (rows: number) => void;
  onPart?: (value: unknown) => void;
  cleanup(): void;
  /** the caller cancelled it: a process stopped under it answers it as cancelled */
  signal?: AbortSignal;
  /** stopped, not waited for, when the engine restarts to read files elsewhere */
  background?: boolean;
}

const DEFAULT_STUCK_AFTER_CANCEL_MS = 15_000;

const DEFAULT_IDLE_MS = 5 * 60_000;
export const DEFAULT_MEMORY_LIMIT_MB = 256;
export const DEFAULT_KEPT_COPIES_MB = 4096;

export class EngineClient {
  private child?: ChildProcess;
  private starting?: Promise<ChildProcess>;
  private nextId = 1;
  private nextHandle = 1;
  private readonly pending = new Map<number, Pending>();
  /** every open result, to reopen in a new process */
  private readonly sources = new Map<string, ResultSource>();
  /** the results open in the current process */
  private readonly opened = new Set<string>();
  private readonly views = new Map<string, ResultSource>();
  private idleTimer?: NodeJS.Timeout;
  /** callers that keep the process (and what they made in it) alive while they are open */
  private holds = 0;
  private disposed = false;
  private readonly logger: Logger;
  private memoryLimitMb: number;
  private keptCopiesMb: number;
  /** the folders DuckDB may read in the next process started */
  private readonly folders = new Set<string>();
  /** the folders the running process was started with */
  private hostFolders: string[] = [];
  /** widening the folders, one at a time */
  private readonly widening = new SerialQueue();
  /** the process stops to restart with wider folders once the requests it runs are answered */
  private restarting = false;
  /** called once no request is pending */
  private readonly drained: (() => void)[] = [];

  constructor(private readonly options: EngineOptions) {
    this.logger = options.logger ?? nullLogger;
    this.memoryLimitMb = options.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB;
    this.keptCopiesMb = options.keptCopiesMb ?? DEFAULT_KEPT_COPIES_MB;
  }

  /** The engine process's id while it runs. */
  get processId(): number | undefined {
    return this.child?.pid;
  }

  /** How many results are open (opened and not closed yet: each preview's, an export's while it runs). */
  get openResults(): number {
    return this.sources.size;
  }

  async open(source: ResultSource, signal?: AbortSignal): Promise<OpenedResult> {
    const handle = `r${this.nextHandle++}`;
    await this.readable(source.paths);
    const opened = await this.call('open', { handle, source }, signal);
    this.sources.set(handle, source);
    this.opened.add(handle);
    return opened;
  }

  async page(handle: string, view: View, offset: number, limit: number, signal?: AbortSignal): Promise<Page> {
    await this.reopen(handle, signal);
    return this.call('page', { handle, view, offset, limit }, signal);
  }

  /** The whole value of one cell of a view (pages carry long text values cut: CutValue). */
  async cell(handle: string, view: View, offset: number, column: number, signal?: AbortSignal): Promise<unknown> {
    await this.reopen(handle, signal);
    return this.call('cell', { handle, view, offset, column }, signal);
  }

  async count(handle: string, view: View, signal?: AbortSignal): Promise<number> {
    await this.reopen(handle, signal);
    return this.call('count', { handle, view }, signal);
  }

  /**
   * Column profiles of a view (all columns, or those named): `onColumn` gets each column's as
   * it is done, `onRows` the rows copied while the result's copy is made, which a profile waits for.
   */
  async profile(handle: string, view: View, options: ProfileOptions = {}, signal?: AbortSignal): Promise<ResultProfile> {
    // asked while the process is stopping for a restart, a background profile would hold it up: it waits for the new one
    if (options.background && this.restarting) await this.widening.idle();
    await this.reopen(handle, signal);
    const params = options.columns ? { handle, view, columns: options.columns } : { handle, view };
    return this.call('profile', params, signal, options.onRows, options.onColumn as ((value: unknown) => void) | undefined, options.background);
  }

  /** The profile of files not open in a preview: opened for it, and closed again however it ends. */
  async profileFiles(source: ResultSource, view: View, options: ProfileOptions = {}, signal?: AbortSignal): Promise<ResultProfile> {
    const { handle } = await this.open(source, signal);
    try {
      return await this.profile(handle, view, options, signal);
    } finally {
      await this.closeHandle(handle).catch(() => undefined);
    }
  }

  /**
   * The points of a chart of a view (or of a console statement's kept rows): as they are when
   * few, else grouped by the engine (resultChart.ts). `onRows` gets the rows copied while the
   * chart waits for the result's copy.
   */
  async chart(source: ChartSource, spec: ChartSpec, onRows?: (rows: number) => void, signal?: AbortSignal): Promise<ChartData> {
    if ('handle' in source) await this.reopen(source.handle, signal);
    return this.call('chart', { source, spec }, signal, onRows);
  }

  /** The chart of files not open in a preview: opened for it, and closed again however it ends. */
  async chartFiles(files: ResultSource, view: View, spec: ChartSpec, onRows?: (rows: number) => void, signal?: AbortSignal): Promise<ChartData> {
    const { handle } = await this.open(files, signal);
    try {
      return await this.chart({ handle, view }, spec, onRows, signal);
    } finally {
      await this.closeHandle(handle).catch(() => undefined);
    }
  }

  /** With `database`, the statement runs on that database file, attached read-only for it alone. */
  async sql(text: string, offset: number, limit: number, signal?: AbortSignal, database?: AttachedDatabase): Promise<SqlPage> {
    if (database) await this.readable([database.path]);
    return this.call('sql', database ? { text, offset, limit, database } : { text, offset, limit }, signal);
  }

  /**
   * A console statement run once, its rows kept in the engine once it has completed: the first
   * `limit` now, later ones and the count through `keptRows` and `keptCount`, until `dropKept`.
   */
  async sqlKept(text: string, limit: number, signal?: AbortSignal, database?: AttachedDatabase): Promise<KeptSqlPage & { id: string }> {
    const id = `k${this.nextHandle++}`;
    if (database) await this.readable([database.path]);
    const first = await this.call('sqlKept', database ? { id, text, limit, database } : { id, text, limit }, signal);
    return { ...first, id };
  }

  keptRows(id: string, offset: number, limit: number, signal?: AbortSignal): Promise<unknown[][]> {
    return this.call('keptRows', { id, offset, limit }, signal);
  }

  /** The whole value of one cell of a console statement's kept rows. */
  keptCell(id: string, offset: number, column: number, signal?: AbortSignal): Promise<unknown> {
    return this.call('keptCell', { id, offset, column }, signal);
  }

  keptCount(id: string, signal?: AbortSignal): Promise<number> {
    return this.call('keptCount', { id }, signal);
  }

  async dropKept(id: string): Promise<void> {
    // rows kept in a process that has stopped went with it
    if (this.child && !this.disposed) await this.call('dropKept', { id });
  }

  /** `<namespace>.<table>` and `<namespace>.<table>__<job id prefix>` views for the SQL console. */
  async registerView(name: string, source: ResultSource): Promise<void> {
    await this.readable(source.paths);
    await this.call('registerView', { name, source });
    this.views.set(name, source);
  }

  listViews(): Promise<{ name: string; columns: ResultColumn[] }[]> {
    return this.call('listViews', {});
  }

  async export(
    source: ExportSource,
    target: ExportTarget,
    onProgress?: (rows: number) => void,
    signal?: AbortSignal,
  ): Promise<{ rows: number; path: string }> {
    if ('handle' in source) await this.reopen(source.handle, signal);
    if ('sql' in source && source.database) await this.readable([source.database.path]);
    try {
      return await this.call('export', { source, target }, signal, onProgress);
    } catch (err) {
      // an engine that died mid-export cannot remove what it was writing beside the target
      if (isEngineError(err) && err.kind === 'crashed') await removePartial(target.path);
      throw err;
    }
  }

  /**
   * Copies a result into the engine's own table and keeps the copy (see keptCopies.ts), so its
   * first preview sorts and pages at once. Resolves when the copy is complete; cancellable.
   */
  async prepare(source: ResultSource, signal?: AbortSignal): Promise<{ rows: number; kept: boolean }> {
    await this.readable(source.paths);
    return this.call('prepare', { handle: `p${this.nextHandle++}`, source }, signal);
  }

  /** New settings: at once in a running engine, and for every later start. */
  async configure(changes: { memoryLimitMb?: number; keptCopiesMb?: number }): Promise<void> {
    const changed: typeof changes = {};
    if (changes.memoryLimitMb !== undefined && changes.memoryLimitMb !== this.memoryLimitMb) changed.memoryLimitMb = this.memoryLimitMb = changes.memoryLimitMb;
    if (changes.keptCopiesMb !== undefined && changes.keptCopiesMb !== this.keptCopiesMb) changed.keptCopiesMb = this.keptCopiesMb = changes.keptCopiesMb;
    if (Object.keys(changed).length > 0 && this.child && !this.disposed) await this.call('configure', changed);
  }

  /**
   * Keeps the process from its idle stop until the returned function is called: for a SQL
   * console, whose tables and settings live in the process.
   */
  hold(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      if (this.pending.size === 0) this.scheduleIdleStop();
    };
  }

  async closeHandle(handle: string): Promise<void> {
    this.sources.delete(handle);
    if (!this.opened.delete(handle) || !this.child) return;
    await this.call('closeHandle', { handle });
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.rejectAll(new EngineError('cancelled', 'The SQL engine was shut down.'));
    await this.stop();
  }

  /**
   * Makes `paths` readable by the engine: their folders join those of the next process, and a
   * running process that may not read them stops (once the requests it runs are answered), so
   * the next call starts one that may.
   */
  private readable(paths: readonly string[]): Promise<void> {
    return this.widening.run(async () => {
      const wanted = paths.map((path) => resolve(path));
      for (const path of wanted) if (!within(path, [...this.folders])) this.folders.add(dirname(path));
      // a process starting now may have been started without them
      if (this.starting) await this.starting.catch(() => undefined);
      const outside = wanted.filter((path) => !within(path, this.hostFolders));
      if (!this.child || outside.length === 0) return;
      this.logger.info(`SQL engine restarts to read files in ${[...new Set(outside.map((path) => dirname(path)))].join(', ')}`);
      this.restarting = true;
      try {
        this.stopBackground();
        if (this.pending.size > 0) await new Promise<void>((done) => this.drained.push(done));
        await this.stop();
      } finally {
        this.restarting = false;
      }
    });
  }

  /** Fails the background requests pending (the process they run in stops next), so that a restart waits only for the others. */
  private stopBackground(): void {
    for (const [id, pending] of this.pending) {
      if (!pending.background) continue;
      this.pending.delete(id);
      pending.cleanup();
      pending.reject(pending.signal?.aborted ? cancelledError() : yieldedToRestartError());
    }
    if (this.pending.size === 0) this.notifyDrained();
  }

  private async reopen(handle: string, signal?: AbortSignal): Promise<void> {
    const source = this.sources.get(handle);
    if (!source) throw new EngineError('io', 'This result is no longer open. Open it again.');
    if (this.opened.has(handle) && this.child) return;
    await this.call('open', { handle, source }, signal);
    this.opened.add(handle);
  }

  private async call<M extends Method>(
    method: M,
    params: RequestParams[M],
    signal?: AbortSignal,
    onProgress?: (rows: number) => void,
    onPart?: (value: unknown) => void,
    background?: boolean,
  ): Promise<RequestResults[M]> {
    if (this.disposed) throw new EngineError('cancelled', 'The SQL engine was shut down.');
    if (signal?.aborted) throw cancelledError();
    clearTimeout(this.idleTimer);
    const child = await this.ready();
    return this.request(child, method, params, signal, onProgress, onPart, background);
  }

  private request<M extends Method>(
    child: ChildProcess,
    method: M,
    params: RequestParams[M],
    signal?: AbortSignal,
    onProgress?: (rows: number) => void,
    onPart?: (value: unknown) => void,
    background?: boolean,
  ): Promise<RequestResults[M]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      let stuck: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        this.post(child, { type: 'cancel', id });
        stuck = setTimeout(() => this.stopStuck(child, id), this.options.stuckAfterCancelMs ?? DEFAULT_STUCK_AFTER_CANCEL_MS);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = (): void => {
        clearTimeout(stuck);
        signal?.removeEventListener('abort', onAbort);
      };
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, onProgress, onPart, cleanup, signal, background });
      this.post(child, { type: 'request', id, method, params });
      if (signal?.aborted) onAbort();
    });
  }

  /**
   * A request cancelled long ago is still running: the process no longer answers a cancel, and
   * everything after it would wait behind it. It is stopped; what it held (open results, the
   * console's kept rows) is opened again or asked for again by the next request.
   */
  private stopStuck(child: ChildProcess, id: number): void {
    if (!this.pending.has(id) || this.child !== child) return;
    const waited = formatDuration(this.options.stuckAfterCancelMs ?? DEFAULT_STUCK_AFTER_CANCEL_MS, 'long');
    this.logger.warn(`The SQL engine did not stop a cancelled ${this.pending.get(id)!.method} request within ${waited}; it is restarted (process ${child.pid}).`);
    child.kill('SIGKILL');
  }

  private post(child: ChildProcess, message: ToHost): void {
    try {
      child.send(message);
    } catch {
      // The exit handler rejects what is pending.
    }
  }

  private ready(): Promise<ChildProcess> {
    if (!this.starting) {
      this.starting = this.start();
      this.starting.catch(() => (this.starting = undefined));
    }
    return this.starting;
  }

  private async start(): Promise<ChildProcess> {
    const named = await (this.options.readableFolders?.() ?? Promise.resolve([])).catch((err: unknown) => {
      this.logger.warn(`The SQL engine starts without the results folder: ${err instanceof Error ? err.message : String(err)}`);
      return [] as string[];
    });
    for (const folder of named) if (!within(resolve(folder), [...this.folders])) this.folders.add(resolve(folder));
    const settings: HostSettings = {
      tempDir: this.options.tempDir,
      memoryLimitMb: this.memoryLimitMb,
      threads: this.options.threads ?? 2,
      keptCopiesMb: this.keptCopiesMb,
      readableFolders: [...this.folders],
    };
    this.hostFolders = settings.readableFolders;
    return new Promise((resolve, reject) => {
      const child = fork(this.options.hostScript, [JSON.stringify(settings)], {
        execPath: this.options.execPath ?? process.execPath,
        // the host frees the chunks a far read of a file passed right away (fileLines.ts)
        execArgv: [...process.execArgv, '--expose-gc'],
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'advanced',
      });
      if (child.stderr) createInterface({ input: child.stderr }).on('line', (line) => this.logger.debug(`engine: ${line}`));
      child.on('message', (message: FromHost) => {
        if (message.type === 'ready') void this.adopt(child).then(resolve);
        else if (message.type === 'failed') reject(new EngineError(message.kind, message.message));
        else this.receive(message);
      });
      child.once('error', (err) => reject(new EngineError('binding', `The SQL engine could not start (${err.message}).`)));
      child.once('exit', (code, signal) => {
        reject(new EngineError('crashed', `The SQL engine stopped while starting (${signal ?? `exit code ${code}`}).`));
        this.exited(child, signal ?? `exit code ${code}`);
      });
    });
  }

  /** Makes a started process the current one, and registers the console's views in it. */
  private async adopt(child: ChildProcess): Promise<ChildProcess> {
    this.child = child;
    this.opened.clear();
    this.logger.info(`SQL engine started (process ${child.pid})`);
    for (const [name, source] of this.views) {
      await this.request(child, 'registerView', { name, source }).catch((err: EngineError) =>
        this.logger.warn(`SQL console view ${name} is not available: ${err.message}`),
      );
    }
    return child;
  }

  private receive(message: FromHost): void {
    if (message.type === 'ready' || message.type === 'failed') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'progress') {
      pending.onProgress?.(message.rows);
      return;
    }
    if (message.type === 'part') {
      pending.onPart?.(message.value);
      return;
    }
    this.pending.delete(message.id);
    pending.cleanup();
    if (message.type === 'result') pending.resolve(message.result);
    else pending.reject(new EngineError(message.kind, message.message));
    if (this.pending.size === 0) {
      this.notifyDrained();
      this.scheduleIdleStop();
    }
  }

  private notifyDrained(): void {
    for (const done of this.drained.splice(0)) done();
  }

  private exited(child: ChildProcess, how: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.starting = undefined;
    this.opened.clear();
    if (this.pending.size === 0) return;
    this.logger.warn(`SQL engine stopped unexpectedly (${how})`);
    this.rejectAll(new EngineError('crashed', `The SQL engine stopped unexpectedly (${how}). Try again: the next action starts it afresh.`));
  }

  private rejectAll(err: EngineError): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      p.cleanup();
      p.reject(p.signal?.aborted ? cancelledError() : err);
    }
    this.notifyDrained();
  }

  /** Stops the process after the idle time, unless by then a result is open or a caller holds it. */
  private scheduleIdleStop(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      // an open result would lose its copy in progress (kept only once complete and closed)
      if (this.pending.size > 0 || this.sources.size > 0 || this.holds > 0) return;
      void this.stop();
    }, this.options.idleMs ?? DEFAULT_IDLE_MS);
    this.idleTimer.unref();
  }

  private async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const child = this.child;
    this.child = undefined;
    this.starting = undefined;
    this.opened.clear();
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.disconnect();
    else child.kill();
    await exited;
  }
}

/**
 * Removes what an export wrote beside its target before the engine died: `<target>.partial`
 * (resultExport.ts), and DuckDB's own `tmp_<target>.partial`, which it writes first when
 * that file is already there.
 */
async function removePartial(target: string): Promise<void> {
  const partial = `${target}.partial`;
  await Promise.all([partial, join(dirname(partial), `tmp_${basename(partial)}`)].map((file) => rm(file, { force: true }).catch(() => undefined)));
}

/** Whether `path` lies inside one of `folders`. */
function within(path: string, folders: readonly string[]): boolean {
  return folders.some((folder) => {
    const rel = relative(folder, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  });
}

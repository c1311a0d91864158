// The engine's child process: loads DuckDB (a native library: if it crashes or a query runs
// away, only this process suffers), opens one in-memory database with extension downloads
// off, and answers the engine client's requests over IPC (see engineProtocol.ts).

import { readdir, realpath, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadDuckDb, type DuckDbModule } from './duckdbModule';
import { toEngineError } from './engineErrors';
import type { FromHost, HostSettings, RequestParams, ToHost } from './engineProtocol';
import { KeptCopies } from './keptCopies';
import { ENGINE_SETTINGS, sandboxStatements } from './engineSettings';
import type { Work } from './engineWork';
import { ResultEngine } from './resultEngine';
import { isProcessRunning } from '../core/processAlive';
import { makeFolder } from '../core/makeFolder';

const INTERRUPT_REPEAT_MS = 50;

function send(message: FromHost): void {
  process.send?.(message);
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** What the extension does without DuckDB, after the loader's words naming the platform. */
const MISSING_LIBRARY_HINT =
  'Install the Data Query Explorer package built for this platform to preview results and use the SQL console; builds exist for Windows and macOS (x64, arm64) and Linux (x64, arm64, glibc and musl). ' +
  'Everything else in the extension keeps working.';

/** A private folder for spill files and converted results; folders of engines that died are removed. */
async function prepareWorkDir(tempDir: string): Promise<string> {
  await makeFolder(tempDir);
  for (const name of await readdir(tempDir)) {
    const pid = /^engine-(\d+)$/.exec(name)?.[1];
    if (pid && !isProcessRunning(Number(pid))) await rm(join(tempDir, name), { recursive: true, force: true });
  }
  const dir = join(tempDir, `engine-${process.pid}`);
  await makeFolder(dir);
  return dir;
}

/**
 * The folders DuckDB may read: the engine's own and those the client names, each also as its
 * real path (DuckDB judges a file by its real path: a folder under a link such as macOS's /tmp).
 */
async function readableFolders(settings: HostSettings): Promise<string[]> {
  const folders = [settings.tempDir, ...(settings.readableFolders ?? [])].map((folder) => resolve(folder));
  const real = await Promise.all(folders.map((folder) => realpath(folder).catch(() => folder)));
  return [...folders, ...real];
}

function dispatch(engine: ResultEngine, work: Work, method: keyof RequestParams, params: unknown): Promise<unknown> | unknown {
  switch (method) {
    case 'open': {
      const p = params as RequestParams['open'];
      return engine.open(work, p.handle, p.source);
    }
    case 'page': {
      const p = params as RequestParams['page'];
      return engine.page(work, p.handle, p.view, p.offset, p.limit);
    }
    case 'cell': {
      const p = params as RequestParams['cell'];
      return engine.cell(work, p.handle, p.view, p.offset, p.column);
    }
    case 'keptCell': {
      const p = params as RequestParams['keptCell'];
      return engine.consoleRows.cell(p.id, p.offset, p.column, work);
    }
    case 'count': {
      const p = params as RequestParams['count'];
      return engine.count(work, p.handle, p.view);
    }
    case 'sql': {
      const p = params as RequestParams['sql'];
      return engine.sql(work, p.text, p.offset, p.limit, p.database);
    }
    case 'sqlKept': {
      const p = params as RequestParams['sqlKept'];
      return engine.sqlKept(work, p.id, p.text, p.limit, p.database);
    }
    case 'keptRows': {
      const p = params as RequestParams['keptRows'];
      return engine.consoleRows.rows(p.id, p.offset, p.limit, work);
    }
    case 'keptCount':
      return engine.consoleRows.count((params as RequestParams['keptCount']).id, work);
    case 'dropKept':
      return engine.consoleRows.drop((params as RequestParams['dropKept']).id);
    case 'registerView': {
      const p = params as RequestParams['registerView'];
      return engine.registerView(work, p.name, p.source);
    }
    case 'listViews':
      return engine.listViews();
    case 'export': {
      const p = params as RequestParams['export'];
      return engine.export(work, p.source, p.target);
    }
    case 'closeHandle':
      return engine.closeHandle((params as RequestParams['closeHandle']).handle);
    case 'prepare': {
      const p = params as RequestParams['prepare'];
      return engine.prepare(work, p.handle, p.source);
    }
    case 'profile': {
      const p = params as RequestParams['profile'];
      return engine.profile(work, p.handle, p.view, p.columns);
    }
    case 'chart': {
      const p = params as RequestParams['chart'];
      return engine.chart(work, p.source, p.spec);
    }
    case 'configure':
      return engine.configure(params as RequestParams['configure']);
  }
}

async function main(): Promise<void> {
  const settings = JSON.parse(process.argv[2] ?? '{}') as HostSettings;
  let duckdb: DuckDbModule;
  try {
    duckdb = loadDuckDb();
  } catch (err) {
    send({ type: 'failed', kind: 'binding', message: `${toEngineError(err).message} ${MISSING_LIBRARY_HINT}` });
    process.disconnect?.();
    return;
  }
  const workDir = await prepareWorkDir(settings.tempDir);
  const db = await duckdb.DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    memory_limit: `${settings.memoryLimitMb}MB`,
    threads: String(settings.threads),
    temp_directory: join(workDir, 'spill'),
  });
  const setup = await db.connect();
  await setup.run("SET GLOBAL TimeZone = 'UTC'");
  for (const setting of ENGINE_SETTINGS) await setup.run(setting);
  for (const statement of sandboxStatements(await readableFolders(settings))) await setup.run(statement);
  setup.closeSync();
  const kept = new KeptCopies(join(settings.tempDir, 'copies'), settings.keptCopiesMb ?? 0, log);
  const engine = new ResultEngine(db, duckdb.StatementType as unknown as Record<number, string>, workDir, log, kept, settings.memoryLimitMb);

  const inFlight = new Map<number, Work>();
  const interrupters = new Map<number, NodeJS.Timeout>();
  const serve = async (id: number, method: keyof RequestParams, params: unknown): Promise<void> => {
    const work: Work = { cancelled: false, progress: (rows) => send({ type: 'progress', id, rows }), part: (value) => send({ type: 'part', id, value }) };
    inFlight.set(id, work);
    try {
      send({ type: 'result', id, result: await dispatch(engine, work, method, params) });
    } catch (err) {
      const e = toEngineError(err);
      send({ type: 'error', id, kind: e.kind, message: e.message });
    } finally {
      inFlight.delete(id);
      clearInterval(interrupters.get(id));
      interrupters.delete(id);
    }
  };
  // An interrupt that lands between queries is lost, so it repeats until the request ends.
  const cancel = (id: number): void => {
    const work = inFlight.get(id);
    if (!work || work.cancelled) return;
    work.cancelled = true;
    work.running?.interrupt();
    interrupters.set(id, setInterval(() => work.running?.interrupt(), INTERRUPT_REPEAT_MS));
  };
  process.on('message', (message: ToHost) => {
    if (message.type === 'request') void serve(message.id, message.method, message.params);
    else if (message.type === 'cancel') cancel(message.id);
  });
  process.on('disconnect', () => {
    for (const work of inFlight.values()) work.running?.interrupt();
    db.closeSync();
    void rm(workDir, { recursive: true, force: true }).finally(() => process.exit(0));
  });
  send({ type: 'ready' });
}

main().catch((err: unknown) => {
  const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  send({ type: 'failed', kind: 'binding', message: `The SQL engine could not start: ${reason}` });
  process.exitCode = 1;
  process.disconnect?.();
});

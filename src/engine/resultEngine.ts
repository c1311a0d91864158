// The engine's work inside its child process, on one in-memory DuckDB: the facade the engine
// host calls. Each request runs on its own connection, so cancelling one interrupts only that
// query (engineWork.ts). Its parts:
// - resultReader.ts: results opened as views over their files, their pages, windows and counts
//   (filePages.ts: pages and counts from the files while the copy is under way);
// - copyScheduler.ts: the background copy of each result into its table, giving way to
//   requests that read files;
// - damageChecks.ts: gzip files read to their end alongside the requests that read them whole;
// - consoleViews.ts and consoleStatements.ts: the SQL console's views and statements
//   (consoleRows.ts keeps a statement's rows);
// - attachedDatabases.ts: database files (synced databases) attached for the statements that use them;
// - resultExport.ts: exports to CSV and Parquet;
// - resultProfile.ts: column profiles of a result's view;
// - resultChart.ts: the points of a chart of a view or of a console statement's kept rows.
// Files opened without their table's schema are read as text (sourcePlan.ts). DuckDB reads and
// writes only in the engine's folder and the folders of the files opened (engineSettings.ts).

import type { DuckDBInstance } from '@duckdb/node-api';
import { AttachedDatabases } from './attachedDatabases';
import { ConsoleRows } from './consoleRows';
import { ConsoleStatements } from './consoleStatements';
import { ConsoleViews } from './consoleViews';
import { CopyScheduler } from './copyScheduler';
import { DamageChecks } from './damageChecks';
import type { AttachedDatabase, ChartSource, ExportSource, ExportTarget, KeptSqlPage, OpenedResult, Page, ResultColumn, ResultProfile, ResultSource, SqlPage, View } from './engineProtocol';
import { workRunner, type RunWork, type Work } from './engineWork';
import { FileEnds } from './fileEnds';
import { FilePages } from './filePages';
import type { KeptCopies } from './keptCopies';
import { ResultExport } from './resultExport';
import { planResult } from './resultPlan';
import { profileResult } from './resultProfile';
import { chartRelation, chartResult } from './resultChart';
import type { ChartData, ChartSpec } from './chartProtocol';
import { ResultReader } from './resultReader';
import { UnpackedFiles } from './unpackedFiles';

export class ResultEngine {
  /** SQL console statements' rows, kept once each has completed */
  readonly consoleRows: ConsoleRows;
  private readonly run: RunWork;
  /** gzip Parquet unpacked, for all results and views */
  private readonly unpacker: UnpackedFiles;
  private readonly reader: ResultReader;
  private readonly views: ConsoleViews;
  private readonly statements: ConsoleStatements;
  private readonly exporter: ResultExport;
  private readonly copies: CopyScheduler;

  constructor(
    private readonly db: DuckDBInstance,
    statementKinds: Record<number, string>,
    workDir: string,
    log: (message: string) => void,
    private readonly kept: KeptCopies,
    /** DuckDB's memory limit, as the engine started with it */
    private memoryLimitMb: number,
  ) {
    this.run = workRunner(db);
    this.unpacker = new UnpackedFiles(workDir);
    // gzip files read to their end, for all results and views
    const ends = new FileEnds(workDir);
    const databases = new AttachedDatabases(db, log);
    this.consoleRows = new ConsoleRows({ db, statementKinds, onDatabase: (conn, database, task) => databases.onDatabase(conn, database, task) });
    const checks = new DamageChecks(ends);
    const copies = (this.copies = new CopyScheduler(db, checks, log, () => this.reader.openResults(), () => this.setMemoryLimit()));
    const filePages = new FilePages(checks, copies, log);
    const catalogLock = <T>(task: () => Promise<T>): Promise<T> => databases.oneAtATime(task);
    this.reader = new ResultReader({ db, workDir, log, kept, run: this.run, unpacker: this.unpacker, checks, copies, filePages, catalogLock });
    this.views = new ConsoleViews(db, this.run, ends, this.unpacker, log);
    this.statements = new ConsoleStatements(this.run, statementKinds, this.views, this.consoleRows, databases);
    this.exporter = new ResultExport({ workDir, run: this.run, reader: this.reader, views: this.views, consoleRows: this.consoleRows, databases, copies, checks });
  }

  open(work: Work, id: string, source: ResultSource): Promise<OpenedResult> {
    return this.reader.open(work, id, source);
  }

  /**
   * Opens a result, waits until its copy is complete and closes it again, so the copy is kept
   * for its first preview. Cancelling stops the copy (nothing is kept).
   */
  prepare(work: Work, id: string, source: ResultSource): Promise<{ rows: number; kept: boolean }> {
    return this.reader.prepare(work, id, source);
  }

  /** Rows of a view; text values longer than CUT_CHARS come as their start and length (longValues.ts). */
  page(work: Work, id: string, view: View, offset: number, limit: number): Promise<Page> {
    return this.reader.page(work, id, view, offset, limit);
  }

  /** The whole value of one cell of a view: row `offset`, column `column` (by place). */
  cell(work: Work, id: string, view: View, offset: number, column: number): Promise<unknown> {
    return this.reader.cell(work, id, view, offset, column);
  }

  count(work: Work, id: string, view: View): Promise<number> {
    return this.reader.count(work, id, view);
  }

  /** Column profiles of a view, each sent as a part of the answer as it is done (resultProfile.ts). */
  profile(work: Work, id: string, view: View, columns?: string[]): Promise<ResultProfile> {
    return profileResult({ run: this.run, copies: this.copies }, work, this.reader.result(id), view, columns);
  }

  /** The points of a chart of a view or of a console statement's kept rows (resultChart.ts). */
  async chart(work: Work, source: ChartSource, spec: ChartSpec): Promise<ChartData> {
    if ('handle' in source) return chartResult({ run: this.run, copies: this.copies }, work, this.reader.result(source.handle), source.view ?? {}, spec);
    const kept = await this.consoleRows.relation(source.kept, work);
    return chartRelation(this.run, work, { sql: kept.sql, params: [] }, kept.columns, spec);
  }

  closeHandle(id: string): Promise<void> {
    return this.reader.closeHandle(id);
  }

  sql(work: Work, text: string, offset: number, limit: number, database?: AttachedDatabase): Promise<SqlPage> {
    return this.statements.sql(work, text, offset, limit, database);
  }

  /** A console statement, run once: its first `limit` rows now, the rest kept as `id` (consoleRows.ts). */
  sqlKept(work: Work, id: string, text: string, limit: number, database?: AttachedDatabase): Promise<KeptSqlPage> {
    return this.statements.sqlKept(work, id, text, limit, database);
  }

  /** `namespace.table` becomes view `table` in schema `namespace`, reading the files directly (consoleViews.ts). */
  async registerView(work: Work, name: string, source: ResultSource): Promise<void> {
    const plan = await planResult(work, source, this.unpacker, this.run);
    await this.views.register(work, name, plan);
  }

  listViews(): { name: string; columns: ResultColumn[] }[] {
    return this.views.list();
  }

  export(work: Work, source: ExportSource, target: ExportTarget): Promise<{ rows: number; path: string }> {
    return this.exporter.export(work, source, target);
  }

  /** Settings changed while the engine runs: DuckDB's memory limit, the kept copies' budget. */
  async configure(changes: { memoryLimitMb?: number; keptCopiesMb?: number }): Promise<void> {
    if (changes.keptCopiesMb !== undefined) {
      this.kept.budgetMb = changes.keptCopiesMb;
      await this.kept.trim(this.reader.openFiles());
    }
    if (changes.memoryLimitMb === undefined) return;
    this.memoryLimitMb = Math.floor(changes.memoryLimitMb);
    await this.setMemoryLimit();
  }

  /**
   * Sets DuckDB's memory limit (again). Setting it also hands the memory DuckDB's allocator
   * keeps of what was freed back to the system at once, which it otherwise does over about a
   * second: a process that had just copied four files of 128 MiB of JSONL went from 360 MiB to
   * 100 at once.
   */
  private async setMemoryLimit(): Promise<void> {
    const conn = await this.db.connect();
    try {
      await conn.run(`SET GLOBAL memory_limit = '${this.memoryLimitMb}MB'`);
    } finally {
      conn.closeSync();
    }
  }
}

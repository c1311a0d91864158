// The background copy of each open result into its table (resultStore.ts), file by file in the
// files' order, so a row's rowid is its place in the result; while a request waits for the copy
// to be complete (a profile), FILES_WHEN_HURRIED files at a time, which DuckDB reads on all its
// threads at once. The copy of a file gives way to any request that reads files (it is
// interrupted, and done again once no such request came for COPY_RESUMES_AFTER_MS), so such a
// request has the cores and the memory to itself.

import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { performance } from 'node:perf_hooks';
import { cancelledError, EngineError, toEngineError } from './engineErrors';
import type { Work } from './engineWork';
import type { DamageChecks } from './damageChecks';
import { allFiles, type OpenResult } from './openResult';

/** How often a wait for the copy reports the rows copied and looks for a cancel. */
export const PROGRESS_MS = 250;
/**
 * A copy that gave way resumes once no request has read results' files for this long, so a
 * burst of requests (far pages asked one after the other) has the cores to itself throughout.
 */
const COPY_RESUMES_AFTER_MS = 500;
/**
 * Files copied by one statement while a request waits for the copy: DuckDB reads one gzip file
 * on one thread, so several keep every thread busy, and fewer statements write less (16 files of
 * 128 MiB of JSONL took about 17 s of CPU four at a time against 22 s one by one).
 */
export const FILES_WHEN_HURRIED = 4;

export class CopyScheduler {
  /** requests reading results' files now: copies wait for them, so they have the cores and memory */
  private fileReaders = 0;
  private readonly fileReadersDone: (() => void)[] = [];
  /** runs out COPY_RESUMES_AFTER_MS after the last request reading files ended */
  private copiesWait?: NodeJS.Timeout;

  constructor(
    private readonly db: DuckDBInstance,
    private readonly checks: DamageChecks,
    private readonly log: (message: string) => void,
    /** the results open now, whose copies give way */
    private readonly openResults: () => Iterable<OpenResult>,
    /** hands the memory DuckDB's allocator keeps of what a statement freed back to the system */
    private readonly releaseMemory: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /**
   * Runs `task`, a request that reads results' files: the copy of a file under way gives way
   * (it is interrupted, and done again once no request reads files).
   */
  async readingFiles<T>(task: () => Promise<T>): Promise<T> {
    this.fileReaders++;
    for (const result of this.openResults()) {
      if (!result.copyingFile || !result.converting) continue;
      result.gaveWay = true;
      result.converting.interrupt();
    }
    try {
      return await task();
    } finally {
      if (--this.fileReaders === 0) this.resumeCopiesLater();
    }
  }

  /**
   * Waits until the result's copy is complete (or stopped: closed, damaged or failed), and
   * reports the rows copied as `progress`; `hurry`: meanwhile the copy copies several files at
   * a time. Cancellable; fails with the damage when the copy stopped at a damaged file.
   */
  async untilCopied(work: Work, result: OpenResult, progress?: (rows: number) => void, o: { hurry?: boolean } = {}): Promise<void> {
    if (result.store.complete) return;
    if (o.hurry) result.hurried++;
    let poll: NodeJS.Timeout | undefined;
    const cancelled = new Promise<void>((resolve) => {
      poll = setInterval(() => {
        if (work.cancelled) resolve();
        else progress?.(result.store.convertedRows);
      }, PROGRESS_MS);
    });
    try {
      await Promise.race([result.conversion, cancelled]);
    } finally {
      clearInterval(poll);
      if (o.hurry) result.hurried--;
    }
    if (work.cancelled) throw cancelledError();
    if (result.damage) throw result.damage;
  }

  /**
   * Waits as untilCopied does, for a request that reads only the copy (a chart, a profile):
   * fails unless the copy holds the whole result, with the damage of a damaged file, else with
   * an `io` error saying why the copy stopped.
   */
  async untilCopiedWhole(work: Work, result: OpenResult, progress?: (rows: number) => void, o: { hurry?: boolean } = {}): Promise<void> {
    await this.untilCopied(work, result, progress, o);
    if (result.copyFailure?.kind === 'corrupt') throw result.copyFailure;
    if (!result.store.complete) throw new EngineError('io', `The result could not be read whole: ${result.copyFailure?.message.replace(/\.$/, '') ?? 'it was closed'}.`);
  }

  /** Copies the result into its table in the background; requests read from it as it fills. */
  async convert(result: OpenResult): Promise<void> {
    let conn: DuckDBConnection | undefined;
    const started = performance.now();
    try {
      conn = await this.db.connect();
      result.converting = conn;
      if (result.closed) return;
      // the files copied are read to their end alongside, on another core: DuckDB would copy a
      // file cut short as a shorter one, and one cut mid-line fails as a malformed row (a
      // damaged file found is the result's damage: the copy stops there)
      const checks = { get cancelled() { return result.closed; } };
      const checked = <T>(files: number[], copy: () => Promise<T>): Promise<T> => this.checks.checkingEnds(result, files, checks, copy);
      await result.store.convert(conn, result.view, result.filesSql, {
        turn: async () => {
          // what the next statement allocates would otherwise come on top of what the last one freed
          await this.releaseMemory().catch(() => undefined);
          await Promise.race([this.filesFree(), new Promise<void>((resolve) => (result.closing = resolve))]);
        },
        filesAtOnce: () => (result.hurried > 0 ? FILES_WHEN_HURRIED : 1),
        copying: async (files, copy) => {
          result.copyingFile = true;
          result.gaveWay = false;
          try {
            return await checked(files, copy);
          } finally {
            result.copyingFile = false;
          }
        },
        // a JSONL file's rows are its records, which reading it to its end alongside counted
        rowsOf: (files) => Promise.all(files.map((file) => (result.lineWindows?.gzip ? this.checks.checkWhole(result, file, () => result.closed).catch(() => undefined) : undefined))),
        gaveWay: () => result.gaveWay,
        stopped: () => result.closed || result.damage !== undefined,
        // every file at once (a result without a schema)
        copyingAll: (copy) => checked(allFiles(result), copy),
      });
      if (result.store.complete) this.log(`result ${result.id}: ${result.store.convertedRows} rows copied in ${Math.round(performance.now() - started)} ms`);
      // and what reads the copy next (a profile waiting for it) on top of what the copy freed
      await this.releaseMemory().catch(() => undefined);
    } catch (err) {
      result.copyFailure = toEngineError(err);
      if (!result.closed) this.log(`result ${result.id} stays read from its files beyond row ${result.store.convertedRows}: ${result.copyFailure.message}`);
    } finally {
      result.converting = undefined;
      conn?.closeSync();
    }
  }

  /** Stops the result's copy (it is being closed) and waits until it has. */
  async stop(result: OpenResult): Promise<void> {
    result.converting?.interrupt();
    result.closing?.();
    await result.conversion;
  }

  private resumeCopiesLater(): void {
    clearTimeout(this.copiesWait);
    this.copiesWait = setTimeout(() => {
      this.copiesWait = undefined;
      if (this.fileReaders === 0) for (const done of this.fileReadersDone.splice(0)) done();
    }, COPY_RESUMES_AFTER_MS);
    this.copiesWait.unref();
  }

  /** Resolves once no request has read results' files for COPY_RESUMES_AFTER_MS. */
  private filesFree(): Promise<void> {
    return this.fileReaders === 0 && !this.copiesWait ? Promise.resolve() : new Promise((resolve) => this.fileReadersDone.push(resolve));
  }
}

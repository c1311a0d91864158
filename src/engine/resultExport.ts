// Exports of a result's view or of a console statement's rows to CSV or Parquet. Written into
// the engine's work folder (DuckDB may write nowhere else) and moved under its name when
// complete, so a cancelled export leaves no partial file under its name. A result's files are
// read to their end alongside (a damaged one fails the export); a sorted export of a result
// waits for its copy (reporting the rows copied). Columns are written in the source's order.

import { copyFile, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { AttachedDatabases } from './attachedDatabases';
import type { ConsoleRows } from './consoleRows';
import type { ConsoleViews } from './consoleViews';
import { PROGRESS_MS, type CopyScheduler } from './copyScheduler';
import { withServiceTimes } from './csvTimes';
import type { DamageChecks } from './damageChecks';
import { EngineError } from './engineErrors';
import type { ExportSource, ExportTarget } from './engineProtocol';
import type { RunWork, Work } from './engineWork';
import { allFiles } from './openResult';
import { viewQuery } from './resultQueries';
import type { ResultReader } from './resultReader';
import { quoteString } from './sqlText';
import { checkFilterValues, withUsersWhere } from './usersWhere';

/** What an export works with: the engine's folder and its other parts. */
export interface ExportParts {
  workDir: string;
  run: RunWork;
  reader: ResultReader;
  views: ConsoleViews;
  consoleRows: ConsoleRows;
  databases: AttachedDatabases;
  copies: CopyScheduler;
  checks: DamageChecks;
}

export class ResultExport {
  /** exports written so far, naming their partial files */
  private exports = 0;

  constructor(private readonly parts: ExportParts) {}

  async export(work: Work, source: ExportSource, target: ExportTarget): Promise<{ rows: number; path: string }> {
    const { reader, views, consoleRows, databases, copies, checks, run } = this.parts;
    const result = 'handle' in source ? reader.result(source.handle) : undefined;
    const view = 'handle' in source ? (source.view ?? {}) : {};
    const database = 'sql' in source ? source.database : undefined;
    const partial = join(this.parts.workDir, `export-${++this.exports}-${basename(target.path)}.partial`);
    const options = target.format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
    if (result?.damage) throw result.damage;
    const damage = 'sql' in source ? await views.checked(work, source.sql) : undefined;
    if (damage) throw damage;
    // the rows reported only go up: those copied while the export waits, then those written
    let reported = 0;
    const progress = (rows: number): void => {
      if (rows <= reported) return;
      reported = rows;
      work.progress(rows);
    };
    const exported = run(work, (conn) => databases.onDatabase(conn, database, async () => {
      if (result) await checkFilterValues(conn, view, result.columns);
      if (result && (view.sort ?? []).length > 0) await copies.untilCopied(work, result, progress);
      // a console statement's kept rows are written once they are all in
      const keptQuery = 'kept' in source ? await consoleRows.exportQuery(source.kept, work) : undefined;
      const query = result
        ? viewQuery(result, view)
        : { sql: keptQuery ?? withoutTrailingSemicolons((source as { sql: string }).sql), params: [], readsStore: false, readsFiles: false };
      const write = async (): Promise<number> => {
        const rows = target.format === 'csv' ? await withServiceTimes(conn, query.sql, query.params) : query.sql;
        return Number((await conn.runAndReadAll(`COPY (${rows}\n) TO ${quoteString(partial)} (${options})`, query.params)).getRowsJson()[0][0]);
      };
      const copy = async (): Promise<{ rows: number; path: string }> => {
        await conn.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
        const timer = setInterval(() => progress(Math.max(0, Number(conn.progress.rows_processed))), PROGRESS_MS);
        try {
          // put under its name only once the files it read are known to be whole
          const rows = await (result && query.readsFiles ? checks.checkingEnds(result, allFiles(result), work, write) : write());
          await putInPlace(partial, target.path);
          work.progress(rows);
          return { rows, path: target.path };
        } catch (err) {
          await rm(partial, { force: true });
          throw unwritable(err, partial, target.path) ?? err;
        } finally {
          clearInterval(timer);
        }
      };
      return result ? withUsersWhere(conn, view, result.columns, () => reader.reading(result, query, work, copy)) : copy();
    }), result ? 'files' : 'sql');
    return exported;
  }
}

/**
 * Puts a file written in the work folder under `target`: renamed, or on another disk copied
 * beside the target first, so no partial file is ever under its name.
 */
async function putInPlace(partial: string, target: string): Promise<void> {
  try {
    await rename(partial, target);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw cannotWrite(target, err);
  }
  const beside = `${target}.partial`;
  try {
    await copyFile(partial, beside);
    await rename(beside, target);
  } catch (err) {
    await rm(beside, { force: true }).catch(() => undefined);
    throw cannotWrite(target, err);
  } finally {
    await rm(partial, { force: true }).catch(() => undefined);
  }
}

const SYSTEM_REASONS: Record<string, string> = {
  ENOENT: 'No such file or directory',
  ENOTDIR: 'Not a directory',
  EACCES: 'Permission denied',
  EPERM: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
};

/** Why a file could not be written, told by the file the user chose: `reason` a system error's code or DuckDB's words. */
function cannotWrite(target: string, reason: unknown): EngineError {
  const code = typeof reason === 'string' ? reason : ((reason as NodeJS.ErrnoException).code ?? '');
  const words = SYSTEM_REASONS[code] ?? code;
  return new EngineError('io', `Cannot write ${target}${words ? ` (${words})` : ''}. Choose a folder that exists and that you may write to.`);
}

/** A failure to write the export's file, told by the file the user chose (not the one written first). */
function unwritable(err: unknown, partial: string, target: string): EngineError | undefined {
  const message = err instanceof Error ? err.message : String(err);
  const at = message.indexOf(partial);
  if (at < 0) return undefined;
  return cannotWrite(target, message.slice(at + partial.length).replace(/^["']?:?\s*/, '').split('\n')[0].trim());
}

function withoutTrailingSemicolons(sql: string): string {
  return sql.trim().replace(/(;\s*)+$/, '');
}

// The SQL console's views over jobs' files (`canvas.users`). A view's gzip files are read to
// their end in the background (fileEnds.ts, once per file); a statement naming the view waits
// for that, and a damaged view fails it naming the file.

import type { DuckDBInstance } from '@duckdb/node-api';
import { DAMAGED_VIEW_MARK, toEngineError, type EngineError } from './engineErrors';
import type { ResultColumn } from './engineProtocol';
import type { RunWork, Work } from './engineWork';
import { fileVersion, untilCancelled, type FileEnds } from './fileEnds';
import type { ResultPlan } from './resultPlan';
import { quoteIdent, quoteString } from './sqlText';
import type { UnpackedFiles } from './unpackedFiles';
import { SerialQueue } from '../core/serialQueue';

/** A view of the SQL console over a job's files (`canvas.users`). */
interface ConsoleView {
  name: string;
  /** the quoted schema and view */
  qualified: string;
  columns: ResultColumn[];
  /** what it reads: the plan's SELECT over its files */
  sql: string;
  /** its gzip files (JSONL, CSV, TSV), read to their end before a statement naming it runs */
  gzipFiles: string[];
  /** files unpacked for it */
  unpacked: string[];
  /** its gzip files read to their end: the damage found (the view was then replaced by one that fails naming it) */
  checked?: Promise<EngineError | undefined>;
  /** the versions of its files `checked` is about: a job downloaded again is checked again */
  checkedVersions?: string;
  /** it was replaced by one that fails naming the damage */
  failing?: boolean;
  /** a newer registration took its name */
  replaced: boolean;
}

export class ConsoleViews {
  private readonly views = new Map<string, ConsoleView>();
  /** console views are made and replaced one at a time */
  private readonly viewWork = new SerialQueue();

  constructor(
    private readonly db: DuckDBInstance,
    private readonly run: RunWork,
    private readonly ends: FileEnds,
    private readonly unpacker: UnpackedFiles,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * `namespace.table` becomes view `table` in schema `namespace`, reading the files of `plan`.
   * Its gzip files are read to their end in the background (a statement naming the view waits
   * for that): a damaged one makes the view fail, naming the file. A view registered again
   * lets go of what the one it replaces unpacked.
   */
  async register(work: Work, name: string, plan: ResultPlan): Promise<void> {
    const dot = name.indexOf('.');
    const schema = dot > 0 ? name.slice(0, dot) : undefined;
    const qualified = schema ? `${quoteIdent(schema)}.${quoteIdent(name.slice(dot + 1))}` : quoteIdent(name);
    const view: ConsoleView = { name, qualified, sql: plan.sql, columns: plan.columns, gzipFiles: plan.gzipFiles ?? [], unpacked: plan.unpacked, replaced: false };
    let replaced: ConsoleView | undefined;
    try {
      replaced = await this.run(work, (conn) => this.viewDdl(async () => {
        if (schema) await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
        await conn.run(`CREATE OR REPLACE VIEW ${qualified} AS ${plan.sql}`);
        const previous = this.views.get(name);
        this.views.set(name, view);
        if (previous) previous.replaced = true;
        return previous;
      }));
    } catch (err) {
      await this.unpacker.release(plan.unpacked);
      throw err;
    }
    await this.unpacker.release(replaced?.unpacked ?? []);
  }

  list(): { name: string; columns: ResultColumn[] }[] {
    return [...this.views.values()].map(({ name, columns }) => ({ name, columns }));
  }

  /**
   * Waits until the files of the console views a statement names are read to their end (a
   * damaged view then fails the statement, naming the file). A view counts as named when its
   * table's name appears in the text as a word: a wait too many costs no more than the wait.
   */
  async checked(work: Pick<Work, 'cancelled'>, text: string): Promise<EngineError | undefined> {
    const named = this.named(text);
    if (named.length === 0) return undefined;
    const damage = await untilCancelled(Promise.all(named.map((view) => this.checkView(view))), () => work.cancelled);
    return damage.find((d) => d !== undefined);
  }

  /** A view the statement names fails for damage now (its files, downloaded again, may be whole). */
  namesFailing(text: string): boolean {
    return this.named(text).some((view) => view.failing);
  }

  /** The console views over gzip files whose table a statement names. */
  private named(text: string): ConsoleView[] {
    return [...this.views.values()].filter((view) => view.gzipFiles.length > 0 && !view.replaced && mentions(text, view.name));
  }

  /**
   * Reads a console view's gzip files to their end, once for each version of them: the damage
   * found, if any. A damaged view is replaced by one that fails naming the file, and made again
   * once its files (downloaded again) are whole.
   */
  private async checkView(view: ConsoleView): Promise<EngineError | undefined> {
    const versions = (await Promise.all(view.gzipFiles.map(fileVersion))).join('\n');
    if (view.checked && view.checkedVersions === versions) return view.checked;
    view.checkedVersions = versions;
    const checked = (async (): Promise<EngineError | undefined> => {
      for (const path of view.gzipFiles) {
        try {
          await this.ends.records(path, () => view.replaced);
        } catch (err) {
          const e = toEngineError(err);
          // a file that cannot be read for another reason fails the statements that read it
          if (e.kind !== 'corrupt') return undefined;
          await this.failView(view, e);
          return e;
        }
      }
      if (view.failing) await this.mendView(view);
      return undefined;
    })();
    view.checked = checked;
    return checked;
  }

  /** Puts back the view of files found whole again (downloaded again after they were damaged). */
  private mendView(view: ConsoleView): Promise<void> {
    return this.redefineView(view, `CREATE OR REPLACE VIEW ${view.qualified} AS ${view.sql}`, false, 'its files are whole again', 'could not be made again');
  }

  /** Replaces a console view over a damaged file by one with its columns that fails naming the file. */
  private failView(view: ConsoleView, damage: EngineError): Promise<void> {
    const fails = `error(${quoteString(`${DAMAGED_VIEW_MARK}${view.name}: ${damage.message}`)}) IS NULL`;
    const nulls = view.columns.map((c) => `CAST(NULL AS ${c.sqlType}) AS ${quoteIdent(c.name)}`).join(', ');
    // a view whose columns DuckDB cannot cast to fails just the same without them
    const ddl = [`CREATE OR REPLACE VIEW ${view.qualified} AS SELECT ${nulls || 'NULL AS damaged'} WHERE ${fails}`, `CREATE OR REPLACE VIEW ${view.qualified} AS SELECT NULL AS damaged WHERE ${fails}`];
    return this.redefineView(view, ddl, true, damage.message, 'could not be marked damaged');
  }

  /**
   * Defines a console view anew (the first statement of `ddl` that DuckDB takes), in turn with
   * the other changes to views and not once a newer registration took its name; says so in the log.
   */
  private async redefineView(view: ConsoleView, ddl: string | string[], failing: boolean, done: string, failed: string): Promise<void> {
    const conn = await this.db.connect();
    try {
      await this.viewDdl(async () => {
        if (view.replaced) return;
        const [first, ...others] = typeof ddl === 'string' ? [ddl] : ddl;
        await others.reduce((tried, next) => tried.catch(() => conn.run(next)), conn.run(first));
        view.failing = failing;
      });
      this.log(`SQL console view ${view.name}: ${done}`);
    } catch (err) {
      this.log(`SQL console view ${view.name} ${failed}: ${toEngineError(err).message}`);
    } finally {
      conn.closeSync();
    }
  }

  /** Console views are made and replaced one at a time, so a view marked damaged never replaces a newer registration. */
  private viewDdl<T>(task: () => Promise<T>): Promise<T> {
    return this.viewWork.run(task);
  }
}

/**
 * Whether a statement's text names a console view (`canvas.users`: the schema, a dot, the
 * table, each quoted or not, in any case). A view is only found by its qualified name.
 */
function mentions(text: string, view: string): boolean {
  const dot = view.indexOf('.');
  const part = (name: string): string => `"?${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?`;
  const name = dot > 0 ? `${part(view.slice(0, dot))}\\s*\\.\\s*${part(view.slice(dot + 1))}` : part(view);
  return new RegExp(`(^|[^A-Za-z0-9_$])${name}($|[^A-Za-z0-9_$])`, 'i').test(text);
}

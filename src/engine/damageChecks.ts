// Damage checks of a result's gzip files. A gzip file cut short where its lines happen to be
// whole reads to DuckDB as a shorter file, and would be previewed short without a word: every
// request that reads a result's files to their end (a count, a sort, a filter page that reaches
// the view's end, an export, the copy) has them read to their end alongside (fileEnds.ts, once
// per file), and fails naming the damaged file. Once damage is known, such requests fail at
// once, and plain pages are served only where they lie before it.

import { isEngineError, toEngineError, type EngineError } from './engineErrors';
import type { Work } from './engineWork';
import type { FileEnds } from './fileEnds';
import { DamagedFile } from './fileLines';
import { allFiles, type OpenResult } from './openResult';

/** Files read to their end at the same time (each inflates on a thread of its own). */
export const FILES_AT_ONCE = 2;

export class DamageChecks {
  constructor(readonly ends: FileEnds) {}

  /**
   * Reads a gzip file of the result to its end (once for all requests, fileEnds.ts): its
   * records (non-blank lines). Fails as `corrupt` when it is cut short or garbled, and the
   * result then knows its damage.
   */
  async checkWhole(result: OpenResult, file: number, cancelled: () => boolean): Promise<number | undefined> {
    if (!result.gzipFiles) return undefined;
    try {
      return await this.ends.records(result.gzipFiles[file], cancelled);
    } catch (err) {
      if (isEngineError(err) && err.kind === 'corrupt' && (result.damagedFile === undefined || file < result.damagedFile)) {
        result.damage = err;
        result.damagedFile = file;
        // a JSONL file's whole lines before the damage are its rows there
        result.damagedFileRows = err instanceof DamagedFile && result.lineWindows ? err.records : undefined;
      }
      throw err;
    }
  }

  /**
   * Runs `task`, which reads the files, while the gzip ones among `files` are read to their end
   * on another core: damage found there is the answer, before the task's own answer or failure
   * (DuckDB counts a file cut short where its lines are whole as a shorter one, and reports one
   * cut mid-line as a malformed row).
   */
  async checkingEnds<T>(result: OpenResult, files: number[], work: Pick<Work, 'cancelled'>, task: () => Promise<T>): Promise<T> {
    const gzipFiles = result.gzipFiles;
    const whole = gzipFiles ? await Promise.all(files.map((file) => this.ends.isWhole(gzipFiles[file]))) : [];
    const unchecked = gzipFiles ? files.filter((_, i) => !whole[i]) : [];
    if (unchecked.length === 0) return task();
    let abandoned = false;
    const damage = this.damageIn(result, unchecked, () => work.cancelled || abandoned);
    let value: T;
    try {
      value = await task();
    } catch (err) {
      // a failure that damage may explain waits for the files' ends; another (a mistake, a cancel, memory) does not
      const kind = toEngineError(err).kind;
      if (kind === 'corrupt' || kind === 'io' || kind === 'schema') throw (await damage) ?? err;
      abandoned = true;
      throw err;
    }
    const found = await damage;
    if (found) throw found;
    return value;
  }

  /**
   * Runs `task`, which reads the files; when it fails on damaged data, the gzip files not yet
   * read to their end are, so that a file cut short is named as such rather than as a row
   * DuckDB could not parse.
   */
  async namingDamage<T>(result: OpenResult, work: Pick<Work, 'cancelled'>, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (err) {
      if (!result.gzipFiles || toEngineError(err).kind !== 'corrupt') throw err;
      throw (await this.damageIn(result, allFiles(result), () => work.cancelled || result.closed)) ?? err;
    }
  }

  /**
   * Reads the result's `files` to their end, FILES_AT_ONCE at a time: the damage found
   * (undefined when none). A file that could not be read to its end for another reason is left
   * to the request that reads it to judge.
   */
  private async damageIn(result: OpenResult, files: number[], cancelled: () => boolean): Promise<EngineError | undefined> {
    const queue = [...files];
    let found: EngineError | undefined;
    const reader = async (): Promise<void> => {
      for (let file = queue.shift(); file !== undefined && !found && !cancelled(); file = queue.shift()) {
        await this.checkWhole(result, file, cancelled).catch((err: unknown) => {
          const e = toEngineError(err);
          if (e.kind === 'corrupt') found ??= e;
        });
      }
    };
    await Promise.all(Array.from({ length: FILES_AT_ONCE }, reader));
    return found;
  }
}

/**
 * Each file's rows as far as they are known to lie before the damage: those of the damaged
 * file before it where known (else none), none after it.
 */
export function rowsBeforeDamage(result: OpenResult): (number | undefined)[] {
  const damaged = result.damagedFile ?? 0;
  return result.store.fileRows.map((rows, file) => (file < damaged ? rows : file === damaged ? (result.damagedFileRows ?? 0) : 0));
}

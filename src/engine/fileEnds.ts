// Gzip files read to their end, once per engine process and per version of each file. DuckDB
// reads a gzip file cut short where its lines happen to be whole as a shorter file, without a
// word, so whatever reads results' files through DuckDB (a count, a sort, a filter, an export,
// the copy, a console view) has them read to their end here as well, by Node's zlib on a
// thread of its own. Every reader of a file shares one read of it: a preview's count and page
// asked at once, the result's copy, the console's view of the same job. A file is known by
// its path, size and modification time, so one downloaded again is read again. A read that
// every caller stopped waiting for stops, and the next caller starts it afresh.

import { stat } from 'node:fs/promises';
import { EngineError, isEngineError } from './engineErrors';
import { countRecords } from './fileLines';

/** How often a caller waiting for a read looks whether it was cancelled. */
const CANCEL_POLL_MS = 50;

interface Read {
  /** path, size and modification time of the file read */
  version: string;
  /** callers waiting for it: none left stops it */
  waiting: number;
  records: Promise<number>;
  /** the read reached the file's end */
  whole: boolean;
}

export class FileEnds {
  private readonly reads = new Map<string, Read>();

  /**
   * The records (lines of more than white space) of a gzip file read to its end. Fails as
   * `corrupt` (a DamagedFile, fileLines.ts) when the file is cut short or garbled, `cancelled`
   * once `cancelled()` holds.
   */
  async records(path: string, cancelled: () => boolean): Promise<number> {
    const version = await fileVersion(path);
    let read = this.reads.get(path);
    if (!read || read.version !== version) read = this.start(path, version);
    read.waiting++;
    try {
      return await untilCancelled(read.records, cancelled);
    } finally {
      read.waiting--;
    }
  }

  /** Whether the file was read to its end and found whole (as it was then). */
  isWhole(path: string): boolean {
    return this.reads.get(path)?.whole === true;
  }

  private start(path: string, version: string): Read {
    const read: Read = { version, waiting: 0, whole: false, records: Promise.resolve(0) };
    read.records = countRecords(path, { gzip: true, cancelled: () => read.waiting === 0 });
    read.records.then(
      () => (read.whole = true),
      (err: unknown) => {
        // damage stays known for this version of the file; any other failure is tried again
        if (!(isEngineError(err) && err.kind === 'corrupt') && this.reads.get(path) === read) this.reads.delete(path);
      },
    );
    this.reads.set(path, read);
    return read;
  }
}

/** A file's size and modification time: another version of it is read again. */
export async function fileVersion(path: string): Promise<string> {
  try {
    const s = await stat(path);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    // the read itself fails and says why
    return 'unknown';
  }
}

/** `promise`, or a `cancelled` failure as soon as `cancelled()` holds. */
export function untilCancelled<T>(promise: Promise<T>, cancelled: () => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const poll = setInterval(() => {
      if (!cancelled()) return;
      clearInterval(poll);
      reject(new EngineError('cancelled', 'The query was cancelled.'));
    }, CANCEL_POLL_MS);
    promise.then(
      (value) => {
        clearInterval(poll);
        resolve(value);
      },
      (err: unknown) => {
        clearInterval(poll);
        reject(err);
      },
    );
  });
}

// Gzip files read to their end, once per engine process and per version of each file. DuckDB
// reads a gzip file cut short where its lines happen to be whole as a shorter file, without a
// word, so whatever reads results' files through DuckDB (a count, a sort, a filter, an export,
// the copy, a console view) has them read to their end here as well, by Node's zlib on a
// thread of its own. Every reader of a file shares one read of it: a preview's count and page
// asked at once, the result's copy, the console's view of the same job. A file is known by
// its path, size and modification time, so one downloaded again is read again. A read that
// every caller stopped waiting for stops, and the next caller starts one afresh.
// The read also leaves restart points in the file (gzipIndex.ts), so that a window of records
// far into it is read from near the window rather than from the file's start (fileLines.ts).

import { open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { cancelledError, isEngineError } from './engineErrors';
import { countRecords, damagedFile, type Restart } from './fileLines';
import { streamFrom, type GzipIndex } from './gzipIndex';
import type { IndexAnswer } from './gzipIndexWorker';

/** How often a caller waiting for a read looks whether it was cancelled. */
const CANCEL_POLL_MS = 50;
/** Files read to their end at the same time, whoever asks (each on a core of its own). */
const READS_AT_ONCE = 2;
/** The thread that reads a file to its end (built beside this module: dist/ or out/). */
const WORKER_SCRIPT = join(__dirname, 'gzipIndexWorker.js');

interface Read {
  /** path, size and modification time of the file read */
  version: string;
  /** callers waiting for it: none left stops it */
  waiting: number;
  records: Promise<number>;
  /** the read ended, one way or another */
  settled: boolean;
  /** the read reached the file's end */
  whole: boolean;
  /** its restart points, once whole (none for a file that could not be indexed) */
  index?: GzipIndex;
  /** the file its restart points' windows are written to */
  windows?: string;
}

export class FileEnds {
  private readonly reads = new Map<string, Read>();
  private readonly slots = new Slots(READS_AT_ONCE);
  private made = 0;

  /** `indexDir`: where the windows of restart points go (the engine's work folder); none: no restart points. */
  constructor(private readonly indexDir?: string) {}

  /**
   * The records (lines of more than white space) of a gzip file read to its end. Fails as
   * `corrupt` (a DamagedFile, fileLines.ts) when the file is cut short or garbled, `cancelled`
   * once `cancelled()` holds.
   */
  async records(path: string, cancelled: () => boolean): Promise<number> {
    const version = await fileVersion(path);
    let read = this.reads.get(path);
    // a read that every caller left is stopping: a new caller does not join it
    if (!read || read.version !== version || (read.waiting === 0 && !read.settled)) read = this.start(path, version);
    read.waiting++;
    try {
      return await untilCancelled(read.records, cancelled);
    } finally {
      read.waiting--;
    }
  }

  /** Whether the file, as it is now, was read to its end and found whole. */
  async isWhole(path: string): Promise<boolean> {
    const read = this.reads.get(path);
    return read?.whole === true && read.version === (await fileVersion(path));
  }

  /**
   * Where to read the file from to reach record `record` (counted from 0) without reading
   * what comes long before it: the decompressed bytes from the last restart point before the
   * record, once the file as it is now was read whole. Undefined when there is none.
   */
  async restartAt(path: string, record: number): Promise<Restart | undefined> {
    const read = this.reads.get(path);
    const index = read?.index;
    if (!read?.whole || !index) return undefined;
    let found: GzipIndex['checkpoints'][number] | undefined;
    for (const checkpoint of index.checkpoints) {
      if (checkpoint.records > record) break;
      found = checkpoint;
    }
    if (!found) return undefined;
    // the file opened, then known to be the version indexed: one replaced meanwhile is not read with its points
    const file = await open(path, 'r');
    try {
      const s = await file.stat();
      if (`${s.size}:${s.mtimeMs}` !== read.version) {
        await file.close();
        return undefined;
      }
      const stream: Readable = await streamFrom(file, index, found);
      return { stream, skip: found.skip, records: found.records, total: index.records };
    } catch (err) {
      await file.close().catch(() => undefined);
      throw err;
    }
  }

  private start(path: string, version: string): Read {
    const previous = this.reads.get(path);
    const windows = this.indexDir === undefined ? undefined : join(this.indexDir, `gzip-index-${++this.made}.bin`);
    const read: Read = { version, waiting: 0, settled: false, whole: false, records: Promise.resolve(0), windows };
    read.records = this.slots.taken(() => read.waiting === 0, () => readToEnd(path, windows, () => read.waiting === 0)).then(async (done) => {
      read.index = done.index;
      // a file that could not be indexed (several members, bytes after its end) keeps no windows
      if (!done.index) await forget(read);
      return done.records;
    });
    read.records.then(
      () => {
        read.settled = true;
        read.whole = true;
        // a newer read took its place while it ran: its restart points are of no use
        if (this.reads.get(path) !== read) void forget(read);
      },
      (err: unknown) => {
        read.settled = true;
        void forget(read);
        // damage stays known for this version of the file; any other failure is tried again
        if (!(isEngineError(err) && err.kind === 'corrupt') && this.reads.get(path) === read) this.reads.delete(path);
      },
    );
    this.reads.set(path, read);
    if (previous?.settled) void forget(previous);
    return read;
  }
}

/** Deletes the windows of a read's restart points. */
async function forget(read: Read): Promise<void> {
  read.index = undefined;
  if (read.windows) await rm(read.windows, { force: true }).catch(() => undefined);
}

/**
 * Reads a gzip file to its end on a thread of its own, indexing it when `windows` is given;
 * where no thread can do that, by a stream through zlib, without an index.
 */
function readToEnd(path: string, windows: string | undefined, cancelled: () => boolean): Promise<{ records: number; index?: GzipIndex }> {
  const plain = async (): Promise<{ records: number }> => ({ records: await countRecords(path, { gzip: true, cancelled }) });
  if (windows === undefined) return plain();
  return new Promise<IndexAnswer | undefined>((resolve, reject) => {
    let worker: Worker;
    try {
      // none of the engine's own options (a preloaded module, an inspector): the thread only inflates
      worker = new Worker(WORKER_SCRIPT, { workerData: { path, windows }, execArgv: [] });
    } catch {
      resolve(undefined);
      return;
    }
    let answered = false;
    const poll = setInterval(() => {
      if (!cancelled()) return;
      answered = true;
      clearInterval(poll);
      // settled once the thread is gone, so that its windows file is not written after it is deleted
      const stopped = (): void => reject(cancelledError());
      worker.terminate().then(stopped, stopped);
    }, CANCEL_POLL_MS);
    const settle = (answer: IndexAnswer | undefined): void => {
      if (answered) return;
      answered = true;
      clearInterval(poll);
      resolve(answer);
    };
    worker.once('message', (answer: IndexAnswer) => settle(answer));
    // a thread that could not start or died answers nothing: the file is read without it
    worker.once('error', () => settle(undefined));
    worker.once('exit', () => settle(undefined));
  }).then((answer) => {
    if (answer && 'read' in answer) return answer.read;
    if (answer && 'damage' in answer) throw damagedFile(path, answer.damage.code, answer.damage.records);
    return plain();
  });
}

/** A few turns at reading files to their end; a caller waits for one, or gives up when cancelled. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(count: number) {
    this.free = count;
  }

  /** Runs `task` in a turn of its own; fails as `cancelled` when `cancelled()` holds before the turn comes. */
  async taken<T>(cancelled: () => boolean, task: () => Promise<T>): Promise<T> {
    await this.take(cancelled);
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }

  private take(cancelled: () => boolean): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const turn = (): void => {
        clearInterval(poll);
        resolve();
      };
      const poll = setInterval(() => {
        if (!cancelled()) return;
        clearInterval(poll);
        this.waiting.splice(this.waiting.indexOf(turn), 1);
        reject(cancelledError());
      }, CANCEL_POLL_MS);
      this.waiting.push(turn);
    });
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
      reject(cancelledError());
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

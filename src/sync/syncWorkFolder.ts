// Where one table's sync keeps a job's result files while the target applies them: a private
// folder, `dq-sync-<pid>-<random>`, holding the objects as the service sent them (gzip, never
// decompressed), removed when the table is done, whether it succeeded or not. Folders left by
// a process that was killed are removed by the next run. Before a target reads the files,
// each one is checked to be whole gzip: a stream that merely stops at a line's end would
// otherwise load as fewer rows without a word.

import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { cancelledError, DqError, isCancelled } from '../client/errors';
import { asLocalIoError } from '../client/localIoError';
import { isProcessRunning } from '../core/processAlive';
import { makeFolder } from '../core/makeFolder';

const PREFIX = 'dq-sync-';
/** files checked at once */
const CHECKS_AT_ONCE = 2;
/**
 * Bytes read, and inflated, per step of a check: at zlib's default of 16 KiB each step's trip to
 * the thread pool costs more than the inflating, and the check takes twice as long.
 */
const CHECK_CHUNK = 1024 * 1024;

/** Makes a fresh work folder under `parent`, first removing those of processes that have ended. */
export async function makeWorkFolder(parent: string): Promise<string> {
  try {
    await makeFolder(parent);
    await removeAbandoned(parent);
    return await mkdtemp(path.join(parent, `${PREFIX}${process.pid}-`));
  } catch (err) {
    throw asLocalIoError(err, parent, 'make a folder for the downloads of a sync');
  }
}

export async function removeWorkFolder(folder: string): Promise<void> {
  await rm(folder, { recursive: true, force: true }).catch(() => undefined);
}

async function removeAbandoned(parent: string): Promise<void> {
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const pid = new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid && Number(pid) !== process.pid && !isProcessRunning(Number(pid))) await removeWorkFolder(path.join(parent, name));
  }
}

/** Reads every file through gunzip to its end (CRC and length included); throws for the first that is not whole. */
export async function checkGzipFiles(files: readonly { path: string; gzip: boolean }[], signal?: AbortSignal): Promise<void> {
  const queue = files.filter((f) => f.gzip);
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file; file = queue.shift()) await checkGzip(file.path, signal);
  };
  await Promise.all(Array.from({ length: Math.min(CHECKS_AT_ONCE, queue.length) }, worker));
}

async function checkGzip(file: string, signal?: AbortSignal): Promise<void> {
  const discard = new Writable({ highWaterMark: CHECK_CHUNK, write: (_chunk, _encoding, done) => done() });
  try {
    await pipeline(createReadStream(file, { highWaterMark: CHECK_CHUNK }), createGunzip({ chunkSize: CHECK_CHUNK }), discard, { signal });
  } catch (err) {
    if (signal?.aborted || isCancelled(err)) throw cancelledError('The sync', { after: ' while checking the downloaded files.' });
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && !code.startsWith('Z_')) throw asLocalIoError(err, path.dirname(file), 'read a downloaded result file');
    throw new DqError('invalidResponse', `A result file of the job, ${path.basename(file)}, is not whole gzip (${err instanceof Error ? err.message : String(err)}).`, {
      hint: 'Sync the table again; if it fails the same way, report the table to the provider.',
      cause: err,
    });
  }
}

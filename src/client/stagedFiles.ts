// The last step of a download: moving a job's complete, verified files from their staging
// names to their final names, all or nothing as far as the file system allows.
//
// A final name that already holds the same bytes (an earlier or concurrent download of the
// same job) is left as it is and the staged copy goes. A final name that holds other bytes is
// moved aside to a hidden backup of this run until every file of the job is in place, and
// only then removed. When any step fails, the files already moved are taken back out, the
// backups return to their names and the staged copies go: the folder is as it was before.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runFilePath } from '../core/paths';
import type { Logger } from '../core/logger';
import { DqError } from './errors';
import { asLocalIoError } from './localIoError';
import type { DownloadedFile } from './types';

/** A complete, verified object still under its staging name. */
export interface StagedFile {
  stagingPath: string;
  file: DownloadedFile;
}

interface Placed {
  finalPath: string;
  /** where an earlier, different file under the final name waits until the job is in place */
  backup?: string;
  /** whether the staged file now sits under the final name */
  moved: boolean;
}

export async function commitStagedFiles(dir: string, runId: string, staged: readonly StagedFile[], logger: Logger): Promise<void> {
  const placed: Placed[] = [];
  try {
    for (const s of staged) {
      const p: Placed = { finalPath: s.file.path, moved: false };
      placed.push(p);
      const existing = await existingFile(s);
      if (existing === 'same') {
        await fs.rm(s.stagingPath, { force: true });
        continue;
      }
      if (existing === 'other') {
        p.backup = runFilePath(dir, path.basename(p.finalPath), runId, 'old');
        await fs.rename(p.finalPath, p.backup);
      }
      await fs.rename(s.stagingPath, p.finalPath);
      p.moved = true;
    }
  } catch (err) {
    await rollBack(placed, logger);
    await Promise.all(staged.map((s) => fs.rm(s.stagingPath, { force: true }).catch(() => undefined)));
    throw asLocalIoError(err, dir, 'put the downloaded files in place');
  }
  for (const p of placed) {
    if (p.backup) await fs.rm(p.backup, { force: true }).catch((err: unknown) => logger.warn(`could not remove ${p.backup}: ${String(err)}`));
  }
}

async function rollBack(placed: readonly Placed[], logger: Logger): Promise<void> {
  for (const p of [...placed].reverse()) {
    try {
      if (p.moved) await fs.rm(p.finalPath, { force: true });
      if (p.backup) await fs.rename(p.backup, p.finalPath);
    } catch (err) {
      logger.warn(`could not restore ${p.finalPath}: ${String(err)}`);
    }
  }
}

/** What the final name holds now: nothing, a file with exactly the staged bytes, or another file. */
async function existingFile({ file, stagingPath }: StagedFile): Promise<'none' | 'same' | 'other'> {
  const stat = await fs.lstat(file.path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!stat) return 'none';
  if (!stat.isFile()) {
    throw new DqError('io', `Could not put a downloaded file in place: ${file.path} exists and is not a file`, {
      operation: 'download',
      details: { dir: path.dirname(file.path) },
      hint: 'Move it away, or download to another folder.',
    });
  }
  const same = stat.size === file.bytes && (await sameBytes(file.path, stagingPath));
  return same ? 'same' : 'other';
}

const COMPARED_BYTES = 256 * 1024;

/** Whether two files of the same size hold the same bytes, read side by side. */
async function sameBytes(a: string, b: string): Promise<boolean> {
  const [fa, fb] = await Promise.all([fs.open(a, 'r'), fs.open(b, 'r')]);
  try {
    const ba = Buffer.allocUnsafe(COMPARED_BYTES);
    const bb = Buffer.allocUnsafe(COMPARED_BYTES);
    for (let position = 0; ; position += COMPARED_BYTES) {
      const [ra, rb] = await Promise.all([fa.read(ba, 0, COMPARED_BYTES, position), fb.read(bb, 0, COMPARED_BYTES, position)]);
      if (ra.bytesRead !== rb.bytesRead) return false;
      if (ra.bytesRead === 0) return true;
      if (ba.compare(bb, 0, rb.bytesRead, 0, ra.bytesRead) !== 0) return false;
    }
  } finally {
    await Promise.all([fa.close(), fb.close()]);
  }
}


// A job's own files in its folder, known by the names the downloader gives them
// (objectDownloader.ts, stagedFiles.ts): its result files `part-<index>-<hash of object id>`
// with any result extension (a download decompressed or not), the hidden staging files
// `.<part>.<run id>.part` of a download that was killed before it finished, and the hidden
// backups `.<part file>.<run id>.old` of one killed while it put its files in place. Only
// names built from this job's own object ids match; nothing else in a folder is touched, and
// staging files written to in the last minutes are left: another download may be using them.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '../core/logger';
import { objectFileBaseName, resultFileExtension } from '../core/paths';

/** Every extension a result file can have: each format (or unknown), gzip or not. */
const RESULT_EXTENSIONS: ReadonlySet<string> = new Set(
  ['jsonl', 'csv', 'tsv', 'parquet', undefined].flatMap((format) => [resultFileExtension(format, false), resultFileExtension(format, true)]),
);
/** What follows a part's name in a staging or backup file: `.<run id>.part` or `<extension>.<run id>.old`. */
const RUN_FILE_TAIL = /^(.*)\.[0-9a-f]+\.(part|old)$/;

type OwnFile = 'result' | 'staging';

/**
 * A staging file written to this recently may belong to a download still running (another
 * window, or `dq`, into the same folder): it is left for a later clean-up.
 */
export const STAGING_IN_USE_MS = 10 * 60_000;

/**
 * Removes the staging leftovers of earlier, interrupted downloads of a job from its folder,
 * so a new download does not sit beside them. Returns the names removed.
 */
export async function removeStagingLeftovers(dir: string, objectIds: readonly string[], logger: Logger): Promise<string[]> {
  const removed = await removeOwnFiles(dir, objectIds, (kind) => kind === 'staging', logger);
  if (removed.length > 0) logger.info(`Removed ${removed.length} leftover file(s) of interrupted downloads from ${dir}.`);
  return removed;
}

/**
 * Removes a job's files: the ones listed, and in their folders (and `alsoIn`) every result
 * file of the job's objects (those of an earlier download too) and its staging leftovers; a
 * folder left empty goes as well.
 */
export async function removeJobFiles(listed: readonly string[], objectIds: readonly string[], alsoIn: readonly string[], logger: Logger): Promise<void> {
  await Promise.all(listed.map((file) => fs.rm(file, { force: true })));
  const folders = new Set([...listed.map((file) => path.dirname(file)), ...alsoIn]);
  for (const folder of folders) {
    await removeOwnFiles(folder, objectIds, () => true, logger);
    await fs.rmdir(folder).catch(() => undefined); // only when empty
  }
}

async function removeOwnFiles(dir: string, objectIds: readonly string[], wanted: (kind: OwnFile) => boolean, logger: Logger): Promise<string[]> {
  if (objectIds.length === 0) return [];
  const bases = new Set(objectIds.map((id, index) => objectFileBaseName(id, index)));
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn(`Could not look for leftover download files in ${dir}: ${errorText(err)}`);
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const kind = ownFileKind(name, bases);
    if (!kind || !wanted(kind)) continue;
    try {
      const stat = await fs.lstat(path.join(dir, name));
      if (!stat.isFile()) continue;
      if (kind === 'staging' && Date.now() - stat.mtimeMs < STAGING_IN_USE_MS) continue;
      await fs.rm(path.join(dir, name), { force: true });
      removed.push(name);
    } catch (err) {
      // e.g. a file another program holds open on Windows: left for next time
      logger.warn(`Could not remove ${path.join(dir, name)}: ${errorText(err)}`);
    }
  }
  return removed;
}

/** Whether `name` is one of the job's result files, one of its staging leftovers, or neither. */
function ownFileKind(name: string, bases: ReadonlySet<string>): OwnFile | undefined {
  const hidden = name.startsWith('.');
  const bare = hidden ? name.slice(1) : name;
  const dot = bare.indexOf('.');
  if (dot <= 0 || !bases.has(bare.slice(0, dot))) return undefined;
  const tail = bare.slice(dot);
  if (!hidden) return RESULT_EXTENSIONS.has(tail) ? 'result' : undefined;
  const run = RUN_FILE_TAIL.exec(tail);
  if (!run) return undefined;
  const [, extension, role] = run;
  const matches = role === 'part' ? extension === '' : RESULT_EXTENSIONS.has(extension);
  return matches ? 'staging' : undefined;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

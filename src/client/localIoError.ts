// Failures of the local file system (disk full, file-size limit, permission denied,
// read-only, too many open files) as DqErrors of kind `io`: never retried, naming the folder
// and saying what to do about it. Nothing here is a network problem.

import { DqError, isDqError } from './errors';
import { errorCode } from './retryPolicy';

interface Problem {
  what: string;
  hint: string;
}

const SPACE: Problem = { what: 'the disk is full', hint: 'Free some space there, or download to another folder.' };
const PERMISSION: Problem = {
  what: 'permission was denied',
  hint: 'Choose a folder you may write to, or change the permissions of this one.',
};
const OPEN_FILES: Problem = {
  what: 'too many files are open',
  hint: 'Download fewer objects at once (a lower concurrency), or raise the open-file limit (ulimit -n).',
};

const PROBLEMS: Record<string, Problem> = {
  ENOSPC: SPACE,
  EDQUOT: { what: 'the disk quota is used up', hint: 'Free some space within the quota, or download to another folder.' },
  EFBIG: {
    what: 'a file would grow past the largest file size allowed (a limit such as ulimit -f, or the file system\'s own)',
    hint: 'Raise the file-size limit, or download to a file system that takes larger files.',
  },
  EACCES: PERMISSION,
  EPERM: PERMISSION,
  EROFS: { what: 'the folder is on a read-only file system', hint: 'Choose a writable folder.' },
  EMFILE: OPEN_FILES,
  ENFILE: OPEN_FILES,
  ENOTDIR: { what: 'a part of the path is a file, not a folder', hint: 'Choose another folder, or move that file away.' },
  EEXIST: { what: 'something already exists where a new file or folder must go', hint: 'Move it away, or choose another folder.' },
  EISDIR: { what: 'a folder is in the way of a file', hint: 'Move that folder away, or choose another folder.' },
  ENAMETOOLONG: { what: 'the path is too long', hint: 'Choose a folder with a shorter path.' },
  ELOOP: { what: 'the path has a loop of symbolic links', hint: 'Choose another folder.' },
  EIO: { what: 'the disk reported an input/output error', hint: 'Check the disk, or download to another folder.' },
  ENOENT: {
    what: 'a file or folder disappeared while the download was using it',
    hint: 'Make sure nothing else removes files from that folder during the download, then try again.',
  },
};

const UNKNOWN: Problem = { what: 'the file system refused', hint: 'Check the folder, or download to another one.' };

/**
 * A failed file-system call's error as an `io` DqError (when it carries an errno code and a
 * syscall), e.g. "Could not write a result file (folder /data/out): the disk is full (ENOSPC)".
 * `alsoHint` follows the problem's own hint, e.g. which setting chooses the folder.
 * DqErrors and anything else pass through unchanged.
 */
export function asLocalIoError(err: unknown, dir: string, doing: string, alsoHint?: string): unknown {
  if (isDqError(err) || !isFileSystemError(err)) return err;
  const code = errorCode(err) ?? 'unknown';
  const problem = PROBLEMS[code] ?? UNKNOWN;
  return new DqError('io', `Could not ${doing} (folder ${dir}): ${problem.what} (${code})`, {
    operation: 'download',
    details: { code, dir },
    hint: alsoHint ? `${problem.hint} ${alsoHint}` : problem.hint,
  });
}

function isFileSystemError(err: unknown): boolean {
  const e = err as { code?: unknown; syscall?: unknown } | undefined;
  return typeof e?.code === 'string' && typeof e.syscall === 'string' && e.code.startsWith('E');
}

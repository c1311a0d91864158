// Checks before any request that the folder results go to can be made or written to, so a
// mistyped --out is reported at once instead of after a create-job call and the wait for it.
// Nothing is created here: a query that fails leaves no empty folder behind.

import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DqError } from '../client/errors';
import { asLocalIoError } from '../client/localIoError';

/** Resolves when `dir` is a folder dq may write to, or could be created as one. */
export async function checkOutputFolder(dir: string): Promise<void> {
  for (let at = dir; ; at = path.dirname(at)) {
    let isFolder: boolean;
    try {
      isFolder = (await fs.stat(at)).isDirectory();
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      if (missing && path.dirname(at) !== at) continue; // created by the download
      throw asLocalIoError(err, dir, 'use the download folder');
    }
    if (!isFolder) {
      const what = at === dir ? 'it is a file, not a folder' : `${at} is a file, not a folder`;
      throw new DqError('io', `The download folder ${dir} cannot be used: ${what}`, {
        operation: 'download',
        details: { dir },
        hint: 'Choose another folder with --out, or move that file away.',
      });
    }
    try {
      await fs.access(at, constants.W_OK | constants.X_OK);
    } catch (err) {
      throw asLocalIoError(err, dir, at === dir ? 'write to the download folder' : 'create the download folder');
    }
    return;
  }
}

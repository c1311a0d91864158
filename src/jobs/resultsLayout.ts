// Where result files go: `<results>/<connection>/<namespace>/<table>/<job id>/`, each part a
// sanitised single path segment, and `<results>/links/` for downloads of pasted links. A
// results folder created inside a workspace gets a `.gitignore` of `*`, so results never
// reach git.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { sanitizeFileName } from '../core/paths';

export const LINKS_FOLDER = 'links';

export interface JobFolderParts {
  connection: string;
  namespace: string;
  table: string;
  jobId: string;
}

/** The folder of one job's files under the results root. */
export function jobFolder(root: string, parts: JobFolderParts): string {
  return path.join(path.resolve(root), ...[parts.connection, parts.namespace, parts.table, parts.jobId].map((p) => sanitizeFileName(p)));
}

/** The folder for files downloaded from pasted links. */
export function linksFolder(root: string): string {
  return path.join(path.resolve(root), LINKS_FOLDER);
}

/** Creates the results root; with `ignoreInGit`, also a `.gitignore` of `*` unless one exists. */
export async function ensureResultsRoot(root: string, ignoreInGit: boolean): Promise<string> {
  const dir = path.resolve(root);
  await fs.mkdir(dir, { recursive: true });
  if (ignoreInGit) {
    await fs.writeFile(path.join(dir, '.gitignore'), '*\n', { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
  return dir;
}

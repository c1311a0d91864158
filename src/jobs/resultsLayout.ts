// Where result files go: `<results>/<connection>/<namespace>/<table>/<job id>/`, each part a
// sanitised single path segment (a job id that is not already a plain safe name, or that looks
// like one of the names given to such ids, also gets a hash of itself, so two ids never share
// a folder), and `<results>/links/` for downloads of pasted links. The
// results root is the download folder setting (a leading `~` is the home folder, a relative
// path starts in the workspace folder), else `data-query-results/` in the workspace folder,
// else the extension's global storage. A results folder created inside a workspace by default
// gets a `.gitignore` of `*`, so results never reach git. A root that cannot be created or
// written to is an `io` error naming the folder and the setting.

import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { asLocalIoError } from '../client/localIoError';
import { expandHome } from '../core/homeFolder';
import { MAX_FILE_NAME_LENGTH, sanitizeFileName, shortHash } from '../core/paths';
import { makeFolder } from '../core/makeFolder';

export const LINKS_FOLDER = 'links';
export const RESULTS_FOLDER_SETTING = 'dataQuery.download.folder';
export const DEFAULT_RESULTS_FOLDER = 'data-query-results';

const SETTING_HINT = `The setting ${RESULTS_FOLDER_SETTING} chooses where results go.`;

export interface JobFolderParts {
  connection: string;
  namespace: string;
  table: string;
  jobId: string;
}

export interface ResultsPlaces {
  /** the download folder setting as written; empty for the default */
  setting: string;
  /** the first workspace folder on disk, if one is open */
  workspaceFolder?: string;
  /** the extension's global storage folder */
  globalStorage: string;
  /** the home folder, for a leading `~` */
  home: string;
}

/** The folder of one job's files under the results root. */
export function jobFolder(root: string, parts: JobFolderParts): string {
  const named = [parts.connection, parts.namespace, parts.table].map((p) => sanitizeFileName(p));
  return path.join(path.resolve(root), ...named, jobFolderName(parts.jobId));
}

const ID_HASH_LENGTH = 12;
/** The tail jobFolderName gives an id that needs a hash (a double hyphen: a UUID never ends so): nothing else may end like it. */
const HASHED_TAIL = new RegExp(`--[0-9a-f]{${ID_HASH_LENGTH}}$`);

/**
 * A job id as a folder name. The service's job ids follow no specification: `a/b` and `a:b`
 * sanitise alike, and long ids are cut. A plain safe id stays as it is (so folders of earlier
 * downloads are found again by that name); any other id becomes its sanitised, shortened form
 * with a hash of the whole id appended. A plain id that ends like such a hash gets one too,
 * so no id can take another's folder.
 */
function jobFolderName(jobId: string): string {
  const plain = sanitizeFileName(jobId);
  if (plain === jobId && !HASHED_TAIL.test(jobId)) return plain;
  return `${sanitizeFileName(jobId, MAX_FILE_NAME_LENGTH - ID_HASH_LENGTH - 2)}--${shortHash(jobId, ID_HASH_LENGTH)}`;
}

/** The folder for files downloaded from pasted links. */
export function linksFolder(root: string): string {
  return path.join(path.resolve(root), LINKS_FOLDER);
}

/** The results root the setting names, and whether it gets a `.gitignore` (the default inside a workspace). */
export function resultsRootOf(places: ResultsPlaces): { root: string; ignoreInGit: boolean } {
  const configured = places.setting.trim();
  if (configured) {
    return { root: path.resolve(places.workspaceFolder ?? places.globalStorage, expandHome(configured, places.home)), ignoreInGit: false };
  }
  if (places.workspaceFolder) return { root: path.join(places.workspaceFolder, DEFAULT_RESULTS_FOLDER), ignoreInGit: true };
  return { root: path.join(places.globalStorage, 'results'), ignoreInGit: false };
}

/**
 * Creates the results root and checks that it can be written to; with `ignoreInGit`, also a
 * `.gitignore` of `*` unless one exists. Failures are `io` errors naming the folder and the setting.
 */
export async function ensureResultsRoot(root: string, ignoreInGit: boolean): Promise<string> {
  const dir = path.resolve(root);
  await step(dir, 'create the results folder', () => makeFolder(dir));
  // a folder that exists but takes no files fails here, naming the setting, not mid-download
  await step(dir, 'write to the results folder', () => fs.access(dir, fsConstants.W_OK));
  if (ignoreInGit) {
    await step(dir, 'write the .gitignore of the results folder', () =>
      fs.writeFile(path.join(dir, '.gitignore'), '*\n', { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      }),
    );
  }
  return dir;
}

async function step(dir: string, doing: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (err) {
    throw asLocalIoError(err, dir, doing, SETTING_HINT);
  }
}

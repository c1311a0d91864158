// Makes a folder and the missing folders above it, one level at a time. Node's own recursive
// mkdir loops for ever, at full CPU and deaf to signals, when a level cannot be made although
// its parent exists and reports ENOENT (any path under /proc, for one):
// a setting or DQ_STATE_DIR pointing there would hang the process. Here every level is tried
// once, so a folder that cannot be made fails at once with the error of the level that could not.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Makes `folder` and every missing folder above it (`mode` for those it makes); resolves to the
 * first folder it made, or undefined when `folder` was there already, as `mkdir -p` does.
 */
export async function makeFolder(folder: string, mode?: number): Promise<string | undefined> {
  const missing: string[] = [];
  for (let at = path.resolve(folder); ; ) {
    const kind = await folderKind(at);
    if (kind === 'folder') break;
    if (kind === 'other') throw notAFolder(at);
    const parent = path.dirname(at);
    if (parent === at) break; // a missing root: the mkdir below reports it
    missing.push(at);
    at = parent;
  }
  let first: string | undefined;
  for (const level of missing.reverse()) {
    try {
      await fs.mkdir(level, mode === undefined ? undefined : { mode });
      first ??= level;
    } catch (err) {
      // made meanwhile by another process: fine, as long as it is a folder
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && (await folderKind(level)) === 'folder') continue;
      throw err;
    }
  }
  return first;
}

async function folderKind(at: string): Promise<'folder' | 'other' | 'missing'> {
  try {
    return (await fs.stat(at)).isDirectory() ? 'folder' : 'other';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') return 'other';
    throw err;
  }
}

function notAFolder(at: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`ENOTDIR: not a folder, mkdir '${at}'`);
  err.code = 'ENOTDIR';
  err.path = at;
  err.syscall = 'mkdir';
  return err;
}

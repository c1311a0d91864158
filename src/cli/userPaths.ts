// Paths a person gives dq (--out, --work-dir, --to, DQ_SYNC_TARGET): a leading `~` is the home
// folder, since no shell expands `--out=~/x`, a quoted "~/x" or a variable's value; relative
// paths start in the working folder.

import * as os from 'node:os';
import * as path from 'node:path';
import { expandHome, expandTargetHome as expandTarget } from '../core/homeFolder';
import type { CliIo } from './cliIo';

function homeFolder(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

/** A folder or file the user named, as an absolute path. */
export function userPath(value: string, io: Pick<CliIo, 'cwd' | 'env'>): string {
  return path.resolve(io.cwd, expandHome(value, homeFolder(io.env)));
}

/** A sync target with `~` expanded in its file path (see core/homeFolder.ts). */
export function expandTargetHome(value: string, env: NodeJS.ProcessEnv): string {
  return expandTarget(value, homeFolder(env));
}

// Small tmpfs mounts for tests of local file-system failures: a full disk (a tiny size) or a
// read-only folder (root ignores file permissions, but not a read-only mount). Mounting
// needs root and a kernel that allows it; `tryMountTmpfs` says why when it cannot.

import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';

export interface TmpfsOptions {
  sizeKiB: number;
  readOnly?: boolean;
}

/** Mounts a tmpfs on `dir` (created when missing); returns why not when it cannot. */
export async function tryMountTmpfs(dir: string, options: TmpfsOptions): Promise<string | undefined> {
  if (process.platform !== 'linux') return `tmpfs mounts need Linux, not ${process.platform}`;
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  await fs.mkdir(dir, { recursive: true });
  const flags = [`size=${options.sizeKiB}k`, ...(options.readOnly ? ['ro'] : [])].join(',');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', flags, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    return `cannot mount a tmpfs here: ${stderr || String(err)}`;
  }
}

export function unmount(dir: string): void {
  execFileSync('umount', [dir], { stdio: 'pipe' });
}

/**
 * A tmpfs on the folder `dir()` names, mounted before the suite's tests; after them it is
 * unmounted and the folder removed. The suite skips, saying why, when it cannot be mounted.
 * Returns the mount's path.
 */
export function tmpfsForSuite(dir: () => string, options: TmpfsOptions): () => string {
  let mount = '';
  let mounted = false;
  before(async function () {
    mount = dir();
    const reason = await tryMountTmpfs(mount, options);
    if (reason) {
      console.log(`      skipped: ${reason}`);
      this.skip();
    }
    mounted = true;
  });
  after(async () => {
    if (mounted) unmount(mount);
    if (mount) await fs.rm(mount, { recursive: true, force: true });
  });
  return () => mount;
}

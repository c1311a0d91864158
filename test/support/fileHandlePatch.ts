// Replaces one method of every open file's handle (FileHandle's prototype, which Node does not
// export) for as long as a test needs a disk that is slow or fails; returns the undo.

import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';

export async function patchFileHandle<K extends keyof FileHandle>(
  dir: string,
  method: K,
  replace: (original: FileHandle[K]) => FileHandle[K],
): Promise<() => void> {
  const probePath = path.join(dir, '.probe');
  const probe = await fs.open(probePath, 'w');
  const proto = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  await fs.rm(probePath);
  const original = proto[method];
  proto[method] = replace(original);
  return () => {
    proto[method] = original;
  };
}

// The peak resident set size of a running process, read from Linux's /proc (VmHWM); undefined
// where there is no /proc or the process is gone.

import { readFile } from 'node:fs/promises';

export async function peakRssMiBOf(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) / 1024;
  } catch {
    return undefined;
  }
}

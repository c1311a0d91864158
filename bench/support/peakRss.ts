// Preloaded (node --require) into a measured process: at exit it writes the process's peak
// resident set size in KiB to file descriptor 3, which the bench opens as a pipe.
//
// On Linux the peak is VmHWM of /proc/self/status, the high-water mark of this program's own
// memory. getrusage's maxRSS (process.resourceUsage) is no use here: the kernel carries into it,
// across exec, the resident size of the forked copy of the parent, so a small child reads as
// large as the bench process that started it.

import { readFileSync, writeSync } from 'node:fs';

function peakKiB(): number {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    /* not Linux: getrusage's figure is the best there is */
  }
  return process.resourceUsage().maxRSS;
}

process.on('exit', () => {
  try {
    writeSync(3, `${peakKiB()}\n`);
  } catch {
    /* not started by the bench: nothing to report to */
  }
});

// Preloaded (node --require) into a measured process: at exit it writes the process's peak
// resident set size in KiB to file descriptor 3, which the bench opens as a pipe.

import { writeSync } from 'node:fs';

process.on('exit', () => {
  try {
    writeSync(3, `${process.resourceUsage().maxRSS}\n`);
  } catch {
    /* not started by the bench: nothing to report to */
  }
});

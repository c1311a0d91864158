// A leading `~` as the home folder, for paths a person types or writes in a setting: no shell
// expands a quoted value, `--out=~/x`, an environment variable or an editor setting.

import * as path from 'node:path';

/** `~`, `~/...` or `~\...` from `home`; anything else (`~name`, `a/~`, a URL) is returned as it is. */
export function expandHome(value: string, home: string): string {
  return /^~(?=$|[\\/])/.test(value) ? path.join(home, value.slice(1)) : value;
}

/**
 * A sync target with `~` expanded in its file path (`~/s.duckdb`, `duckdb:~/s.duckdb`); a
 * PostgreSQL URL, or anything else, is returned as it is.
 */
export function expandTargetHome(value: string, home: string): string {
  const given = value.trim(); // as the target spec reads it
  const duckdb = /^duckdb:/i.exec(given);
  if (duckdb) return `${duckdb[0]}${expandHome(given.slice(duckdb[0].length), home)}`;
  return expandHome(given, home);
}

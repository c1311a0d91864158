// Where the PostgreSQL target finds its database password, the way PostgreSQL's own tools
// do: in the connection URL, else in PGPASSWORD, else in a password file (PGPASSFILE or
// ~/.pgpass, lines `host:port:database:user:password` with `*` wildcards). A password file
// that others can read is ignored, as libpq ignores it. The password is handed to the
// driver only when the server asks for one, and never returned in anything shown.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../core/logger';

export interface PasswordLookup {
  host: string;
  port: number;
  database: string;
  user: string;
}

export interface PasswordSources {
  /** the password written in the URL, if any */
  fromUrl?: string;
  env?: NodeJS.ProcessEnv;
  homeDir?: string;
  logger?: Logger;
}

/** Where the password came from, for messages ("check PGPASSWORD"); never the password. */
export type PasswordOrigin = 'url' | 'PGPASSWORD' | 'pgpass' | 'none';

export interface FoundPassword {
  password?: string;
  origin: PasswordOrigin;
  /** the password file read, when one was */
  file?: string;
}

/** The password file's path: PGPASSFILE, else ~/.pgpass. */
export function passwordFilePath(env: NodeJS.ProcessEnv = process.env, homeDir = os.homedir()): string {
  return env.PGPASSFILE || path.join(homeDir, '.pgpass');
}

/** Splits one password-file line at unescaped colons, undoing `\:` and `\\`. */
function fields(line: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === '\\' && i + 1 < line.length) {
      current += line[++i];
    } else if (ch === ':') {
      out.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  out.push(current);
  return out;
}

/** The password of the first matching line of a password file's text. */
export function matchPasswordFile(text: string, want: PasswordLookup): string | undefined {
  // libpq: a socket connection matches `localhost`
  const host = want.host.startsWith('/') ? 'localhost' : want.host;
  const wanted = [host, String(want.port), want.database, want.user];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '' || raw.startsWith('#')) continue;
    const parts = fields(raw);
    if (parts.length < 5) continue;
    const password = parts.slice(4).join(':');
    if (wanted.every((value, i) => parts[i] === '*' || parts[i] === value)) return password;
  }
  return undefined;
}

/** Finds the password for one connection: URL, then PGPASSWORD, then the password file. */
export async function findPassword(want: PasswordLookup, sources: PasswordSources): Promise<FoundPassword> {
  if (sources.fromUrl) return { password: sources.fromUrl, origin: 'url' };
  const env = sources.env ?? process.env;
  if (env.PGPASSWORD) return { password: env.PGPASSWORD, origin: 'PGPASSWORD' };
  const file = passwordFilePath(env, sources.homeDir);
  let stat;
  try {
    stat = await fs.stat(file);
  } catch {
    return { origin: 'none' };
  }
  if (!stat.isFile()) return { origin: 'none' };
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    sources.logger?.warn(`postgres: ignoring the password file ${file}: others can read it (run chmod 600 on it)`);
    return { origin: 'none', file };
  }
  const password = matchPasswordFile(await fs.readFile(file, 'utf8'), want);
  return password === undefined ? { origin: 'none', file } : { password, origin: 'pgpass', file };
}

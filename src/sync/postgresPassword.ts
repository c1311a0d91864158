// Where the PostgreSQL target finds its database password, the way PostgreSQL's own tools
// do: in the connection URL, else in PGPASSWORD, else in a password file (PGPASSFILE or
// ~/.pgpass, lines `host:port:database:user:password` with `*` wildcards). A password file
// that others can read is ignored, as libpq ignores it. The password is handed to the
// driver only when the server asks for one, and never returned in anything shown.

import * as os from 'node:os';
import * as path from 'node:path';
import { findServerPassword, type FoundServerPassword, type ServerPasswordSources } from './serverPassword';

export interface PasswordLookup {
  host: string;
  port: number;
  database: string;
  user: string;
}

export type PasswordSources = ServerPasswordSources;

export type FoundPassword = FoundServerPassword<'PGPASSWORD' | 'pgpass'>;

/** Where the password came from, for messages ("check PGPASSWORD"); never the password. */
export type PasswordOrigin = FoundPassword['origin'];

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
export function findPassword(want: PasswordLookup, sources: PasswordSources): Promise<FoundPassword> {
  return findServerPassword(sources, {
    variable: 'PGPASSWORD',
    file: passwordFilePath,
    fileOrigin: 'pgpass',
    ignoredModes: 0o077,
    ignoredWarning: (file) => `postgres: ignoring the password file ${file}: others can read it (run chmod 600 on it)`,
    password: (text) => matchPasswordFile(text, want),
  });
}

// Where the MySQL target finds its database password, the way MySQL's own tools do: in the
// connection URL, else in MYSQL_PWD, else in the [client] group of the option file ~/.my.cnf
// (read here by a small parser of the option-file syntax: `[group]`, `name = value`, quotes,
// escapes, `#` and `;` comments). An option file that others can write is ignored, as MySQL
// ignores it. The password is handed to the driver only, and never returned in anything shown.

import * as os from 'node:os';
import * as path from 'node:path';
import { findServerPassword, type FoundServerPassword, type ServerPasswordSources } from './serverPassword';

export type MysqlPasswordSources = ServerPasswordSources;

export type FoundMysqlPassword = FoundServerPassword<'MYSQL_PWD' | 'optionFile'>;

/** Where the password came from, for messages ("check MYSQL_PWD"); never the password. */
export type MysqlPasswordOrigin = FoundMysqlPassword['origin'];

/** The option file's path: ~/.my.cnf of the given home (HOME in `env` first). */
export function optionFilePath(env: NodeJS.ProcessEnv = process.env, homeDir?: string): string {
  return path.join(homeDir || env.HOME || os.homedir(), '.my.cnf');
}

const ESCAPES: Record<string, string> = { b: '\b', t: '\t', n: '\n', r: '\r', s: ' ', '\\': '\\' };

/** A value as written after `=`: quoted (escapes read, the rest of the line ignored) or bare (up to a `#`, trimmed). */
function optionValue(raw: string): string {
  const text = raw.trim();
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    let out = '';
    for (let i = 1; i < text.length; i++) {
      const ch = text[i];
      if (ch === quote) return out;
      if (ch === '\\' && i + 1 < text.length) {
        const next = text[++i];
        out += ESCAPES[next] ?? (next === quote ? quote : `\\${next}`);
      } else {
        out += ch;
      }
    }
    return out; // an unclosed quote: the rest of the line
  }
  const hash = text.indexOf('#');
  const bare = (hash >= 0 ? text.slice(0, hash) : text).trim();
  return bare.replace(/\\(.)/g, (whole, next: string) => ESCAPES[next] ?? whole);
}

/**
 * The value of `option` in `group` of an option file's text (the last one given wins, as in
 * MySQL); undefined when it is not there. Names compare without case, `-` and `_` alike.
 */
export function readOptionFile(text: string, group: string, option: string): string | undefined {
  const wanted = option.toLowerCase().replace(/_/g, '-');
  let inGroup = false;
  let found: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';') || line.startsWith('!')) continue;
    const header = /^\[\s*([^\]]+?)\s*\]/.exec(line);
    if (header) {
      inGroup = header[1].toLowerCase() === group.toLowerCase();
      continue;
    }
    if (!inGroup) continue;
    const eq = line.indexOf('=');
    const name = (eq >= 0 ? line.slice(0, eq) : line).trim().toLowerCase().replace(/_/g, '-');
    if (name !== wanted) continue;
    found = eq >= 0 ? optionValue(line.slice(eq + 1)) : '';
  }
  return found;
}

/** Finds the password: the URL's, then MYSQL_PWD, then `password` in [client] of ~/.my.cnf (an empty one is none). */
export function findMysqlPassword(sources: MysqlPasswordSources): Promise<FoundMysqlPassword> {
  return findServerPassword(sources, {
    variable: 'MYSQL_PWD',
    file: optionFilePath,
    fileOrigin: 'optionFile',
    ignoredModes: 0o002,
    ignoredWarning: (file) => `mysql: ignoring the option file ${file}: anyone may change it (MySQL ignores it too; run chmod 600 on it)`,
    unreadableWarning: (file, code) => `mysql: cannot read the option file ${file} (${code}); connecting without its password`,
    password: (text) => readOptionFile(text, 'client', 'password') || undefined,
  });
}

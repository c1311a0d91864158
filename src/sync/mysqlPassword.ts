// Where the MySQL target finds its database password, the way MySQL's own tools do: in the
// connection URL, else in MYSQL_PWD, else in the [client] group of the option file ~/.my.cnf
// (read here by a small parser of the option-file syntax: `[group]`, `name = value`, quotes,
// escapes, `#` and `;` comments). An option file that others can write is ignored, as MySQL
// ignores it. The password is handed to the driver only, and never returned in anything shown.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../core/logger';

export interface MysqlPasswordSources {
  /** the password written in the URL, if any */
  fromUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** where ~/.my.cnf is looked for (the user's home by default) */
  homeDir?: string;
  logger?: Logger;
}

/** Where the password came from, for messages ("check MYSQL_PWD"); never the password. */
export type MysqlPasswordOrigin = 'url' | 'MYSQL_PWD' | 'optionFile' | 'none';

export interface FoundMysqlPassword {
  password?: string;
  origin: MysqlPasswordOrigin;
  /** the option file read, when one was */
  file?: string;
}

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

/** Finds the password: the URL's, then MYSQL_PWD, then `password` in [client] of ~/.my.cnf. */
export async function findMysqlPassword(sources: MysqlPasswordSources): Promise<FoundMysqlPassword> {
  if (sources.fromUrl) return { password: sources.fromUrl, origin: 'url' };
  const env = sources.env ?? process.env;
  if (env.MYSQL_PWD) return { password: env.MYSQL_PWD, origin: 'MYSQL_PWD' };
  const file = optionFilePath(env, sources.homeDir);
  let stat;
  try {
    stat = await fs.stat(file);
  } catch {
    return { origin: 'none' };
  }
  if (!stat.isFile()) return { origin: 'none' };
  if (process.platform !== 'win32' && (stat.mode & 0o002) !== 0) {
    sources.logger?.warn(`mysql: ignoring the option file ${file}: anyone may change it (MySQL ignores it too; run chmod 600 on it)`);
    return { origin: 'none', file };
  }
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    sources.logger?.warn(`mysql: cannot read the option file ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'}); connecting without its password`);
    return { origin: 'none', file };
  }
  const password = readOptionFile(text, 'client', 'password');
  return password === undefined || password === '' ? { origin: 'none', file } : { password, origin: 'optionFile', file };
}

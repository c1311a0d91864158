// How a database target finds its password, the way the server's own tools do: the one written
// in the connection URL, else the server's environment variable, else the server's password
// file in the user's home, which is ignored (with a warning) when its modes let others at it.
// Each server's module (postgresPassword.ts, mysqlPassword.ts) gives its variable, its file,
// the modes it refuses and how the file is read. The password is handed to the driver only,
// and never returned in anything shown.

import { promises as fs } from 'node:fs';
import type { Logger } from '../core/logger';

export interface ServerPasswordSources {
  /** the password written in the URL, if any */
  fromUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** where the password file is looked for (the user's home by default) */
  homeDir?: string;
  logger?: Logger;
}

/** The password found, and where it came from for messages ("check PGPASSWORD"); never shown. */
export interface FoundServerPassword<Origin extends string> {
  password?: string;
  origin: 'url' | Origin | 'none';
  /** the password file read, when one was */
  file?: string;
}

/** One server's ways to its password besides the URL. */
export interface ServerPasswordRules<Variable extends string, FileOrigin extends string> {
  /** the environment variable that holds the password; its name is the origin reported */
  variable: Variable;
  /** the password file's path in this environment */
  file(env: NodeJS.ProcessEnv, homeDir: string | undefined): string;
  fileOrigin: FileOrigin;
  /** the mode bits for which the server ignores the file, and the warning given then */
  ignoredModes: number;
  ignoredWarning(file: string): string;
  /** the warning for a file that cannot be read, which is then passed over; without it, the read's failure is thrown */
  unreadableWarning?(file: string, code: string): string;
  /** the password the file's text holds for this connection, if any */
  password(text: string): string | undefined;
}

/** Finds the password: the URL's, then the variable's, then the password file's. */
export async function findServerPassword<V extends string, F extends string>(sources: ServerPasswordSources, rules: ServerPasswordRules<V, F>): Promise<FoundServerPassword<V | F>> {
  if (sources.fromUrl) return { password: sources.fromUrl, origin: 'url' };
  const env = sources.env ?? process.env;
  const fromEnv = env[rules.variable];
  if (fromEnv) return { password: fromEnv, origin: rules.variable };
  const file = rules.file(env, sources.homeDir);
  let stat;
  try {
    stat = await fs.stat(file);
  } catch {
    return { origin: 'none' };
  }
  if (!stat.isFile()) return { origin: 'none' };
  if (process.platform !== 'win32' && (stat.mode & rules.ignoredModes) !== 0) {
    sources.logger?.warn(rules.ignoredWarning(file));
    return { origin: 'none', file };
  }
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if (!rules.unreadableWarning) throw err;
    sources.logger?.warn(rules.unreadableWarning(file, (err as NodeJS.ErrnoException).code ?? 'error'));
    return { origin: 'none', file };
  }
  const password = rules.password(text);
  return password === undefined ? { origin: 'none', file } : { password, origin: rules.fileOrigin, file };
}

// A MySQL or MariaDB target's URL, `mysql://user@host:3306/database` (`mariadb://` is the same
// target under another name): read so that a password holding special characters is never
// misread as the port or path, and shown without its password or secret parameters. Parameters:
// `ssl-mode`, `ssl-ca`, `ssl-cert`, `ssl-key` (as the mysql client names them; `_` for `-` and
// any case are read the same) and `socket` (a Unix socket path instead of host and port). Pure:
// the editor's setting reads it without loading the driver.

import { specError } from './targetSpecError';

/** Any text that starts like a MySQL URL is taken for one, so a mistyped URL never becomes a file name. */
export const MYSQL_SCHEME = /^(mysql|mariadb):/i;
export const MYSQL_FORM = 'mysql://user@host:3306/database';
export const MYSQL_DEFAULT_PORT = 3306;

/** Query parameters never shown: they may hold a password or a key. */
const HIDDEN_PARAM = /pass|secret|token|^ssl[-_]?key$/i;
const KNOWN_PARAMS = ['ssl-mode', 'ssl-ca', 'ssl-cert', 'ssl-key', 'socket'] as const;
export type MysqlParam = (typeof KNOWN_PARAMS)[number];

export interface MysqlUrl {
  /** `mysql` or `mariadb`, as written (lower case) */
  scheme: string;
  user: string;
  /** the password written in the URL, if any (best kept elsewhere) */
  password?: string;
  /** the server's name or address ('' when only a socket is given) */
  host: string;
  port: number;
  database: string;
  /** the known parameters, by their canonical names */
  params: Partial<Record<MysqlParam, string>>;
  /** the URL as a person may see it */
  label: string;
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** `ssl_mode`, `SSL-Mode` and `sslmode` as `ssl-mode`; undefined for a parameter this target does not know. */
function canonicalParam(name: string): MysqlParam | undefined {
  const plain = name.toLowerCase().replace(/_/g, '-');
  const spaced = plain.startsWith('ssl') && !plain.startsWith('ssl-') ? `ssl-${plain.slice(3)}` : plain;
  return (KNOWN_PARAMS as readonly string[]).includes(spaced) ? (spaced as MysqlParam) : undefined;
}

/**
 * A MySQL URL read for a target, or a usage error that never repeats it (it may hold a
 * password). Refused: no `//` after the scheme, an `@` after the server part (the end of a
 * password holding an unencoded `/`, `?` or `#`), no database, no server, and parameters this
 * target does not know (a typo in `ssl-mode` must not go unseen).
 */
export function readMysqlUrl(text: string): MysqlUrl {
  const scheme = MYSQL_SCHEME.exec(text);
  if (!scheme || !text.startsWith('//', scheme[0].length)) {
    throw specError('invalidUrl', 'A MySQL target must start with mysql:// (two slashes) followed by the server.', `Write it as ${MYSQL_FORM}; for a DuckDB file of that name, write duckdb:PATH.`);
  }
  const afterSlashes = text.slice(scheme[0].length + 2);
  const serverEnd = afterSlashes.search(/[/?#]/);
  if (serverEnd >= 0 && afterSlashes.slice(serverEnd).includes('@')) {
    throw specError(
      'invalidUrl',
      'The MySQL target URL cannot be read safely: an @ comes after the server name, as when the password holds a character such as / that is not percent-encoded.',
      'Percent-encode special characters in the password (/ as %2F, @ as %40, ? as %3F, # as %23), or leave the password out of the URL and give it in MYSQL_PWD or the [client] group of ~/.my.cnf.',
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw specError('invalidUrl', 'The MySQL target is not a valid URL.', `Write it as ${MYSQL_FORM} (percent-encode special characters in the user name and password).`);
  }
  const params: Partial<Record<MysqlParam, string>> = {};
  for (const [name, value] of url.searchParams) {
    const known = canonicalParam(name);
    if (!known) {
      const shown = HIDDEN_PARAM.test(name) ? 'a parameter' : `the parameter "${name}"`;
      throw specError('invalidUrl', `The MySQL target URL has ${shown} this target does not know.`, `The parameters it reads are ${KNOWN_PARAMS.join(', ')}.`);
    }
    params[known] = value;
  }
  const schemeName = scheme[1].toLowerCase();
  const host = decoded(url.hostname).replace(/^\[|\]$/g, '');
  const database = decoded(url.pathname.replace(/^\//, ''));
  const port = url.port ? Number(url.port) : MYSQL_DEFAULT_PORT;
  const user = decoded(url.username);
  const label = mysqlUrlLabel(url, schemeName);
  if (!host && !params.socket) {
    throw specError('noServer', `The MySQL target ${label} names no server.`, `Write it as ${MYSQL_FORM}, or give a Unix socket as ?socket=/path/to/mysqld.sock.`);
  }
  if (!database || database.includes('/')) {
    throw specError('noDatabase', `The MySQL target ${label} names no database.`, `Write it as ${MYSQL_FORM}: the tables are made in that one database, each as <namespace>__<table>.`);
  }
  if (!user) {
    throw specError('invalidUrl', `The MySQL target ${label} names no user.`, `Write it as ${MYSQL_FORM}.`);
  }
  const password = url.password === '' ? undefined : decoded(url.password);
  return { scheme: schemeName, user, password, host, port, database, params, label };
}

/**
 * A MySQL URL as a person may see it: the user name, server, database and harmless
 * parameters; never the password (in the user part or the query) or the fragment.
 */
export function mysqlUrlLabel(url: URL, scheme = url.protocol.replace(/:$/, '').toLowerCase()): string {
  if (`${url.pathname}${url.search}${url.hash}`.includes('@')) return `${scheme}://***`;
  const user = url.username ? `${decoded(url.username)}@` : '';
  const params = [...url.searchParams.entries()].filter(([name]) => !HIDDEN_PARAM.test(name));
  const query = params.length > 0 ? `?${params.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  return `${scheme}://${user}${url.host}${decoded(url.pathname)}${query}`;
}

/** Whether the URL (as written) holds a password: in its user part or a parameter. */
export function mysqlUrlHasPassword(text: string): boolean {
  try {
    const url = new URL(text);
    return url.password !== '' || [...url.searchParams.keys()].some((k) => /pass/i.test(k));
  } catch {
    return false;
  }
}

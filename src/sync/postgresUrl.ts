// A PostgreSQL target's URL: read so that a password holding special characters is never
// misread as the port or path, and shown without its password or secret parameters.

import { specError } from './targetSpecError';

/** Any text that starts like a PostgreSQL URL is taken for one, so a mistyped URL never becomes a file name. */
export const POSTGRES_SCHEME = /^postgres(ql)?:/i;
export const POSTGRES_FORM = 'postgresql://user@host:5432/database';

/**
 * A PostgreSQL URL read for a target, or a usage error that never repeats it (it may hold a
 * password). Refused: no `//` after the scheme, and an `@` after the server part (in the path,
 * query or fragment): there it is the end of a password holding a `/`, `?` or `#` that was not
 * percent-encoded, and the URL parser would read part of the password as the port or path.
 */
export function readPostgresUrl(text: string): URL {
  const scheme = POSTGRES_SCHEME.exec(text);
  if (!scheme || !text.startsWith('//', scheme[0].length)) {
    throw specError('invalidUrl', 'A PostgreSQL target must start with postgresql:// (two slashes) followed by the server.', `Write it as ${POSTGRES_FORM}; for a DuckDB file of that name, write duckdb:PATH.`);
  }
  const afterSlashes = text.slice(scheme[0].length + 2);
  const serverEnd = afterSlashes.search(/[/?#]/);
  if (serverEnd >= 0 && afterSlashes.slice(serverEnd).includes('@')) {
    throw specError(
      'invalidUrl',
      'The PostgreSQL target URL cannot be read safely: an @ comes after the server name, as when the password holds a character such as / that is not percent-encoded.',
      'Percent-encode special characters in the password (/ as %2F, @ as %40, ? as %3F, # as %23), or leave the password out of the URL and give it in PGPASSWORD or the password file (~/.pgpass).',
    );
  }
  try {
    return new URL(text);
  } catch {
    throw specError('invalidUrl', 'The PostgreSQL target is not a valid URL.', `Write it as ${POSTGRES_FORM} (percent-encode special characters in the user name and password).`);
  }
}

/** Query parameters never shown: they may hold a password or a key. */
export const HIDDEN_PARAM = /pass|secret|key|token/i;

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * A PostgreSQL URL as a person may see it: the user name, server, database and harmless
 * parameters; never the password (in the user part or the query) or the fragment.
 */
export function postgresUrlLabel(url: URL): string {
  // an @ past the server part ends a password that was read as the port and path (readPostgresUrl refuses these)
  if (`${url.pathname}${url.search}${url.hash}`.includes('@')) return `${url.protocol}//***`;
  const user = url.username ? `${decoded(url.username)}@` : '';
  const params = [...url.searchParams.entries()].filter(([name]) => !HIDDEN_PARAM.test(name));
  const query = params.length > 0 ? `?${params.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}${query}`;
}

// Turns what the MySQL driver (mysql2) and server report into DqErrors a person can act on:
// unreachable or lost connections, a connection killed on the server (network), refused logins
// and privileges (auth), a missing database (usage), a full disk (io), a table held by another
// session past the lock wait (io), values that do not fit their column (invalidResponse), a
// missing target table (snapshotRequired), and TLS that could not be set up (network: a server
// without TLS, a certificate not verified, another host name), each with the ssl-mode that would
// connect. The database password never reaches a message or a cause: it is masked in every
// text taken from elsewhere.

import { DqError, type ErrorKind } from '../client/errors';
import type { MysqlPasswordOrigin } from './mysqlPassword';
import type { MysqlTlsChoice } from './mysqlTls';

export interface MysqlErrorContext {
  /** the target as shown: the URL without its password */
  label: string;
  /** what was being done: `connecting`, `applying the changes of canvas.users`, ... */
  doing: string;
  /** inside an apply: messages say the table keeps its last complete run */
  applying?: boolean;
  /** the password in use, masked wherever it might appear */
  password?: string;
  passwordOrigin?: MysqlPasswordOrigin;
  /** the option file that was read, if any */
  passwordFile?: string;
  tls?: MysqlTlsChoice;
  /** the database and user, for the GRANT a refused step needs */
  database?: string;
  user?: string;
}

/** Server errors that say LOAD DATA LOCAL is not allowed (MariaDB 4166, MySQL 3948, older servers 1148). */
export const LOCAL_INFILE_REFUSED = new Set([4166, 3948, 1148]);
/** A repeated key in a table that has one (MySQL's warning code too, for LOAD DATA LOCAL). */
export const DUPLICATE_KEY = 1062;

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED', 'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT']);
/** The connection killed or the server gone: 1053 shutdown, 1317 query interrupted, 1927 connection killed (MariaDB), 2006/2013 lost. */
const LOST_ERRNOS = new Set([1053, 1317, 1927, 2006, 2013, 4031]);
const GZIP_CODES = new Set(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'Z_NEED_DICT', 'Z_STREAM_ERROR']);
const IO_CODES = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'EMFILE', 'ENFILE', 'EIO', 'ENOSPC']);
/** Refused logins: 1045 access denied, 1698 (MariaDB) access denied for a user without a password here, 1251 auth plugin. */
const LOGIN_REFUSED = new Set([1045, 1698, 1251]);
/** A step refused for lack of a privilege: 1044 database, 1142 table, 1143 column, 1227 global. */
const PRIVILEGE_REFUSED = new Set([1044, 1142, 1143, 1227]);
/** A full disk or table: 1021 disk full, 1114 table is full, 3 error on write. */
const DISK_FULL = new Set([1021, 1114, 3]);
/** Values that do not fit: 1264 out of range, 1265 truncated, 1292 bad value, 1366 bad value, 1406 too long, 3140 bad JSON, 4025 CHECK (MariaDB's JSON). */
const DATA_ERRORS = new Set([1264, 1265, 1292, 1366, 1406, 3140, 4025]);

interface RawError {
  message: string;
  code?: string;
  errno?: number;
  name?: string;
}

function raw(err: unknown): RawError {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; errno?: unknown; sqlMessage?: unknown };
    return {
      message: typeof e.sqlMessage === 'string' ? e.sqlMessage : err.message,
      name: err.name,
      code: typeof e.code === 'string' ? e.code : undefined,
      errno: typeof e.errno === 'number' && e.errno > 0 ? e.errno : undefined,
    };
  }
  return { message: String(err) };
}

/** The server's error number of a driver failure, if it has one. */
export function mysqlErrno(err: unknown): number | undefined {
  return raw(err).errno;
}

/** Masks the password (and its URL-encoded form) in a text from elsewhere. */
export function maskPassword(text: string, password: string | undefined): string {
  if (!password) return text;
  let out = text;
  for (const form of new Set([password, encodeURIComponent(password)])) out = out.split(form).join('***');
  return out;
}

function passwordSource(ctx: MysqlErrorContext): string {
  switch (ctx.passwordOrigin) {
    case 'url':
      return 'the password in the URL';
    case 'MYSQL_PWD':
      return 'the password in MYSQL_PWD';
    case 'optionFile':
      return `the password in ${ctx.passwordFile ?? '~/.my.cnf'}`;
    default:
      return 'no password';
  }
}

type TlsProblem = 'noTls' | 'certificate' | 'hostName' | 'handshake';

function tlsProblem(e: RawError): TlsProblem | undefined {
  if (e.code === 'HANDSHAKE_NO_SSL_SUPPORT') return 'noTls';
  if (!e.code) return undefined;
  // mysql2 reports every failed handshake as HANDSHAKE_SSL_ERROR, with the TLS layer's message
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID' || (e.code === 'HANDSHAKE_SSL_ERROR' && /Hostname\/IP does not match|altnames/i.test(e.message))) return 'hostName';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|^CA_|^INVALID_CA$/.test(e.code)) return 'certificate';
  if (e.code === 'HANDSHAKE_SSL_ERROR' && /certificate|self[- ]signed|unable to (verify|get)/i.test(e.message)) return 'certificate';
  if (e.code === 'HANDSHAKE_SSL_ERROR' || e.code === 'EPROTO' || /^ERR_(SSL|TLS)_/.test(e.code)) return 'handshake';
  return undefined;
}

function tlsReason(tls: MysqlTlsChoice | undefined): string {
  if (!tls || tls.from === 'default') return 'a server on another machine is reached only with TLS unless the URL says ssl-mode=DISABLED';
  return tls.mode === 'PREFERRED'
    ? 'the URL says ssl-mode=PREFERRED, which is read as REQUIRED here: the connection is encrypted or not made, never made in plain text'
    : `the URL says ssl-mode=${tls.mode}`;
}

const DISABLE_ADVICE = 'On a network you trust, ssl-mode=DISABLED in the URL connects without encryption.';
const REQUIRED_ADVICE = 'For a server whose certificate cannot be verified, ssl-mode=REQUIRED encrypts without checking it.';
const DATA_ERROR_ADVICE = 'Sync the table again; if it fails the same way, report the table and its schema version to the provider, with this message.';

function tlsError(problem: TlsProblem, said: string, ctx: MysqlErrorContext, make: (kind: ErrorKind, message: string, hint?: string) => DqError): DqError {
  const where = `MySQL at ${ctx.label}`;
  const unsent = `Nothing was sent while ${ctx.doing}: not the user name, not the password`;
  switch (problem) {
    case 'noTls':
      return make('network', `${where} does not offer TLS (encrypted connections), and ${tlsReason(ctx.tls)}. ${unsent}.`, `Turn TLS on in the server (ssl_cert and ssl_key). ${DISABLE_ADVICE}`);
    case 'certificate':
      return make(
        'network',
        `The TLS certificate of ${where} could not be verified (${said}). ${unsent}.`,
        `If the server's certificate comes from your own authority, add ssl-ca=/path/to/ca.pem to the URL. ${REQUIRED_ADVICE} ${DISABLE_ADVICE}`,
      );
    case 'hostName':
      return make(
        'network',
        `The TLS certificate of ${where} is for another host name (${said}). ${unsent}.`,
        `Write the host name the certificate names in the URL, or use ssl-mode=VERIFY_CA with ssl-ca to check the authority without the name. ${REQUIRED_ADVICE} ${DISABLE_ADVICE}`,
      );
    case 'handshake':
      return make('network', `TLS could not be set up with ${where} (${said}) while ${ctx.doing}.`, `Check that the server speaks MySQL with TLS on that port. ${REQUIRED_ADVICE} ${DISABLE_ADVICE}`);
  }
}

/** `GRANT ALL ON \`db\`.* TO 'user'@'%'`: what a user the server refuses a step needs. */
function grant(ctx: MysqlErrorContext): string {
  const db = ctx.database ? `\`${ctx.database.replace(/`/g, '``')}\`` : '<database>';
  const user = ctx.user ? `'${ctx.user.replace(/'/g, "''")}'@'%'` : '<user>';
  return `The sync creates, fills, renames and drops its tables in the URL's database: GRANT ALL ON ${db}.* TO ${user}; (or at least SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER and CREATE TEMPORARY TABLES).`;
}

/** The DqError for a failure of the MySQL target, with the raw failure as a clean cause. */
export function mysqlError(err: unknown, ctx: MysqlErrorContext): DqError {
  if (err instanceof DqError) return err;
  const e = raw(err);
  const said = maskPassword(e.message, ctx.password);
  const cause = Object.assign(new Error(said), { name: e.name ?? 'Error', ...(e.code ? { code: e.code } : {}) });
  const details = e.errno !== undefined || e.code ? { ...(e.errno !== undefined ? { errno: e.errno } : {}), ...(e.code ? { code: e.code } : {}) } : undefined;
  const make = (kind: ErrorKind, message: string, hint?: string): DqError => new DqError(kind, maskPassword(message, ctx.password), { cause, hint, operation: 'mysql', details });
  const where = `MySQL at ${ctx.label}`;
  const kept = ctx.applying ? '; the table keeps its last complete run' : '';
  const errno = e.errno;

  if (e.name === 'AbortError') return make('cancelled', `Stopped while ${ctx.doing}${kept}.`);
  const tls = tlsProblem(e);
  if (tls) return tlsError(tls, said, ctx, make);
  if (errno !== undefined && LOGIN_REFUSED.has(errno)) {
    const none = ctx.passwordOrigin === undefined || ctx.passwordOrigin === 'none';
    return make(
      'auth',
      `${where} refused the login while ${ctx.doing} (${said}), using ${passwordSource(ctx)}.`,
      none
        ? 'Give the password in MYSQL_PWD or in the [client] group of ~/.my.cnf (password = ...); the URL may hold it too.'
        : 'Check the user in the URL and the password: in the URL, MYSQL_PWD or the [client] group of ~/.my.cnf.',
    );
  }
  if (errno === 1049) return make('usage', `${where}: ${said}.`, 'Create the database first (CREATE DATABASE ... CHARACTER SET utf8mb4), or fix its name in the URL.');
  if (errno !== undefined && PRIVILEGE_REFUSED.has(errno)) return make('auth', `${where} denied a step of ${ctx.doing}: ${said}.`, grant(ctx));
  if (errno !== undefined && DISK_FULL.has(errno)) return make('io', `The MySQL server's disk or table space is full (${ctx.doing}: ${said})${kept}.`, 'Free space on the database server and run the sync again.');
  if (errno === 1146) return make('snapshotRequired', `The target table is missing from ${where} (${said}).`, 'Sync it with a fresh snapshot (--resnapshot) to create it again.');
  if (errno === 1205) {
    return make('io', `Another session holds a table the sync needs in ${where} while ${ctx.doing} (${said})${kept}.`, 'Look for a long transaction or LOCK TABLES on the table (SHOW PROCESSLIST), then run the sync again.');
  }
  if (errno === 1153 || errno === 1301) {
    return make('io', `A row or statement is larger than ${where} accepts (max_allowed_packet) while ${ctx.doing}${kept}.`, 'Ask whoever runs the database to raise max_allowed_packet, then run the sync again.');
  }
  if (errno !== undefined && (DATA_ERRORS.has(errno) || LOCAL_INFILE_REFUSED.has(errno))) {
    if (LOCAL_INFILE_REFUSED.has(errno)) return make('usage', `${where} does not allow LOAD DATA LOCAL INFILE (${said}).`, 'Have an administrator run SET GLOBAL local_infile = 1.');
    return make('invalidResponse', `A record of the results does not fit its column while ${ctx.doing}: ${said}${kept}.`, DATA_ERROR_ADVICE);
  }
  if (e.code && GZIP_CODES.has(e.code)) return make('invalidResponse', `A result file is not valid gzip (${said}) while ${ctx.doing}${kept}.`, 'Run the sync again to download the results anew.');
  if (e.code && IO_CODES.has(e.code) && errno === undefined) return make('io', `Cannot read a result file while ${ctx.doing}: ${said}${kept}.`, 'Check the download folder and run the sync again.');
  if ((e.code && NETWORK_CODES.has(e.code)) || (errno !== undefined && LOST_ERRNOS.has(errno)) || /connection is in closed state|Connection lost|closed the connection/i.test(e.message)) {
    return make('network', `Lost or could not open the connection to ${where} while ${ctx.doing} (${said})${kept}.`, 'Check that the server is running and reachable, then run the sync again.');
  }
  return make('server', `${where} failed while ${ctx.doing}: ${said}${kept}.`);
}

/** The DqError for a step stopped by the run's abort signal; inside an apply, the table keeps its last complete run. */
export function mysqlCancelled(doing: string, applying = false): DqError {
  return new DqError('cancelled', `Stopped while ${doing}${applying ? '; the table keeps its last complete run' : ''}.`);
}

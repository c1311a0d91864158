// Turns what the PostgreSQL driver and server report into DqErrors a person can act on:
// unreachable or lost connections (network), refused credentials or privileges (auth),
// a full disk on the server (io), result files that cannot be read or loaded
// (invalidResponse, io), a missing target table (snapshotRequired), TLS that could not be set
// up (network: a server without TLS, a certificate not verified, another host name), each
// with the sslmode that would connect. The database password never reaches a message or a
// cause: it is masked in every text taken from elsewhere.

import { DqError, type ErrorKind } from '../client/errors';
import type { PasswordOrigin } from './postgresPassword';
import type { TlsChoice } from './postgresTls';

export interface PostgresErrorContext {
  /** the target as shown: the URL without its password */
  label: string;
  /** what was being done: `connecting`, `applying canvas.users`, ... */
  doing: string;
  /** inside an apply: messages say the table keeps its last complete run */
  applying?: boolean;
  /** the password in use, masked wherever it might appear */
  password?: string;
  passwordOrigin?: PasswordOrigin;
  /** the password file that was read, if any */
  passwordFile?: string;
  /** how the connection was to be protected */
  tls?: TlsChoice;
  /** what to grant when the server denies the step (42501): the step's own privilege, with the statement */
  privilege?: string;
}

/** SQLSTATE of a session the server ended for idling past idle_session_timeout */
export const IDLE_SESSION_TIMED_OUT = '57P05';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);
const GZIP_CODES = new Set(['Z_DATA_ERROR', 'Z_BUF_ERROR', 'Z_NEED_DICT', 'Z_STREAM_ERROR']);
const IO_CODES = new Set(['ENOENT', 'EACCES', 'EPERM', 'EISDIR', 'EMFILE', 'ENFILE', 'EIO', 'ENOSPC']);

interface RawError {
  message: string;
  code?: string;
  name?: string;
  detail?: string;
  file?: string;
}

function raw(err: unknown): RawError {
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; detail?: unknown };
    return {
      message: err.message,
      name: err.name,
      code: typeof e.code === 'string' ? e.code : undefined,
      detail: typeof e.detail === 'string' ? e.detail : undefined,
    };
  }
  return { message: String(err) };
}

/** Masks the password (and its URL-encoded form) in a text from elsewhere. */
export function maskPassword(text: string, password: string | undefined): string {
  if (!password) return text;
  let out = text;
  for (const form of new Set([password, encodeURIComponent(password)])) out = out.split(form).join('***');
  return out;
}

function isConnectionLoss(e: RawError): boolean {
  if (e.code && NETWORK_CODES.has(e.code)) return true;
  // SQLSTATE class 08: connection exception; 57P01-57P03: the server shut down or is starting
  if (e.code && (/^08/.test(e.code) || /^57P0[123]$/.test(e.code))) return true;
  return /Connection terminated|connection error|not queryable|Connection timeout|timeout expired|socket hang up/i.test(e.message);
}

function passwordSource(ctx: PostgresErrorContext): string {
  switch (ctx.passwordOrigin) {
    case 'url':
      return 'the password in the URL';
    case 'PGPASSWORD':
      return 'the password in PGPASSWORD';
    case 'pgpass':
      return `the password in ${ctx.passwordFile ?? '~/.pgpass'}`;
    default:
      return 'no password';
  }
}

type TlsProblem = 'noTls' | 'certificate' | 'hostName' | 'handshake';

/** What went wrong in setting up TLS, if that is what failed. */
function tlsProblem(e: RawError): TlsProblem | undefined {
  if (/does not support SSL connections/i.test(e.message)) return 'noTls';
  if (/error establishing an SSL connection/i.test(e.message)) return 'handshake';
  if (!e.code) return undefined;
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'hostName';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|^CA_|^INVALID_CA$|^PATH_LENGTH_EXCEEDED$/.test(e.code)) return 'certificate';
  if (e.code === 'EPROTO' || /^ERR_(SSL|TLS)_/.test(e.code)) return 'handshake';
  return undefined;
}

/** The sslmode in force, as the message names it: `the URL says sslmode=prefer`. */
function tlsReason(tls: TlsChoice | undefined): string {
  if (!tls || tls.from === 'default') return 'a server on another machine is reached only with TLS unless the URL says sslmode=disable';
  const said = tls.from === 'url' ? `the URL says sslmode=${tls.mode}` : `PGSSLMODE is ${tls.mode}`;
  // node-postgres cannot fall back to plain text as libpq does
  return tls.mode === 'prefer' || tls.mode === 'allow' ? `${said}, which is read as sslmode=require here: the connection is encrypted or not made, never made in plain text` : said;
}

/** A record the service sent that cannot be loaded: a fresh snapshot would hold it again, so it is not offered. */
const DATA_ERROR_ADVICE = 'Sync the table again; if it fails the same way, report the table and its schema version to the provider, with this message.';

const DISABLE_ADVICE = 'On a network you trust, sslmode=disable in the URL (or PGSSLMODE=disable) connects without encryption.';
const NO_VERIFY_ADVICE = 'For a server whose certificate cannot be verified, sslmode=require (or no-verify) encrypts without checking it.';

function tlsError(problem: TlsProblem, said: string, ctx: PostgresErrorContext, make: (kind: ErrorKind, message: string, hint?: string) => DqError): DqError {
  const where = `PostgreSQL at ${ctx.label}`;
  const unsent = `Nothing was sent while ${ctx.doing}: not the user name, not the password`;
  switch (problem) {
    case 'noTls':
      return make(
        'network',
        `${where} does not offer TLS (encrypted connections), and ${tlsReason(ctx.tls)}. ${unsent}.`,
        `Turn TLS on in the server (ssl = on in postgresql.conf). ${DISABLE_ADVICE} ${NO_VERIFY_ADVICE}`,
      );
    case 'certificate':
      return make(
        'network',
        `The TLS certificate of ${where} could not be verified (${said}). ${unsent}.`,
        `If the server's certificate comes from your own authority, add sslrootcert=/path/to/root.crt to the URL. ${NO_VERIFY_ADVICE} ${DISABLE_ADVICE}`,
      );
    case 'hostName':
      return make(
        'network',
        `The TLS certificate of ${where} is for another host name (${said}). ${unsent}.`,
        `Write the host name the certificate names in the URL, or use sslmode=verify-ca with sslrootcert to check the authority without the name. ${NO_VERIFY_ADVICE} ${DISABLE_ADVICE}`,
      );
    case 'handshake':
      return make(
        'network',
        `TLS could not be set up with ${where} (${said}) while ${ctx.doing}.`,
        `Check that the server speaks PostgreSQL with TLS on that port. ${NO_VERIFY_ADVICE} ${DISABLE_ADVICE}`,
      );
  }
}

/** The DqError for a failure of the PostgreSQL target, with the raw failure as a clean cause. */
export function postgresError(err: unknown, ctx: PostgresErrorContext): DqError {
  if (err instanceof DqError) return err;
  const e = raw(err);
  const said = maskPassword(e.message, ctx.password);
  const cause = Object.assign(new Error(said), { name: e.name ?? 'Error', ...(e.code ? { code: e.code } : {}) });
  const make = (kind: ErrorKind, message: string, hint?: string): DqError =>
    new DqError(kind, maskPassword(message, ctx.password), { cause, hint, operation: 'postgres', details: e.code ? { code: e.code } : undefined });
  const where = `PostgreSQL at ${ctx.label}`;
  const kept = ctx.applying ? '; the table keeps its last complete run' : '';

  if (e.name === 'AbortError' || e.code === '57014') {
    return make('cancelled', `Stopped while ${ctx.doing}${kept}.`);
  }
  const tls = tlsProblem(e);
  if (tls) return tlsError(tls, said, ctx, make);
  if (e.code === '28P01' || e.code === '28000') {
    return make(
      'auth',
      `${where} refused the login while ${ctx.doing} (${said}), using ${passwordSource(ctx)}.`,
      'Check the user in the URL and the password: in the URL, PGPASSWORD or a password file (~/.pgpass, chmod 600).',
    );
  }
  // the driver's own complaint when the server wants a password it was not given
  if (/password/i.test(e.message) && (ctx.passwordOrigin === undefined || ctx.passwordOrigin === 'none')) {
    return make(
      'auth',
      `${where} asks for a password and none was found while ${ctx.doing}.`,
      'Set PGPASSWORD or add a line host:port:database:user:password to ~/.pgpass (chmod 600); the URL may hold it too.',
    );
  }
  if (e.code === '42501') {
    return make(
      'auth',
      `${where} denied a step of ${ctx.doing}: ${said}.`,
      ctx.privilege ?? 'Grant the user CREATE on the database (for the namespaces\' schemas) and ownership of the synced tables.',
    );
  }
  if (e.code === '3D000') {
    return make('usage', `${where}: ${said}.`, 'Create the database first (createdb), or fix its name in the URL.');
  }
  if (e.code === '53100') {
    return make('io', `The PostgreSQL server's disk is full (${ctx.doing})${kept}.`, 'Free space on the database server and run the sync again.');
  }
  if (e.code === '42P01') {
    return make('snapshotRequired', `The target table is missing from ${where} (${said}).`, 'Sync it with a fresh snapshot (--resnapshot) to create it again.');
  }
  if (e.code === '2BP01') {
    return make('usage', `${where} cannot replace the table while ${ctx.doing}: ${said}${e.detail ? ` (${maskPassword(e.detail, ctx.password)})` : ''}.`, 'Drop the views that depend on the table, then run the sync again.');
  }
  if (e.code && GZIP_CODES.has(e.code)) {
    return make('invalidResponse', `A result file is not valid gzip (${said}) while ${ctx.doing}${kept}.`, 'Run the sync again to download the results anew.');
  }
  if (e.code && /^22/.test(e.code)) {
    return make('invalidResponse', `A record of the results does not fit its column while ${ctx.doing}: ${said}${kept}.`, DATA_ERROR_ADVICE);
  }
  if (e.code === '23502') {
    return make('invalidResponse', `A record of the results has no value for a key column while ${ctx.doing}: ${said}${kept}.`, DATA_ERROR_ADVICE);
  }
  if (e.code && IO_CODES.has(e.code)) {
    return make('io', `Cannot read a result file while ${ctx.doing}: ${said}${kept}.`, 'Check the download folder and run the sync again.');
  }
  if (e.code === IDLE_SESSION_TIMED_OUT) {
    return make(
      'network',
      `${where} closed the session as idle (idle_session_timeout) while ${ctx.doing}${kept}.`,
      'Run the sync again. If it keeps happening, ask whoever runs the database to let idle connections live longer (idle_session_timeout).',
    );
  }
  if (isConnectionLoss(e)) {
    return make('network', `Lost or could not open the connection to ${where} while ${ctx.doing} (${said})${kept}.`, 'Check that the server is running and reachable, then run the sync again.');
  }
  return make('server', `${where} failed while ${ctx.doing}: ${said}${kept}.`);
}

/** The DqError for a step stopped by the run's abort signal; inside an apply, the table keeps its last complete run. */
export function postgresCancelled(doing: string, applying = false): DqError {
  return new DqError('cancelled', `Stopped while ${doing}${applying ? '; the table keeps its last complete run' : ''}.`);
}

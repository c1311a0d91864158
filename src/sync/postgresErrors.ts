// Turns what the PostgreSQL driver and server report into DqErrors a person can act on:
// unreachable or lost connections (network), refused credentials or privileges (auth),
// a full disk on the server (io), result files that cannot be read or loaded
// (invalidResponse, io), a missing target table (snapshotRequired). The database password
// never reaches a message or a cause: it is masked in every text taken from elsewhere.

import { DqError, type ErrorKind } from '../client/errors';
import type { PasswordOrigin } from './postgresPassword';

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
    return make('auth', `${where} denied a step of ${ctx.doing}: ${said}.`, 'Grant the user CREATE on the database (for schemas) and ownership of the synced tables.');
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
    return make('invalidResponse', `A record of the results does not fit its column while ${ctx.doing}: ${said}${kept}.`, 'Run the sync again; if it recurs, sync the table with a fresh snapshot (--resnapshot).');
  }
  if (e.code === '23502') {
    return make('invalidResponse', `A record of the results has no value for a key column while ${ctx.doing}: ${said}${kept}.`, 'Run the sync again; if it recurs, sync the table with a fresh snapshot (--resnapshot).');
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

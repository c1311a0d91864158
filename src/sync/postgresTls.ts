// How a connection to the PostgreSQL target is protected. `sslmode` is read from the URL,
// else from PGSSLMODE in the environment given to the target. With neither, a server on
// another machine is reached over TLS with its certificate and host name checked (as
// sslmode=verify-full), and this machine (localhost, 127.0.0.0/8, ::1, a Unix socket) without
// TLS: the rule the client keeps for plain http. `sslmode=disable` is the one way to plain text
// to another machine. The driver cannot fall back from TLS to plain text as libpq does, so
// `prefer` and `allow` are read as `require`: encrypted, the certificate not checked, and a
// server without TLS refused (never used in plain text).

import type { ConnectionOptions } from 'node:tls';
import { DqError } from '../client/errors';
import { isLoopbackHost } from '../client/serviceUrls';

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full' | 'no-verify';

const SSL_MODES: readonly SslMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/** What protects a connection, and where that was decided: for messages and the log. */
export interface TlsChoice {
  mode: SslMode;
  /** the URL's sslmode, PGSSLMODE, or the default for the server's place */
  from: 'url' | 'PGSSLMODE' | 'default';
  /** the server is this machine (loopback address or Unix socket) */
  local: boolean;
}

/** The driver's `ssl` setting: false (plain text) or the TLS options. */
export type DriverTls = false | ConnectionOptions;

/** What the URL reader (pg-connection-string) made of the URL: its host and TLS parts. */
export interface ParsedTlsParts {
  host?: string | null;
  sslmode?: string | null;
  ssl?: unknown;
  /** the URL chose the reader's own sslmode semantics: its result is taken as it is */
  uselibpqcompat?: string | null;
}

/** A Unix socket path, or localhost, 127.0.0.0/8 and ::1. No host means the driver's default (PGHOST, else localhost). */
export function isLocalServer(host: string | null | undefined, env: NodeJS.ProcessEnv): boolean {
  const server = host || env.PGHOST || 'localhost';
  return server.startsWith('/') || isLoopbackHost(server);
}

/**
 * The TLS the driver uses for a URL the reader parsed (with sslmode read as libpq reads it),
 * and how it was chosen. `env` is the environment given to the target (its PGSSLMODE).
 */
export function chooseTls(parsed: ParsedTlsParts, env: NodeJS.ProcessEnv): { ssl: DriverTls; choice: TlsChoice } {
  const local = isLocalServer(parsed.host, env);
  if (parsed.sslmode) {
    const mode = knownMode(parsed.sslmode, 'url');
    const ssl = parsed.uselibpqcompat ? driverTls(parsed.ssl) : forMode(mode, filesOf(parsed.ssl), 'url');
    return { ssl, choice: { mode, from: 'url', local } };
  }
  if (parsed.ssl === 'no-verify') return { ssl: forMode('no-verify', {}, 'url'), choice: { mode: 'no-verify', from: 'url', local } };
  if (env.PGSSLMODE) {
    const mode = knownMode(env.PGSSLMODE, 'PGSSLMODE');
    return { ssl: forMode(mode, filesOf(parsed.ssl), 'PGSSLMODE'), choice: { mode, from: 'PGSSLMODE', local } };
  }
  // a certificate file or ssl=true in the URL asks for TLS even to this machine; ssl=0 is not an opt-out
  if (local && !parsed.ssl) return { ssl: false, choice: { mode: 'disable', from: 'default', local } };
  return { ssl: filesOf(parsed.ssl), choice: { mode: 'verify-full', from: 'default', local } };
}

function knownMode(value: string, from: 'url' | 'PGSSLMODE'): SslMode {
  const mode = value.trim().toLowerCase() as SslMode;
  if (SSL_MODES.includes(mode)) return mode;
  const where = from === 'url' ? 'The sslmode in the PostgreSQL URL' : 'PGSSLMODE in the environment';
  throw new DqError('usage', `${where} is "${value}", which is not a mode PostgreSQL knows.`, {
    hint: `Use one of ${SSL_MODES.join(', ')} (verify-full checks the server's certificate and name; disable sends everything unencrypted).`,
  });
}

/** The certificate files the reader loaded (sslrootcert, sslcert, sslkey), as TLS options. */
function filesOf(ssl: unknown): ConnectionOptions {
  return typeof ssl === 'object' && ssl !== null ? { ...(ssl as ConnectionOptions) } : {};
}

function driverTls(ssl: unknown): DriverTls {
  if (ssl === false || ssl === undefined || ssl === null) return false;
  return filesOf(ssl);
}

/** A mode applied as libpq applies it; the certificate files come from the URL. */
function forMode(mode: SslMode, files: ConnectionOptions, from: 'url' | 'PGSSLMODE'): DriverTls {
  switch (mode) {
    case 'disable':
      return false;
    case 'allow':
    case 'prefer':
    case 'no-verify':
      return { ...files, rejectUnauthorized: false };
    case 'require':
      // with a root certificate, libpq's require checks the authority (as verify-ca)
      return files.ca ? { ...files, checkServerIdentity: () => undefined } : { ...files, rejectUnauthorized: false };
    case 'verify-ca':
      if (!files.ca) {
        throw new DqError('usage', `sslmode=verify-ca${from === 'PGSSLMODE' ? ' (from PGSSLMODE)' : ''} needs the certificate of the authority to check the server against.`, {
          hint: "Add sslrootcert=/path/to/root.crt to the PostgreSQL URL, or use sslmode=verify-full to check against the system's authorities.",
        });
      }
      return { ...files, checkServerIdentity: () => undefined };
    case 'verify-full':
      return files;
  }
}

/** `sslmode=disable (from the URL)`, `TLS, certificate and host name checked (the default for a server on another machine)`: for the log. */
export function describeTls(choice: TlsChoice): string {
  const what: Record<SslMode, string> = {
    disable: 'no TLS',
    allow: 'TLS without checking the certificate (sslmode=allow, read as require)',
    prefer: 'TLS without checking the certificate (sslmode=prefer, read as require)',
    require: 'TLS without checking the certificate (sslmode=require)',
    'no-verify': 'TLS without checking the certificate (sslmode=no-verify)',
    'verify-ca': 'TLS, certificate checked against sslrootcert (sslmode=verify-ca)',
    'verify-full': 'TLS, certificate and host name checked (sslmode=verify-full)',
  };
  const from = choice.from === 'url' ? 'from the URL' : choice.from === 'PGSSLMODE' ? 'from PGSSLMODE' : choice.local ? 'the default for this machine' : 'the default for a server on another machine';
  return `${what[choice.mode]}, ${from}`;
}

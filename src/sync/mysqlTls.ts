// How a connection to the MySQL target is protected, chosen from the URL's `ssl-mode` (the
// mysql client's names: DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY). Without
// one, a server on another machine is reached over TLS with its certificate and host name
// checked (VERIFY_IDENTITY), and this machine (localhost, 127.0.0.0/8, ::1, a Unix socket)
// without TLS: the rule the PostgreSQL target and the client keep. `ssl-mode=DISABLED` is the one
// way to plain text to another machine. The driver cannot fall back from TLS to plain text, so
// PREFERRED is read as REQUIRED: encrypted, the certificate not checked, and a server without
// TLS refused (never used in plain text). `ssl-ca`, `ssl-cert` and `ssl-key` name PEM files.

import { readFileSync } from 'node:fs';
import { DqError } from '../client/errors';
import { isLoopbackHost } from '../client/serviceUrls';
import type { MysqlUrl } from './mysqlUrl';

export type MysqlSslMode = 'DISABLED' | 'PREFERRED' | 'REQUIRED' | 'VERIFY_CA' | 'VERIFY_IDENTITY';
const MODES: readonly MysqlSslMode[] = ['DISABLED', 'PREFERRED', 'REQUIRED', 'VERIFY_CA', 'VERIFY_IDENTITY'];

export interface MysqlTlsChoice {
  mode: MysqlSslMode;
  /** the URL's ssl-mode, or the default for the server's place */
  from: 'url' | 'default';
  /** the server is this machine (a loopback address or a Unix socket) */
  local: boolean;
}

/** The driver's `ssl` option: TLS options with mysql2's `verifyIdentity`, or none (plain text). */
export interface MysqlDriverTls {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
  verifyIdentity: boolean;
}

export function isLocalMysqlServer(url: Pick<MysqlUrl, 'host' | 'params'>): boolean {
  return url.params.socket !== undefined || isLoopbackHost(url.host || 'localhost');
}

function modeOf(value: string): MysqlSslMode {
  const mode = value.trim().toUpperCase().replace(/-/g, '_') as MysqlSslMode;
  if (MODES.includes(mode)) return mode;
  throw new DqError('usage', `The ssl-mode in the MySQL URL is "${value}", which is not a mode MySQL knows.`, {
    hint: `Use one of ${MODES.join(', ')} (VERIFY_IDENTITY checks the server's certificate and name; DISABLED sends everything unencrypted).`,
  });
}

/** The ssl-mode the URL asks for, or the default for the server's place. */
export function chooseMysqlTls(url: Pick<MysqlUrl, 'host' | 'params'>): MysqlTlsChoice {
  const local = isLocalMysqlServer(url);
  if (url.params['ssl-mode'] !== undefined) return { mode: modeOf(url.params['ssl-mode']), from: 'url', local };
  // a certificate named in the URL asks for TLS even to this machine
  const asked = url.params['ssl-ca'] !== undefined || url.params['ssl-cert'] !== undefined;
  if (local && !asked) return { mode: 'DISABLED', from: 'default', local };
  return { mode: 'VERIFY_IDENTITY', from: 'default', local };
}

function readPem(file: string, param: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new DqError('usage', `The file ${file} that the MySQL URL names (${param}) cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`, {
      hint: 'Check the path and its permissions.',
    });
  }
}

/** The driver's TLS options for a choice, the certificate files read; undefined for plain text. */
export function driverTls(choice: MysqlTlsChoice, url: Pick<MysqlUrl, 'params'>): MysqlDriverTls | undefined {
  if (choice.mode === 'DISABLED') return undefined;
  const files: Pick<MysqlDriverTls, 'ca' | 'cert' | 'key'> = {};
  if (url.params['ssl-ca']) files.ca = readPem(url.params['ssl-ca'], 'ssl-ca');
  if (url.params['ssl-cert']) files.cert = readPem(url.params['ssl-cert'], 'ssl-cert');
  if (url.params['ssl-key']) files.key = readPem(url.params['ssl-key'], 'ssl-key');
  switch (choice.mode) {
    case 'PREFERRED':
    case 'REQUIRED':
      return { ...files, rejectUnauthorized: false, verifyIdentity: false };
    case 'VERIFY_CA':
      if (!files.ca) {
        throw new DqError('usage', 'ssl-mode=VERIFY_CA in the MySQL URL needs the certificate of the authority to check the server against.', {
          hint: "Add ssl-ca=/path/to/ca.pem to the URL, or use ssl-mode=VERIFY_IDENTITY to check against the system's authorities.",
        });
      }
      return { ...files, rejectUnauthorized: true, verifyIdentity: false };
    case 'VERIFY_IDENTITY':
      return { ...files, rejectUnauthorized: true, verifyIdentity: true };
  }
}

/** `TLS, certificate and host name checked (the default for a server on another machine)`: for the log and messages. */
export function describeMysqlTls(choice: MysqlTlsChoice): string {
  const what: Record<MysqlSslMode, string> = {
    DISABLED: 'no TLS',
    PREFERRED: 'TLS without checking the certificate (ssl-mode=PREFERRED, read as REQUIRED)',
    REQUIRED: 'TLS without checking the certificate (ssl-mode=REQUIRED)',
    VERIFY_CA: 'TLS, certificate checked against ssl-ca (ssl-mode=VERIFY_CA)',
    VERIFY_IDENTITY: 'TLS, certificate and host name checked (ssl-mode=VERIFY_IDENTITY)',
  };
  const from = choice.from === 'url' ? 'from the URL' : choice.local ? 'the default for this machine' : 'the default for a server on another machine';
  return `${what[choice.mode]}, ${from}`;
}

// Connections of the PostgreSQL target: the URL read once (what to show of it, how to reach
// the server), sessions opened with the password found where PostgreSQL's tools look for it,
// statements run with their failures read as DqErrors, and the cancel of a running statement
// from the side. A session whose connection dropped is marked broken and never used again.
// The password lives only in the driver's callback.

import * as os from 'node:os';
import { Client, type ClientConfig, type QueryResult } from 'pg';
import { parse } from 'pg-connection-string';
import { DqError } from '../client/errors';
import type { Logger } from '../core/logger';
import { postgresError, type PostgresErrorContext } from './postgresErrors';
import { findPassword, type FoundPassword } from './postgresPassword';
import { chooseTls, describeTls, type ParsedTlsParts, type TlsChoice } from './postgresTls';
import { postgresUrlLabel, readPostgresUrl } from './postgresUrl';

export interface PostgresEndpointOptions {
  url: string;
  logger: Logger;
  /** where PGPASSWORD, PGPASSFILE and PGSSLMODE are read (process.env by default) */
  env?: NodeJS.ProcessEnv;
  /** where ~/.pgpass is looked for (the user's home by default) */
  homeDir?: string;
}

/** The URL as a person may see it (as `dq sync --to` shows it): no password, in the user part or the query. */
export function postgresLabel(url: string): string {
  return postgresUrlLabel(readPostgresUrl(url));
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * What the driver needs to reach the server, read from the URL (refused as `readPostgresUrl`
 * refuses it), the URL's password apart, and the TLS chosen (see postgresTls.ts). `sslmode`
 * keeps libpq's meaning, as psql reads it: `require` encrypts without checking the
 * certificate, `verify-ca` checks it against `sslrootcert`, `verify-full` checks the host name
 * too; without one in the URL, PGSSLMODE in `env` decides, else the server's place. The
 * driver's own reading of PGSSLMODE in the process is never used: `ssl` is always set. (Left
 * to itself, pg 8 treats `require` as `verify-full` and prints a warning about it on stderr; a
 * URL that says `uselibpqcompat` itself is read as it says.)
 */
export function connectionConfig(url: string, env: NodeJS.ProcessEnv = process.env): { config: ClientConfig; password?: string; tls: TlsChoice } {
  const libpq = readPostgresUrl(url).searchParams.has('uselibpqcompat') ? {} : { useLibpqCompat: true };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(url, libpq);
  } catch (err) {
    throw unreadableUrl(err);
  }
  const { password, ...rest } = parsed;
  const { ssl, choice } = chooseTls(rest as ParsedTlsParts, env);
  const clean = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined && v !== ''));
  return { config: { ...(clean as ClientConfig), ssl }, password: password || undefined, tls: choice };
}

/** Why the driver could not read the URL; the URL is never repeated: it may hold the password. */
function unreadableUrl(err: unknown): DqError {
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.message === 'string' && /sslmode=verify-ca requires .*sslrootcert/i.test(e.message)) {
    return new DqError('usage', 'sslmode=verify-ca in the PostgreSQL URL needs the certificate of the authority to check the server against.', {
      hint: 'Add sslrootcert=/path/to/root.crt to the URL, or use sslmode=verify-full to check against the system\'s authorities.',
    });
  }
  if (typeof e?.code === 'string' && typeof e.path === 'string') {
    return new DqError('usage', `The file ${e.path} that the PostgreSQL URL names (sslrootcert, sslcert or sslkey) cannot be read (${e.code}).`, {
      hint: 'Check the path and its permissions.',
    });
  }
  return new DqError('usage', 'The PostgreSQL URL cannot be read.', {
    hint: 'Write it as postgresql://user@host:port/database (percent-encode special characters).',
  });
}

export class PostgresEndpoint {
  readonly label: string;
  /** how connections are protected: TLS or not, and where that was decided */
  readonly tls: TlsChoice;
  private readonly config: ClientConfig;
  private readonly urlPassword?: string;
  private found?: FoundPassword;

  constructor(private readonly options: PostgresEndpointOptions) {
    if (!isPostgresUrl(options.url)) {
      throw new DqError('usage', 'A PostgreSQL target is a URL that starts with postgresql://', {
        hint: 'Write it as postgresql://user@host:port/database; keep the password in PGPASSWORD or ~/.pgpass.',
      });
    }
    const { config, password, tls } = connectionConfig(options.url, options.env ?? process.env);
    this.label = postgresLabel(options.url);
    this.urlPassword = password;
    this.tls = tls;
    options.logger.debug(`postgres: ${this.label}: ${describeTls(tls)}`);
    this.config = {
      ...config,
      application_name: `dq sync (pid ${process.pid} on ${os.hostname()})`.slice(0, 63),
      connectionTimeoutMillis: 30_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    };
  }

  /** What messages about a failure need: the label, and the password to mask. */
  errorContext(doing: string, applying = false): PostgresErrorContext {
    return {
      label: this.label,
      tls: this.tls,
      doing,
      applying,
      password: this.found?.password ?? this.urlPassword,
      passwordOrigin: this.found?.origin,
      passwordFile: this.found?.file,
    };
  }

  /** Opens a session; fails with a DqError (network, auth, ...) that never holds the password. */
  async connect(doing: string): Promise<PostgresSession> {
    const client = new Client({
      ...this.config,
      password: (async (params: { host: string; port: number; database: string; user: string }) => {
        this.found ??= await findPassword(
          { host: params.host, port: Number(params.port), database: params.database, user: params.user },
          { fromUrl: this.urlPassword, env: this.options.env, homeDir: this.options.homeDir, logger: this.options.logger },
        );
        return this.found.password;
      }) as unknown as () => Promise<string>,
    });
    const session = new PostgresSession(client, this.options.logger, this.label);
    try {
      await client.connect();
      // literals in our SQL rely on it; timestamps without an offset are UTC
      await client.query(`SET standard_conforming_strings = on; SET TimeZone = 'UTC'`);
    } catch (err) {
      await session.close();
      throw postgresError(err, this.errorContext(doing));
    }
    return session;
  }

  /** Runs one statement; `privilege` is what to grant should the server deny it. */
  async run<T extends object = Record<string, unknown>>(session: PostgresSession, doing: string, sql: string, params?: unknown[], privilege?: string) {
    try {
      return await session.client.query<T & Record<string, unknown>>(sql, params);
    } catch (err) {
      throw postgresError(err, { ...this.errorContext(doing), privilege });
    }
  }

  /** Runs statements in a transaction of their own, committed at once; `privilege` is what to grant should the server deny it. */
  async inShortTransaction(session: PostgresSession, doing: string, statements: [string, unknown[]?][], privilege?: string) {
    try {
      await session.client.query('BEGIN');
      const results = [];
      for (const [sql, params] of statements) results.push(await session.client.query(sql, params));
      await session.client.query('COMMIT');
      return results;
    } catch (err) {
      if (session.usable) await session.client.query('ROLLBACK').catch(() => undefined);
      throw postgresError(err, { ...this.errorContext(doing), privilege });
    }
  }

  /** Cancels the statement a session runs, from another connection; false when it could not. */
  async cancel(pid: number): Promise<boolean> {
    let side: PostgresSession | undefined;
    try {
      side = await this.connect('cancelling a statement');
      const { rows } = await side.client.query<{ ok: boolean }>('SELECT pg_cancel_backend($1) AS ok', [pid]);
      return rows[0]?.ok === true;
    } catch (err) {
      this.options.logger.debug(`postgres: could not cancel backend ${pid}: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    } finally {
      await side?.close();
    }
  }
}

/** One statement of an apply, in its transaction on the lock's session. */
export type PostgresQuery = (sql: string, params?: unknown[]) => Promise<QueryResult>;

/** One connection. `broken` once the driver reported the connection lost. */
export class PostgresSession {
  broken = false;
  private closed = false;

  constructor(
    readonly client: Client,
    private readonly logger: Logger,
    private readonly label: string,
  ) {
    // without a listener, a connection lost while idle would end the process
    client.on('error', (err) => {
      this.broken = true;
      logger.debug(`postgres: connection to ${label} lost: ${err.message}`);
    });
    client.on('end', () => {
      this.broken = true;
    });
  }

  /** The server process of this session (for cancel and for messages). */
  get pid(): number | undefined {
    return (this.client as unknown as { processID?: number }).processID ?? undefined;
  }

  get usable(): boolean {
    return !this.broken && !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.client.end();
    } catch (err) {
      this.logger.debug(`postgres: closing a connection to ${this.label}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

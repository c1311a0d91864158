// Connections of the PostgreSQL target: the URL read once (what to show of it, how to reach
// the server), sessions opened with the password found where PostgreSQL's tools look for it,
// and the cancel of a running statement from the side. A session whose connection dropped
// is marked broken and never used again. The password lives only in the driver's callback.

import * as os from 'node:os';
import { Client, type ClientConfig } from 'pg';
import { parse } from 'pg-connection-string';
import { DqError } from '../client/errors';
import type { Logger } from '../core/logger';
import { postgresError, type PostgresErrorContext } from './postgresErrors';
import { findPassword, type FoundPassword } from './postgresPassword';

export interface PostgresEndpointOptions {
  url: string;
  logger: Logger;
  /** where PGPASSWORD and PGPASSFILE are read (process.env by default) */
  env?: NodeJS.ProcessEnv;
  /** where ~/.pgpass is looked for (the user's home by default) */
  homeDir?: string;
}

/** Query parameters never shown: they may hold a password or a key. */
const HIDDEN_PARAM = /pass|secret|key|token/i;

/** The URL as a person may see it (as `dq sync --to` shows it): no password, in the user part or the query. */
export function postgresLabel(url: string): string {
  const u = new URL(url);
  const user = u.username ? `${decodeURIComponent(u.username)}@` : '';
  const params = [...u.searchParams.entries()].filter(([name]) => !HIDDEN_PARAM.test(name));
  const query = params.length ? `?${params.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
  return `${u.protocol}//${user}${u.host}${u.pathname}${query}`;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export class PostgresEndpoint {
  readonly label: string;
  private readonly config: ClientConfig;
  private readonly urlPassword?: string;
  private found?: FoundPassword;

  constructor(private readonly options: PostgresEndpointOptions) {
    if (!isPostgresUrl(options.url)) {
      throw new DqError('usage', 'A PostgreSQL target is a URL that starts with postgresql://', {
        hint: 'Write it as postgresql://user@host:port/database; keep the password in PGPASSWORD or ~/.pgpass.',
      });
    }
    let parsed: ReturnType<typeof parse>;
    try {
      this.label = postgresLabel(options.url);
      parsed = parse(options.url);
    } catch {
      // the URL is never repeated: it may hold the password
      throw new DqError('usage', 'The PostgreSQL URL cannot be read.', {
        hint: 'Write it as postgresql://user@host:port/database (percent-encode special characters).',
      });
    }
    const { password, ...rest } = parsed;
    this.urlPassword = password || undefined;
    const clean = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined && v !== ''));
    this.config = {
      ...(clean as ClientConfig),
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

// Connections of the MySQL target: the URL read once (what to show of it, how to reach the
// server, the TLS to use), sessions opened with the password found where MySQL's tools look for
// it (kept in memory only, never shown), each set to UTC and strict SQL, statements run with
// their failures read as DqErrors. A session whose connection dropped is marked broken and never
// used again; `destroy` ends one at once (the server then rolls back what it had open and frees
// its locks). What the server offers (the binary collation without padding its keys use, and
// whether it allows LOAD DATA LOCAL) is asked once.

import * as os from 'node:os';
import type { Connection, ConnectionOptions, ResultSetHeader } from 'mysql2';
import { DqError } from '../client/errors';
import type { Logger } from '../core/logger';
import { mysqlError, type MysqlErrorContext } from './mysqlErrors';
import { findMysqlPassword, type FoundMysqlPassword } from './mysqlPassword';
import { chooseMysqlTls, describeMysqlTls, driverTls, type MysqlTlsChoice } from './mysqlTls';
import { readMysqlUrl, type MysqlUrl } from './mysqlUrl';

export interface MysqlEndpointOptions {
  url: string;
  logger: Logger;
  /** where MYSQL_PWD and HOME are read (process.env by default) */
  env?: NodeJS.ProcessEnv;
  /** where ~/.my.cnf is looked for (the user's home by default) */
  homeDir?: string;
}

/** What the server offers, asked once. */
export interface MysqlServerFacts {
  /** `utf8mb4_0900_bin` (MySQL 8) or `utf8mb4_nopad_bin` (MariaDB); `utf8mb4_bin` where neither exists */
  keyCollation: string;
  /** LOAD DATA LOCAL INFILE is allowed (the server's local_infile) */
  localInfile: boolean;
  version: string;
}

/** Strict: a value that does not fit fails its statement rather than being cut (LOAD DATA LOCAL aside, see mysqlLoad.ts). */
const SESSION_SETUP = `SET SESSION time_zone = '+00:00', SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION', SESSION lock_wait_timeout = 120`;
const KEY_COLLATIONS = ['utf8mb4_0900_bin', 'utf8mb4_nopad_bin'];

export class MysqlEndpoint {
  readonly label: string;
  readonly url: MysqlUrl;
  readonly tls: MysqlTlsChoice;
  private found?: FoundMysqlPassword;
  private facts?: Promise<MysqlServerFacts>;

  constructor(private readonly options: MysqlEndpointOptions) {
    this.url = readMysqlUrl(options.url);
    this.label = this.url.label;
    this.tls = chooseMysqlTls(this.url);
    options.logger.debug(`mysql: ${this.label}: ${describeMysqlTls(this.tls)}`);
  }

  get database(): string {
    return this.url.database;
  }

  /** What messages about a failure need: the label, and the password to mask. */
  errorContext(doing: string, applying = false): MysqlErrorContext {
    return {
      label: this.label,
      doing,
      applying,
      tls: this.tls,
      password: this.found?.password ?? this.url.password,
      passwordOrigin: this.found?.origin,
      passwordFile: this.found?.file,
      database: this.url.database,
      user: this.url.user,
    };
  }

  /** Opens a session; fails with a DqError (network, auth, ...) that never holds the password. */
  async connect(doing: string): Promise<MysqlSession> {
    this.found ??= await findMysqlPassword({ fromUrl: this.url.password, env: this.options.env, homeDir: this.options.homeDir, logger: this.options.logger });
    let config: ConnectionOptions;
    try {
      config = this.config(this.found.password);
    } catch (err) {
      throw mysqlError(err, this.errorContext(doing));
    }
    const { createConnection } = require('./mysqlDriver') as typeof import('./mysqlDriver');
    const connection = createConnection(config);
    const session = new MysqlSession(connection, this.options.logger, this.label);
    try {
      await new Promise<void>((resolve, reject) => connection.connect((err) => (err ? reject(err) : resolve())));
      await session.query(SESSION_SETUP);
    } catch (err) {
      session.destroy();
      throw mysqlError(err, this.errorContext(doing));
    }
    return session;
  }

  /** Runs one statement; its failure as a DqError. */
  async run<T = Record<string, unknown>>(session: MysqlSession, doing: string, sql: string, params?: unknown[]): Promise<T[]> {
    try {
      return (await session.query(sql, params)) as T[];
    } catch (err) {
      throw mysqlError(err, this.errorContext(doing));
    }
  }

  /** What the server offers (asked once, on the given session). */
  serverFacts(session: MysqlSession): Promise<MysqlServerFacts> {
    this.facts ??= (async () => {
      const found = (await session.query(`SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN (?, ?)`, KEY_COLLATIONS)) as { name: string }[];
      const names = new Set(found.map((r) => r.name));
      const [row] = (await session.query('SELECT @@GLOBAL.local_infile AS local_infile, VERSION() AS version')) as { local_infile: unknown; version: string }[];
      return {
        keyCollation: KEY_COLLATIONS.find((c) => names.has(c)) ?? 'utf8mb4_bin',
        localInfile: Number(row.local_infile) === 1,
        version: row.version,
      };
    })();
    this.facts.catch(() => (this.facts = undefined));
    return this.facts;
  }

  private config(password: string | undefined): ConnectionOptions {
    const { url } = this;
    const ssl = driverTls(this.tls, url);
    return {
      ...(url.params.socket ? { socketPath: url.params.socket } : { host: url.host, port: url.port }),
      user: url.user,
      password,
      database: url.database,
      ...(ssl ? { ssl } : {}),
      charset: 'UTF8MB4_UNICODE_CI',
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      connectTimeout: 30_000,
      enableKeepAlive: true,
      keepAliveInitialDelay: 10_000,
      connectAttributes: { program_name: 'dq sync', dq_pid: String(process.pid), dq_host: os.hostname().slice(0, 60) },
    };
  }
}

/** A statement's options beyond its text: the stream LOAD DATA LOCAL reads. */
export interface MysqlQueryOptions {
  infile?: () => NodeJS.ReadableStream;
}

/** One connection. `broken` once the driver reported the connection lost. */
export class MysqlSession {
  broken = false;
  private closed = false;

  constructor(
    readonly connection: Connection,
    private readonly logger: Logger,
    private readonly label: string,
  ) {
    // without a listener, a connection lost while idle would end the process
    connection.on('error', (err: Error) => {
      this.broken = true;
      logger.debug(`mysql: connection to ${label} lost: ${err.message}`);
    });
    connection.on('end', () => (this.broken = true));
  }

  /** The server's id of this connection (for KILL, and for messages). */
  get threadId(): number | undefined {
    return this.connection.threadId ?? undefined;
  }

  get usable(): boolean {
    return !this.broken && !this.closed;
  }

  /** The socket the driver writes to (its write buffer tells when to wait). */
  get socket(): NodeJS.WritableStream & { writableNeedDrain?: boolean } {
    return (this.connection as unknown as { stream: NodeJS.WritableStream & { writableNeedDrain?: boolean } }).stream;
  }

  /** Runs one statement: rows for a query, the result header (affected rows, warnings) for the rest. */
  query(sql: string, params?: unknown[], options: MysqlQueryOptions = {}): Promise<unknown> {
    if (!this.usable) return Promise.reject(new DqError('network', `The connection to MySQL at ${this.label} was lost.`, { operation: 'mysql' }));
    return new Promise((resolve, reject) => {
      const request = { sql, ...(params ? { values: params } : {}), ...(options.infile ? { infileStreamFactory: options.infile } : {}) };
      this.connection.query(request as never, (err: Error | null, result: unknown) => (err ? reject(err) : resolve(result)));
    });
  }

  /** A statement that changes rows: its result header. */
  async change(sql: string, params?: unknown[], options?: MysqlQueryOptions): Promise<ResultSetHeader> {
    return (await this.query(sql, params, options)) as ResultSetHeader;
  }

  /** Ends the connection at once: the server rolls back its open transaction and frees its locks. */
  destroy(): void {
    if (this.closed) return;
    this.closed = true;
    this.connection.destroy();
  }

  /** Ends the connection politely (at once when it is broken or does not answer within a few seconds). */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.broken) {
      this.destroy();
      return;
    }
    this.closed = true;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.connection.destroy();
        resolve();
      }, 5_000);
      this.connection.end((err) => {
        clearTimeout(timer);
        if (err) this.logger.debug(`mysql: closing a connection to ${this.label}: ${err.message}`);
        resolve();
      });
    });
  }
}

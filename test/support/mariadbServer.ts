// A real MariaDB server for integration tests: Debian's `mariadb-server` package (mariadbd and
// mariadb-install-db), started in a temporary folder, listening on 127.0.0.1 and a free port,
// with its socket inside that folder and LOCAL INFILE allowed. The harness sets up as root over
// the socket; the user the tests use (`dq_sync`, with all privileges on database `dq_test`)
// connects over TCP with a real password, so the password paths are tried for real. mariadbd
// refuses to run as root unless told `--user=root`, which the harness says when it is root.
// Stopped by process id (SIGTERM, then SIGKILL after a bound); the folder is removed.
//
// The tests that use it are skipped, saying why, when MariaDB is not installed, unless
// CI_REQUIRE_MARIADB=1 says they must run (then they fail).

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createConnection, type Connection } from 'mysql2';
import { freePort, startServerProcess, userUrls, type TestServer } from './serverProcess';

export const MARIADB_MISSING =
  'MariaDB is not installed, and the MySQL sync tests start a real server. Install it with:\n' +
  '  sudo apt-get update && sudo apt-get install -y mariadb-server\n' +
  'or point MARIADB_BINDIR at a folder holding mariadbd and mariadb-install-db.';

/** `url` is `mysql://dq_sync:<password>@127.0.0.1:<port>/dq_test`; `admin` runs one statement as root. */
export interface MariadbServer extends TestServer {
  readonly database: string;
  /** A root session of the test's own (to hold locks); the caller ends it. */
  adminConnection(): Promise<AdminConnection>;
}

/** A session of the test's own. */
export interface AdminConnection {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  threadId: number;
  end(): Promise<void>;
}

const USER = 'dq_sync';
const DATABASE = 'dq_test';

function binary(name: string, dirs: string[]): string | undefined {
  return dirs.map((d) => path.join(d, name)).find((p) => fs.existsSync(p));
}

/** mariadbd and mariadb-install-db, or undefined when MariaDB is not installed. */
export function findMariadb(): { server: string; installDb: string } | undefined {
  const dirs = process.env.MARIADB_BINDIR ? [process.env.MARIADB_BINDIR] : ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin'];
  const server = binary('mariadbd', dirs);
  const installDb = binary('mariadb-install-db', dirs) ?? binary('mariadb-install-db', ['/usr/bin']);
  return server && installDb ? { server, installDb } : undefined;
}

/** Skips the suite (saying why) when MariaDB is missing, unless CI_REQUIRE_MARIADB=1 says it must run: then it fails. */
export function requireMariadb(ctx: Mocha.Context): void {
  if (findMariadb()) return;
  if (process.env.CI_REQUIRE_MARIADB === '1') throw new Error(`${MARIADB_MISSING}\n(CI_REQUIRE_MARIADB=1: the MySQL sync tests must run here.)`);
  // mocha prints skipped tests as pending; the reason goes to the log once
  console.warn(`skipping the MySQL sync tests: ${MARIADB_MISSING.split('\n')[0]}`);
  ctx.skip();
}

function query<T>(c: Connection, sql: string, params?: unknown[]): Promise<T[]> {
  return new Promise((resolve, reject) => c.query({ sql, values: params } as never, (err: Error | null, rows: unknown) => (err ? reject(err) : resolve(rows as T[]))));
}

function connectAdmin(socketPath: string, database?: string): Promise<Connection> {
  const c = createConnection({ socketPath, user: 'root', database, dateStrings: true, supportBigNumbers: true, bigNumberStrings: true, multipleStatements: true });
  c.on('error', () => undefined);
  return new Promise((resolve, reject) => c.connect((err) => (err ? reject(err) : resolve(c))));
}

export interface MariadbOptions {
  /** InnoDB's buffer pool in MiB (default 64: a test server; the bench gives the server more, as a real one has) */
  bufferPoolMiB?: number;
}

export async function startMariadb(options: MariadbOptions = {}): Promise<MariadbServer> {
  const found = findMariadb();
  if (!found) throw new Error(MARIADB_MISSING);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dq-mariadb-'));
  const data = path.join(dir, 'data');
  const socket = path.join(dir, 'mysqld.sock');
  const log = path.join(dir, 'server.log');
  const root = process.getuid?.() === 0;
  const asUser = root ? ['--user=root'] : [];
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', LANG: 'C', TZ: 'UTC' };
  delete env.MYSQL_PWD;

  const init = spawnSync(found.installDb, ['--no-defaults', '--auth-root-authentication-method=normal', `--datadir=${data}`, '--skip-test-db', '--skip-name-resolve', ...asUser], {
    env,
    cwd: dir,
    encoding: 'utf8',
  });
  if (init.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`mariadb-install-db failed (exit ${init.status}): ${(init.stderr || String(init.error)).trim().split('\n').slice(-5).join('\n')}`);
  }

  const port = await freePort();
  const password = `pw-${randomBytes(9).toString('hex')}`;
  const args = [
    '--no-defaults',
    `--datadir=${data}`,
    `--socket=${socket}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--pid-file=${path.join(dir, 'mariadbd.pid')}`,
    `--log-error=${log}`,
    '--local-infile=1',
    '--skip-name-resolve',
    // a test server: small memory, no flushing to disk on commit (a crash of the machine would lose the last commits)
    `--innodb-buffer-pool-size=${options.bufferPoolMiB ?? 64}M`,
    '--innodb-log-file-size=48M',
    '--innodb-flush-log-at-trx-commit=2',
    '--max-connections=60',
    ...asUser,
  ];
  const server = startServerProcess('mariadbd', found.server, args, { env, cwd: dir, stdio: 'ignore' }, 'SIGKILL');
  const stopServer = (): Promise<void> => server.stop('SIGTERM', 20_000);

  const admin = async <T>(sql: string, params?: unknown[]): Promise<T[]> => {
    const c = await connectAdmin(socket, DATABASE);
    try {
      return await query<T>(c, sql, params);
    } finally {
      c.destroy();
    }
  };

  try {
    await server.accepting(async () => (await connectAdmin(socket)).destroy(), log, 90_000);
    const c = await connectAdmin(socket);
    try {
      await query(c, `CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4`);
      await query(c, `CREATE USER '${USER}'@'127.0.0.1' IDENTIFIED BY '${password}'`);
      await query(c, `GRANT ALL ON ${DATABASE}.* TO '${USER}'@'127.0.0.1'`);
    } finally {
      c.destroy();
    }
  } catch (err) {
    await stopServer();
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  return {
    ...userUrls('mysql', USER, password, port, DATABASE),
    database: DATABASE,
    get pid() {
      return server.pid;
    },
    admin,
    async adminConnection() {
      const c = await connectAdmin(socket, DATABASE);
      return {
        query: <T>(sql: string, params?: unknown[]) => query<T>(c, sql, params),
        threadId: c.threadId,
        end: async () => c.destroy(),
      };
    },
    async stop() {
      await stopServer();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

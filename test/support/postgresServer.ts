// A real PostgreSQL server for integration tests: Debian's `postgresql` package, started from
// /usr/lib/postgresql/<version>/bin in a temporary folder, listening on 127.0.0.1 and a free
// port, with its socket inside that folder. Local (socket) connections are trusted, so the
// harness sets up as the superuser; TCP connections need a password, so the role the tests
// use (`dq_sync`, owner of database `dq_test`) goes through real password authentication.
// PostgreSQL refuses to run as root: as root, initdb and postgres run as `nobody`, which
// owns the folder. Stopped by process id; the folder is removed.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { freePort, startServerProcess, userUrls, type ServerProcess, type TestServer } from './serverProcess';

export const POSTGRES_MISSING =
  'PostgreSQL is not installed, and the PostgreSQL sync tests start a real server. Install it with:\n' +
  '  sudo apt-get update && sudo apt-get install -y postgresql\n' +
  'or point PG_BINDIR at a folder holding initdb and postgres.';

/** `url` is `postgresql://dq_sync:<password>@127.0.0.1:<port>/dq_test`. */
export interface PostgresServer extends TestServer {
  /** A superuser session of the test's own (to hold locks); the caller ends it. */
  adminClient(): Promise<Client>;
  /** Immediate shutdown (as in a crash): backends are killed, nothing is checkpointed. */
  halt(): Promise<void>;
  /** Starts the server again on the same folder and port, after `halt`. */
  restart(): Promise<void>;
}

const USER = 'dq_sync';
const DATABASE = 'dq_test';
const SUPERUSER = 'dq_admin';

/** The bin folder of the newest Debian PostgreSQL, or undefined. */
export function findPostgresBin(): string | undefined {
  const fromEnv = process.env.PG_BINDIR;
  if (fromEnv && fs.existsSync(path.join(fromEnv, 'initdb'))) return fromEnv;
  const root = '/usr/lib/postgresql';
  let versions: string[];
  try {
    versions = fs.readdirSync(root);
  } catch {
    return undefined;
  }
  const bins = versions
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(root, v, 'bin'))
    .filter((bin) => fs.existsSync(path.join(bin, 'initdb')) && fs.existsSync(path.join(bin, 'postgres')));
  return bins[0];
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/** As root: the uid and gid of `nobody`, whom PostgreSQL agrees to run as. */
function unprivileged(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string): number => {
    const out = spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' });
    const n = Number(out.stdout.trim());
    if (out.status !== 0 || !Number.isInteger(n)) throw new Error('running as root, and no user `nobody` to run PostgreSQL as');
    return n;
  };
  return { uid: id('-u'), gid: id('-g') };
}

function chownTree(dir: string, who: RunAs): void {
  if (who.uid === undefined || who.gid === undefined) return;
  fs.chownSync(dir, who.uid, who.gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(p, who);
    else fs.chownSync(p, who.uid, who.gid);
  }
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(POSTGRES_MISSING);
  const who = unprivileged();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dq-pg-'));
  const data = path.join(dir, 'data');
  const socketDir = path.join(dir, 'sock');
  const log = path.join(dir, 'server.log');
  fs.mkdirSync(socketDir);
  chownTree(dir, who);
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C', LANG: 'C', TZ: 'UTC' };
  delete env.PGPASSWORD;

  const init = spawnSync(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', SUPERUSER, '--auth-local=trust', '--auth-host=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions'],
    { ...who, env, cwd: dir, encoding: 'utf8' },
  );
  if (init.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (exit ${init.status}): ${(init.stderr || String(init.error)).trim()}`);
  }

  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  let server: ServerProcess | undefined;

  const launch = async (): Promise<void> => {
    const out = fs.openSync(log, 'a');
    const args = ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', socketDir];
    // a test server: no flushing to disk (a crash of the server loses nothing, a crash of the
    // machine would), small memory. Commits stay synchronous, or a halt would lose the last ones.
    for (const setting of ['fsync=off', 'full_page_writes=off', 'shared_buffers=32MB', 'max_connections=40']) {
      args.push('-c', setting);
    }
    server = startServerProcess('postgres', path.join(bin, 'postgres'), args, { ...who, env, cwd: dir, stdio: ['ignore', out, out] }, 'SIGQUIT');
    fs.closeSync(out);
    const probe = async (): Promise<void> => {
      const client = new Client({ host: socketDir, port, user: SUPERUSER, database: 'postgres' });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        await client.end();
      } catch (err) {
        await client.end().catch(() => undefined);
        throw err;
      }
    };
    await server.accepting(probe, log, 60_000);
  };

  /** Stops the server with `signal` (SIGKILL after 30 s). */
  const stopServer = async (signal: NodeJS.Signals): Promise<void> => {
    await server?.stop(signal, 30_000);
  };

  const admin = async <T>(sql: string, params?: unknown[], database = DATABASE): Promise<T[]> => {
    const c = new Client({ host: socketDir, port, user: SUPERUSER, database });
    c.on('error', () => undefined);
    await c.connect();
    try {
      return (await c.query(sql, params)).rows as T[];
    } finally {
      await c.end();
    }
  };

  try {
    await launch();
    await admin(`CREATE ROLE ${USER} LOGIN PASSWORD '${password}'`, undefined, 'postgres');
    await admin(`CREATE DATABASE ${DATABASE} OWNER ${USER}`, undefined, 'postgres');
  } catch (err) {
    await stopServer('SIGQUIT');
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  return {
    ...userUrls('postgresql', USER, password, port, DATABASE),
    get pid() {
      return server?.pid;
    },
    admin: (sql, params) => admin(sql, params),
    async adminClient() {
      const c = new Client({ host: socketDir, port, user: SUPERUSER, database: DATABASE });
      c.on('error', () => undefined);
      await c.connect();
      return c;
    },
    async halt() {
      await stopServer('SIGQUIT');
    },
    async restart() {
      await stopServer('SIGQUIT');
      await launch();
    },
    async stop() {
      await stopServer('SIGINT');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// A database server the integration tests start as a child process (mariadbServer.ts,
// postgresServer.ts), and what a test gets of it: a free port on 127.0.0.1 for it, the process watched (a test run that
// ends without stopping it kills it on the way out), a wait until it accepts connections that
// fails with the end of its log when it exits or does not come up in time, and a stop by
// process id that kills it outright after a bound.

import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';

/** What a test gets of a database server it started. */
export interface TestServer {
  /** the URL of the tests' user (`dq_sync`), password included */
  readonly url: string;
  /** the same URL without its password (for the tests of the other places a password is found) */
  readonly urlWithoutPassword: string;
  readonly password: string;
  readonly port: number;
  /** the server's process id while it runs */
  readonly pid: number | undefined;
  /** Runs SQL as the server's superuser over the socket (set-up and checks behind the target's back). */
  admin<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Stops the server by its process id and removes its folder. */
  stop(): Promise<void>;
}

/** The URLs of `user` at `database` on 127.0.0.1:`port` (`scheme`: `mysql`), with and without its password. */
export function userUrls(scheme: string, user: string, password: string, port: number, database: string): Pick<TestServer, 'url' | 'urlWithoutPassword' | 'password' | 'port'> {
  const base = `127.0.0.1:${port}/${database}`;
  return { url: `${scheme}://${user}:${password}@${base}`, urlWithoutPassword: `${scheme}://${user}@${base}`, password, port };
}

/** A port on 127.0.0.1 that nothing listened on a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** The last lines of a server's log, for a failure to start. */
export function logTail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Running servers, and the signal that ends each when the test run exits. */
const running = new Map<ChildProcess, NodeJS.Signals>();
process.once('exit', () => {
  // a test run that ends without stopping its servers must not leave them behind
  for (const [child, signal] of running) if (child.pid) process.kill(child.pid, signal);
});

export interface ServerProcess {
  readonly child: ChildProcess;
  /** the process id while it runs */
  readonly pid: number | undefined;
  /**
   * Polls `probe` (which throws until the server answers) every 100 ms until it succeeds;
   * fails, with the end of `log`, when the process exits or `withinMs` passes first.
   */
  accepting(probe: () => Promise<unknown>, log: string, withinMs: number): Promise<void>;
  /** Sends `signal`, then SIGKILL if the process has not exited within `graceMs`; resolves once it has exited. */
  stop(signal: NodeJS.Signals, graceMs: number): Promise<void>;
}

/** Starts `command` as a server process called `name` in messages; `onRunExit` is what ends it if the test run exits first. */
export function startServerProcess(name: string, command: string, args: readonly string[], options: SpawnOptions, onRunExit: NodeJS.Signals): ServerProcess {
  const child = spawn(command, args, options);
  running.set(child, onRunExit);
  let exited = false;
  child.once('exit', () => {
    exited = true;
    running.delete(child);
  });
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    child,
    get pid() {
      return alive() ? child.pid : undefined;
    },
    async accepting(probe, log, withinMs) {
      const deadline = Date.now() + withinMs;
      for (;;) {
        if (exited) throw new Error(`${name} exited while starting:\n${logTail(log)}`);
        try {
          await probe();
          return;
        } catch {
          // not up yet
        }
        if (Date.now() > deadline) throw new Error(`${name} did not accept connections within ${withinMs / 1000} s:\n${logTail(log)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop(signal, graceMs) {
      if (!alive()) return;
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (child.pid) process.kill(child.pid, signal);
      const timer = setTimeout(() => child.pid && child.exitCode === null && process.kill(child.pid, 'SIGKILL'), graceMs);
      await done;
      clearTimeout(timer);
    },
  };
}

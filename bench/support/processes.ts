// Child processes timed from spawn to exit, with their output, and for Node programs their
// peak resident set size.

import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export interface Finished {
  code: number;
  seconds: number;
  stdout: string;
  stderr: string;
  /** peak resident set size, for Node programs started by timedNode */
  peakRssMiB?: number;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** written to the child's stdin, which is then closed */
  input?: string;
}

const PEAK_RSS_PRELOAD = join(__dirname, 'peakRss.js');

/** Runs `command` to its end; a non-zero exit is returned, not thrown. */
export function timed(command: string, args: string[], options: RunOptions = {}): Promise<Finished> {
  return run(command, args, options, false);
}

/** Runs a Node script with the bench's peak-RSS probe preloaded. */
export function timedNode(script: string, args: string[], options: RunOptions & { nodeOptions?: string[] } = {}): Promise<Finished> {
  return run(process.execPath, [...(options.nodeOptions ?? []), '--require', PEAK_RSS_PRELOAD, script, ...args], options, true);
}

/** Fails with the command's own words when it did not exit 0. */
export function succeeded(what: string, finished: Finished): Finished {
  if (finished.code === 0) return finished;
  const lines = finished.stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const reason = lines.find((l) => /^(dq: |curl: |\w*Error\b)/.test(l)) ?? lines[lines.length - 1] ?? 'no message';
  throw new Error(`${what} exited with ${finished.code}: ${reason}`);
}

/** The environment without proxy variables: everything the bench talks to is on loopback. */
export function loopbackEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/_proxy$/i.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/**
 * `env` with a rate budget of its own, in a fresh folder under `parent`: dq shares one budget
 * per account on the machine (under DQ_STATE_DIR), so the bench's successive runs against one
 * prepared job would otherwise wait out each other's minute, which is not what a figure measures.
 */
export async function ownRateBudget(env: NodeJS.ProcessEnv, parent: string): Promise<NodeJS.ProcessEnv> {
  return { ...env, DQ_STATE_DIR: await mkdtemp(join(parent, 'rate-budget-')) };
}

function run(command: string, args: string[], options: RunOptions, probe: boolean): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? loopbackEnv(),
      stdio: ['pipe', 'pipe', 'pipe', ...(probe ? (['pipe'] as const) : [])],
    });
    let stdout = '';
    let stderr = '';
    let peak = '';
    child.stdout?.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.stdio[3]?.on('data', (b: Buffer) => (peak += b.toString('utf8')));
    let seconds = 0;
    child.on('error', reject);
    child.on('exit', () => (seconds = (performance.now() - started) / 1000));
    child.on('close', (code, signal) => {
      const peakKiB = Number.parseInt(peak, 10);
      resolve({
        code: code ?? (signal ? 128 : 1),
        seconds,
        stdout,
        stderr,
        peakRssMiB: Number.isFinite(peakKiB) ? peakKiB / 1024 : undefined,
      });
    });
    child.stdin?.end(options.input ?? '');
  });
}

// dq in scripts, against the emulator over real HTTP: a job that outlives its command (Ctrl-C,
// a failed download) is named with the way to fetch it later, `dq download` waits for a job
// still running, --json reports a failed job on stdout, `~` is the home folder in paths, and
// `dq emulator` says where it can be reached from.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/cli';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { runDq, type CliRun } from '../../support/cliHarness';

function envFor(emu: RunningEmulator, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { DQ_BASE_URL: emu.baseUrl, DQ_DATA_PREFIX: emu.dataPrefix, DQ_CLIENT_ID: emu.clientId, DQ_CLIENT_SECRET: emu.clientSecret, ...extra };
}

/**
 * dq in-process, with `watch` seeing everything it writes as it writes it (to press Ctrl-C at
 * the moment a line appears: `interrupt()` aborts as SIGINT would).
 */
async function runDqWatched(
  argv: string[],
  env: NodeJS.ProcessEnv,
  watch: (written: { stdout: string; stderr: string }, interrupt: () => void) => void | Promise<void>,
  cwd = process.cwd(),
): Promise<CliRun> {
  const controller = new AbortController();
  const written = { stdout: '', stderr: '' };
  const watching: Promise<void>[] = [];
  const interrupt = (): void => controller.abort(new Error('SIGINT'));
  const code = await runCli(argv, {
    stdout: { write: (s: string) => ((written.stdout += s), watching.push(Promise.resolve(watch(written, interrupt)))) },
    stderr: { write: (s: string) => ((written.stderr += s), watching.push(Promise.resolve(watch(written, interrupt)))) },
    env,
    cwd,
    interrupt: controller.signal,
  });
  await Promise.all(watching);
  return { code, ...written };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('dq and a job that outlives its command', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  let tmp: string;

  before(async () => {
    emu = await startEmulator({ jobDelayMs: 1_500, limits: false });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-script-'));
  });
  after(async () => {
    await emu.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('on Ctrl-C while the job runs names it, then dq download waits for it and fetches its files', async () => {
    // Ctrl-C as soon as the job exists and is reported waiting or running
    const run = await runDqWatched(['query', 'canvas', 'users', '--progress', '--json'], envFor(emu), (w, interrupt) => {
      if (/job \S+: (waiting|running)/.test(w.stderr)) interrupt();
    });
    assert.equal(run.code, 130, run.stderr);
    const id = /job (\S+): (?:waiting|running)/.exec(run.stderr)?.[1] ?? '';
    assert.ok(id, run.stderr);
    const last = run.stderr.trim().split('\n').pop() ?? '';
    assert.equal(
      last,
      `dq: cancelled: interrupted; nothing was left half-written. Job ${id} keeps running on the service: ` +
        `\`dq download ${id}\` waits for it and fetches its files (\`dq wait ${id}\` only waits).`,
    );
    // --json: the job and the error, as a script reads them
    const printed = JSON.parse(run.stdout) as { job: { id: string; status: string }; files: unknown[]; error: { kind: string; message: string } };
    assert.equal(printed.job.id, id);
    assert.match(printed.job.status, /^(waiting|running)$/);
    assert.deepEqual(printed.files, []);
    assert.equal(printed.error.kind, 'cancelled');

    // the advice works: download waits for the running job, with progress, then fetches it
    const out = path.join(tmp, 'later');
    const dl = await runDq(['download', id, '--out', out, '--progress'], { env: envFor(emu) });
    assert.equal(dl.code, 0, dl.stderr);
    assert.match(dl.stderr, new RegExp(`job ${escape(id)}: (waiting|running)`), 'it says it is waiting');
    const files = dl.stdout.trim().split('\n');
    assert.ok(files.length >= 1 && files.every((f) => path.dirname(f) === out), dl.stdout);
    assert.deepEqual((await fs.readdir(out)).sort(), files.map((f) => path.basename(f)).sort());
  });

  it('on Ctrl-C while dq download waits, says the job runs on', async () => {
    const created = await runDqWatched(['query', 'canvas', 'courses', '--progress'], envFor(emu), (w, interrupt) => {
      if (/job \S+: (waiting|running)/.test(w.stderr)) interrupt();
    });
    const id = /job (\S+): (?:waiting|running)/.exec(created.stderr)?.[1] ?? '';
    assert.ok(id, created.stderr);
    const run = await runDqWatched(['download', id, '--progress', '--out', path.join(tmp, 'never')], envFor(emu), (w, interrupt) => {
      if (/job \S+: (waiting|running)/.test(w.stderr)) interrupt();
    });
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, new RegExp(`dq: cancelled: .* Job ${escape(id)} keeps running on the service: \`dq download ${escape(id)}\` waits for it`));
    await assert.rejects(fs.stat(path.join(tmp, 'never')), 'nothing was downloaded');
  });

  it('when the download stops after the job completed, names the job and dq download fetches it', async () => {
    // the object (about 300 KB) trickles out, so the download is under way when Ctrl-C comes
    emu.setObjectBytesPerSecond(32_768);
    let run: CliRun;
    try {
      run = await runDqWatched(['query', 'canvas_logs', 'web_logs', '--progress', '--out', path.join(tmp, 'stopped')], envFor(emu), (w, interrupt) => {
        if (/downloading /.test(w.stderr)) interrupt();
      });
    } finally {
      emu.setObjectBytesPerSecond(undefined);
    }
    assert.equal(run.code, 130, run.stderr);
    const id = /job (\S+): complete/.exec(run.stderr)?.[1];
    assert.ok(id, run.stderr);
    const last = run.stderr.trim().split('\n').pop() ?? '';
    assert.match(last, new RegExp(`^dq: cancelled: interrupted; nothing was left half-written\\. Job ${escape(id)} is complete on the service and keeps its files until \\S+: \`dq download ${escape(id)}\` fetches them\\.$`));
    const dl = await runDq(['download', id, '--out', path.join(tmp, 'stopped')], { env: envFor(emu) });
    assert.equal(dl.code, 0, dl.stderr);
  });
});

describe('dq --json and a failed job', function () {
  this.timeout(30_000);

  it('prints the failed job and its error on stdout, keeping exit 5 and the one stderr line', async () => {
    const emu = await startEmulator({ jobDelayMs: 100, limits: false, faults: 'jobFail=1' });
    try {
      const run = await runDq(['query', 'canvas', 'courses', '--json'], { env: envFor(emu) });
      assert.equal(run.code, 5, run.stderr);
      const printed = JSON.parse(run.stdout) as {
        job: { id: string; status: string; error: { uuid: string } };
        files: unknown[];
        error: { kind: string; type: string | null; uuid: string | null; message: string };
      };
      assert.equal(printed.job.status, 'failed');
      assert.deepEqual(printed.files, []);
      assert.equal(printed.error.kind, 'jobFailed');
      assert.equal(printed.error.uuid, printed.job.error.uuid);
      assert.equal(typeof printed.error.type, 'string');
      assert.match(printed.error.message, new RegExp(`Job ${escape(printed.job.id)} failed`));
      assert.deepEqual(Object.keys(printed.error).sort(), ['kind', 'message', 'type', 'uuid']);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, /^dq: jobFailed/);
      assert.doesNotMatch(run.stderr, /dq download/, 'a failed job has no files to fetch later');
      assert.ok(!(run.stdout + run.stderr).includes(emu.clientSecret));

      // dq download of that job says the same on stdout
      const dl = await runDq(['download', printed.job.id, '--json', '--out', path.join(os.tmpdir(), 'dq-never-written')], { env: envFor(emu) });
      assert.equal(dl.code, 5, dl.stderr);
      assert.equal((JSON.parse(dl.stdout) as { error: { kind: string } }).error.kind, 'jobFailed');
    } finally {
      await emu.close();
    }
  });
});

describe('dq and ~ in paths', function () {
  this.timeout(60_000);
  let emu: RunningEmulator;
  let tmp: string;
  let home: string;
  let cwd: string;

  before(async () => {
    emu = await startEmulator({ jobDelayMs: 0, limits: false });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-home-'));
    home = path.join(tmp, 'home');
    cwd = path.join(tmp, 'cwd');
    await fs.mkdir(home);
    await fs.mkdir(cwd);
  });
  after(async () => {
    await emu.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('takes a leading ~ in --out as the home folder, and leaves ~name as it is', async () => {
    const run = await runDq(['query', 'canvas', 'users', '--out=~/results'], { env: envFor(emu, { HOME: home }), cwd });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(path.dirname(run.stdout.trim().split('\n')[0]), path.join(home, 'results'));
    const named = await runDq(['query', 'canvas', 'users', '--out', '~someone'], { env: envFor(emu, { HOME: home }), cwd });
    assert.equal(named.code, 0, named.stderr);
    assert.equal(path.dirname(named.stdout.trim().split('\n')[0]), path.join(cwd, '~someone'));
    assert.deepEqual((await fs.readdir(cwd)).sort(), ['~someone'], 'no folder named ~ in the working folder');
  });

  it('takes a leading ~ in --to, DQ_SYNC_TARGET and --work-dir as the home folder', async () => {
    const env = envFor(emu, { HOME: home });
    const cwd = await fs.mkdtemp(path.join(tmp, 'sync-cwd-'));
    const first = await runDq(['sync', 'canvas', 'users', '--to=~/s.duckdb', '--work-dir', '~/work'], { env, cwd });
    assert.equal(first.code, 0, first.stderr);
    const fromEnv = await runDq(['sync', 'canvas', 'courses'], { env: { ...env, DQ_SYNC_TARGET: 'duckdb:~/t.duckdb' }, cwd });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    const status = await runDq(['sync-status', '--json'], { env: { HOME: home, DQ_SYNC_TARGET: '~/s.duckdb' }, cwd });
    assert.equal(status.code, 0, status.stderr);
    const listed = JSON.parse(status.stdout) as { target: string; tables: Array<{ table: string }> };
    assert.equal(listed.target, path.join(home, 's.duckdb'));
    assert.deepEqual(listed.tables.map((t) => t.table), ['users']);
    const inHome = await fs.readdir(home);
    for (const name of ['s.duckdb', 't.duckdb', 'work']) assert.ok(inHome.includes(name), `${name} in ${inHome.join(', ')}`);
    assert.deepEqual(await fs.readdir(cwd), [], 'nothing under a folder named ~');
  });
});

describe('dq emulator', function () {
  this.timeout(30_000);

  it('says a busy port is in use and how to choose another', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as net.AddressInfo;
    try {
      const run = await runDq(['emulator', '--port', String(port)]);
      assert.equal(run.code, 2);
      assert.equal(run.stderr, `dq: usage: port ${port} on 127.0.0.1 is in use by another program; choose another --port, or --port 0 for any free one\n`);
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });

  it('listening on every address, prints settings that work from this machine and a word on other machines', async () => {
    let query: CliRun | undefined;
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-wild-'));
    try {
      const run = await runDqWatched(['emulator', '--host', '0.0.0.0', '--allow-remote'], {}, async (w, interrupt) => {
        if (query || !w.stdout.includes('Press Ctrl-C')) return;
        const env: NodeJS.ProcessEnv = {};
        for (const m of w.stdout.matchAll(/^ {2}export (\w+)=(\S+)/gm)) env[m[1]] = m[2];
        query = { code: -1, stdout: '', stderr: '' };
        // the pasted settings, as another shell on this machine has them
        query = await runDq(['query', 'canvas', 'users', '--out', path.join(tmp, 'out')], { env });
        interrupt();
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^ {2}export DQ_BASE_URL=http:\/\/127\.0\.0\.1:\d+$/m);
      assert.match(run.stdout, /From another machine: .*--allow-insecure-http/);
      assert.doesNotMatch(run.stdout, /export DQ_ALLOW_INSECURE_HTTP/, 'links name this machine: no plain-http opt-in needed here');
      assert.ok(query, 'the settings were tried');
      assert.equal(query.code, 0, query.stderr);
      assert.ok(query.stdout.trim().length > 0);
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });

  it('gives the address to use from this machine with --json too', async () => {
    const run = await runDqWatched(['emulator', '--host', '0.0.0.0', '--allow-remote', '--json'], {}, (w, interrupt) => {
      if (w.stdout.includes('\n')) interrupt();
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match((JSON.parse(run.stdout) as { baseUrl: string }).baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

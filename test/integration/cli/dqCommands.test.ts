// dq against the local emulator over real HTTP: what a person typing the commands sees.

import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { runDq } from '../../support/cliHarness';

/** Every file in `dir` (hidden ones too) with a hash of its content. */
async function folderContents(dir: string): Promise<Record<string, string>> {
  const contents: Record<string, string> = {};
  for (const name of await fs.readdir(dir)) {
    contents[name] = createHash('sha256').update(await fs.readFile(path.join(dir, name))).digest('hex');
  }
  return contents;
}

function envFor(emu: RunningEmulator, overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    DQ_BASE_URL: emu.baseUrl,
    DQ_DATA_PREFIX: emu.dataPrefix,
    DQ_CLIENT_ID: emu.clientId,
    DQ_CLIENT_SECRET: emu.clientSecret,
    ...overrides,
  };
}

describe('dq against the emulator', function () {
  this.timeout(30_000);
  let emu: RunningEmulator;
  let tmp: string;

  before(async () => {
    emu = await startEmulator({ jobDelayMs: 200, limits: false });
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-cli-'));
  });
  after(async () => {
    await emu.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('lists a namespace\'s tables one per line, and as {"tables"} with --json', async () => {
    const expected = new SampleCatalog().tables('canvas');
    const plain = await runDq(['tables', 'canvas'], { env: envFor(emu) });
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(plain.stdout.trim().split('\n'), expected);
    const json = await runDq(['tables', 'canvas', '--json'], { env: envFor(emu) });
    assert.deepEqual(JSON.parse(json.stdout), { tables: expected });
  });

  it('prints the schema envelope and a column list with key columns first', async () => {
    const schema = await runDq(['schema', 'canvas', 'enrollments'], { env: envFor(emu) });
    assert.equal(schema.code, 0, schema.stderr);
    const envelope = JSON.parse(schema.stdout);
    assert.equal(typeof envelope.version, 'number');
    assert.ok(envelope.schema.properties.key, 'the envelope has key columns');
    const cols = await runDq(['columns', 'canvas', 'enrollments', '--json'], { env: envFor(emu) });
    const list = JSON.parse(cols.stdout) as Array<{ name: string; key: boolean; required: boolean }>;
    const keys = Object.keys(envelope.schema.properties.key.properties);
    assert.deepEqual(
      list.filter((c) => c.key).map((c) => c.name),
      keys,
    );
    assert.ok(list.slice(0, keys.length).every((c) => c.key && c.required));
    const text = await runDq(['columns', 'canvas', 'enrollments'], { env: envFor(emu) });
    assert.equal(text.stdout.trim().split('\n').length, list.length);
  });

  it('runs a query end to end: files land in the folder, paths on stdout, hashes match the files', async () => {
    const out = path.join(tmp, 'users-csv');
    const run = await runDq(['query', 'canvas', 'users', '--format', 'csv', '--out', out, '--json', '--sha256'], { env: envFor(emu) });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { job: { status: string; at?: string }; files: Array<{ path: string; bytes: number; sha256: string }> };
    assert.equal(result.job.status, 'complete');
    assert.ok(result.job.at, 'a snapshot says how fresh it is');
    assert.ok(result.files.length >= 1);
    for (const f of result.files) {
      assert.equal(path.dirname(f.path), out);
      assert.match(path.basename(f.path), /\.csv\.gz$/);
      const bytes = await fs.readFile(f.path);
      assert.equal(bytes.length, f.bytes);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), f.sha256);
      const header = gunzipSync(bytes).toString('utf8').split('\n')[0];
      assert.match(header, /key\.id/);
    }
    assert.deepEqual((await fs.readdir(out)).sort(), result.files.map((f) => path.basename(f.path)).sort(), 'no temporary files stay behind');
  });

  it('decompresses on request and names the file by its real format', async () => {
    const out = path.join(tmp, 'courses-jsonl');
    const run = await runDq(['query', 'canvas', 'courses', '--decompress', '--out', out], { env: envFor(emu) });
    assert.equal(run.code, 0, run.stderr);
    const files = run.stdout.trim().split('\n');
    assert.ok(files.every((f) => f.endsWith('.jsonl')));
    const first = JSON.parse((await fs.readFile(files[0], 'utf8')).split('\n')[0]);
    assert.equal(first.meta.action, 'U');
    assert.ok(first.key);
  });

  it('puts results under downloads/<namespace>/<table>/<job id>/ by default', async () => {
    const cwd = await fs.mkdtemp(path.join(tmp, 'cwd-'));
    const run = await runDq(['query', 'catalog', (new SampleCatalog().tables('catalog') ?? [])[0], '--format', 'tsv'], { env: envFor(emu), cwd });
    assert.equal(run.code, 0, run.stderr);
    const file = run.stdout.trim().split('\n')[0];
    assert.ok(file.startsWith(path.join(cwd, 'downloads', 'catalog') + path.sep), file);
    assert.match(file, /\.tsv\.gz$/);
  });

  it('creates a job without downloading, then waits for it and downloads it by id', async () => {
    const created = await runDq(['query', 'canvas', 'accounts', '--format', 'jsonl', '--no-download'], { env: envFor(emu) });
    assert.equal(created.code, 0, created.stderr);
    const job = JSON.parse(created.stdout) as { id: string; status: string };
    assert.equal(job.status, 'complete');
    const waited = await runDq(['wait', job.id], { env: envFor(emu) });
    assert.equal(JSON.parse(waited.stdout).id, job.id);
    const got = await runDq(['job', job.id], { env: envFor(emu) });
    assert.equal(JSON.parse(got.stdout).status, 'complete');
    const out = path.join(tmp, 'by-id');
    const dl = await runDq(['download', job.id, '--out', out], { env: envFor(emu) });
    assert.equal(dl.code, 0, dl.stderr);
    assert.match(dl.stdout.trim(), /\.jsonl\.gz$/);
    const objects = (JSON.parse(got.stdout).objects as Array<{ id: string }>).map((o) => o.id);
    const urls = await runDq(['urls', ...objects], { env: envFor(emu) });
    const answer = JSON.parse(urls.stdout) as { urls: Record<string, { url: string }> };
    assert.deepEqual(Object.keys(answer.urls).sort(), [...objects].sort());
    assert.ok(Object.values(answer.urls).every((u) => u.url.startsWith(emu.objectBaseUrl)));
  });

  it('refuses a job of more result files than --max-files before fetching any link, and downloads it within the limit', async () => {
    const many = await startEmulator({ jobDelayMs: 0, limits: false, rows: 300, rowsPerObject: 10 });
    try {
      const out = path.join(tmp, 'max-files');
      const refused = await runDq(['query', 'canvas', 'accounts', '--out', out, '--max-files', '1'], { env: envFor(many) });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /has \d+ result files, more than the 1 this client downloads.*--max-files/s);
      assert.equal(many.requestLog.entries().filter((e) => e.operation === 'createUrls').length, 0, 'no link was asked for');
      assert.deepEqual(await fs.readdir(out).catch(() => []), []);
      const within = await runDq(['query', 'canvas', 'accounts', '--out', out, '--max-files', '100'], { env: envFor(many) });
      assert.equal(within.code, 0, within.stderr);
      assert.equal(within.stdout.trim().split('\n').length, 2, within.stdout);
      const bad = await runDq(['query', 'canvas', 'accounts', '--max-files', '0'], { env: envFor(many) });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--max-files must be a whole number of at least 1 \(got 0\)/);
    } finally {
      await many.close();
    }
  });

  it('runs an incremental query from a snapshot\'s `at`', async () => {
    const snap = await runDq(['query', 'canvas', 'submissions', '--no-download'], { env: envFor(emu) });
    const at = JSON.parse(snap.stdout).at as string;
    assert.ok(at);
    const since = new Date(Date.parse(at) - 3 * 86_400_000).toISOString();
    const inc = await runDq(['query', 'canvas', 'submissions', '--since', since, '--no-download'], { env: envFor(emu) });
    assert.equal(inc.code, 0, inc.stderr);
    const job = JSON.parse(inc.stdout);
    assert.ok(job.since && job.until, 'an incremental job reports its range');
  });

  const failures: Array<[string, string[], NodeJS.ProcessEnv, number, RegExp]> = [
    ['an unknown namespace', ['tables', 'no_such_ns'], {}, 4, /^dq: notFound, HTTP 404.*uuid [0-9a-f-]+.*no_such_ns/],
    ['an unknown table', ['columns', 'canvas', 'no_such_table'], {}, 4, /^dq: notFound, HTTP 404.*no_such_table/],
    ['an unknown job', ['job', 'not-a-job'], {}, 4, /^dq: notFound/],
    ['a wrong secret', ['tables', 'canvas'], { DQ_CLIENT_SECRET: 'wrong-secret' }, 3, /^dq: auth, HTTP 401/],
  ];
  for (const [what, argv, env, code, message] of failures) {
    it(`reports ${what} in one line with exit ${code}`, async () => {
      const run = await runDq(argv, { env: envFor(emu, env) });
      assert.equal(run.code, code, run.stderr);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
      assert.doesNotMatch(run.stderr, new RegExp(emu.clientSecret.replace(/[-_]/g, '.')));
      assert.doesNotMatch(run.stderr, /wrong-secret/);
    });
  }

  it('reports a dead network with exit 7', async () => {
    const run = await runDq(['tables', 'canvas'], { env: envFor(emu, { DQ_BASE_URL: 'http://127.0.0.1:9' }) });
    assert.equal(run.code, 7, run.stderr);
    assert.match(run.stderr, /^dq: network/);
  });

  it('refuses plain http to another host unless allowed, naming dq\'s own option', async () => {
    const run = await runDq(['tables', 'canvas'], { env: envFor(emu, { DQ_BASE_URL: 'http://dq.example.invalid' }) });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^dq: insecure: Refusing plain http to dq\.example\.invalid: credentials and data would travel unencrypted\. Use https:\/\/, or pass --allow-insecure-http /);
  });

  it('answers a job id the service does not know with notFound (exit 4) from wait, as from job', async () => {
    const id = '00000000-0000-0000-0000-000000000000';
    const job = await runDq(['job', id], { env: envFor(emu) });
    const wait = await runDq(['wait', id], { env: envFor(emu) });
    assert.equal(job.code, 4, job.stderr);
    assert.equal(wait.code, 4, wait.stderr);
    assert.match(wait.stderr, /^dq: notFound, HTTP 404, .*: No job 0{8}-0{4}-0{4}-0{4}-0{12} exists on the service\. Check the job id;/);
    assert.equal(wait.stdout, '');
  });

  it('refuses an --out that is a file before creating a job, and leaves the file alone', async () => {
    const file = path.join(tmp, 'existing.txt');
    await fs.writeFile(file, 'mine\n');
    const createJobs = (): number => emu.requestLog.entries().filter((e) => e.operation === 'createJob').length;
    const before = createJobs();
    for (const out of [file, path.join(file, 'below')]) {
      const run = await runDq(['query', 'canvas', 'users', '--out', out], { env: envFor(emu) });
      assert.equal(run.code, 8, run.stderr);
      assert.match(run.stderr, /^dq: io: .*existing\.txt/);
      assert.match(run.stderr, /file, not a folder/);
    }
    assert.equal(createJobs(), before, 'no job was created');
    assert.equal(await fs.readFile(file, 'utf8'), 'mine\n');
    const dl = await runDq(['download', '00000000-0000-0000-0000-000000000000', '--out', file], { env: envFor(emu) });
    assert.equal(dl.code, 8, dl.stderr);
  });

  it('describes where each command puts its files by default, and download puts them there', async () => {
    const queryHelp = await runDq(['query', '--help']);
    assert.match(queryHelp.stdout, /--out DIR +folder for the files \(default downloads\/<namespace>\/<table>\/<job id>\/\)/);
    const downloadHelp = await runDq(['download', '--help']);
    assert.match(downloadHelp.stdout, /--out DIR +folder for the files \(default downloads\/<job id>\/\)/);
    const created = await runDq(['query', 'canvas', 'accounts', '--no-download'], { env: envFor(emu) });
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    const cwd = await fs.mkdtemp(path.join(tmp, 'dl-cwd-'));
    const dl = await runDq(['download', id], { env: envFor(emu), cwd });
    assert.equal(dl.code, 0, dl.stderr);
    assert.equal(path.dirname(dl.stdout.trim().split('\n')[0]), path.join(cwd, 'downloads', id));
  });

  it('on a terminal, puts the error of a failed query on a line of its own below the progress', async () => {
    const failing = await startEmulator({ jobDelayMs: 100, limits: false, faults: 'jobFail=1' });
    try {
      const run = await runDq(['query', 'canvas', 'courses'], { env: envFor(failing), stderrIsTTY: true });
      assert.equal(run.code, 5, run.stderr);
      const lines = run.stderr.split('\n');
      const error = lines.findIndex((l) => l.startsWith('dq: jobFailed'));
      assert.ok(error > 0, `the error starts a line after the progress: ${JSON.stringify(run.stderr)}`);
      assert.match(lines[error - 1], /\x1b\[2Kjob [0-9a-f-]+: failed$/, 'the last progress stays on screen above it');
    } finally {
      await failing.close();
    }
  });

  it('cancels a download on Ctrl-C mid-transfer with exit 130, leaving the folder as it was', async () => {
    // one object of about 1.4 MiB: the first bytes reach the disk after about 2 s of its paced
    // transfer, with some 9 s of it still to come when the test interrupts it
    const big = await startEmulator({ jobDelayMs: 0, limits: false, rows: 20_000, rowsPerObject: 20_000, gzipLevel: 1 });
    try {
      const out = path.join(tmp, 'cancelled');
      const earlier = await runDq(['query', 'canvas_logs', 'web_logs', '--format', 'csv', '--out', out], { env: envFor(big) });
      assert.equal(earlier.code, 0, earlier.stderr);
      await fs.writeFile(path.join(out, 'notes.txt'), 'my own file\n');
      const before = await folderContents(out);

      // The objects trickle out: once part of one is on disk, the download is under way, not done.
      big.setObjectBytesPerSecond(131_072);
      const controller = new AbortController();
      const running = runDq(['query', 'canvas_logs', 'web_logs', '--out', out], { env: envFor(big), signal: controller.signal });
      await partOnDisk(out);
      controller.abort(new Error('SIGINT'));
      const run = await running;
      assert.equal(run.code, 130, run.stderr);
      assert.match(run.stderr, /^dq: cancelled/);
      assert.equal(run.stdout, '');
      assert.deepEqual(await folderContents(out), before, 'the earlier files are untouched and nothing partial is left');
    } finally {
      await big.close();
    }
  });
});

/** Resolves once a staging file in `dir` holds some bytes of an object. */
async function partOnDisk(dir: string): Promise<void> {
  for (;;) {
    for (const name of (await fs.readdir(dir)).filter((n) => n.endsWith('.part'))) {
      const size = await fs.stat(path.join(dir, name)).then((s) => s.size, () => 0);
      if (size > 0) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('dq against a failing emulator', function () {
  this.timeout(30_000);

  it('reports a failed job with exit 5, naming its error and uuid', async () => {
    const emu = await startEmulator({ jobDelayMs: 100, limits: false, faults: 'jobFail=1' });
    try {
      const run = await runDq(['query', 'canvas', 'courses'], { env: envFor(emu) });
      assert.equal(run.code, 5, run.stderr);
      assert.match(run.stderr, /^dq: jobFailed/);
      assert.match(run.stderr, /uuid [0-9a-f-]{8,}/);
    } finally {
      await emu.close();
    }
  });

  it('reports an account problem with exit 6 and the server\'s type', async () => {
    const emu = await startEmulator({ limits: false, accountError: 'AccountDisabled' });
    try {
      const run = await runDq(['tables', 'canvas'], { env: envFor(emu) });
      assert.equal(run.code, 6, run.stderr);
      assert.match(run.stderr, /^dq: account, HTTP 403, AccountDisabled/);
    } finally {
      await emu.close();
    }
  });
});

// dq find-column against the emulator over real HTTP, with its cache in a folder of its own.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { tableSchema } from '../../../src/emulator/sampleData/tableModel';
import { runDq } from '../../support/cliHarness';

interface Match {
  namespace: string;
  table: string;
  column: string;
  type: string;
  key: boolean;
}

describe('dq find-column', function () {
  this.timeout(30_000);
  let emu: RunningEmulator;
  let cacheHome: string;
  const env = (): NodeJS.ProcessEnv => ({
    DQ_BASE_URL: emu.baseUrl,
    DQ_DATA_PREFIX: emu.dataPrefix,
    DQ_CLIENT_ID: emu.clientId,
    DQ_CLIENT_SECRET: emu.clientSecret,
    XDG_CACHE_HOME: cacheHome,
  });
  const calls = (operation: string): number => emu.requestLog.entries().filter((e) => e.operation === operation).length;

  beforeEach(async () => {
    emu = await startEmulator({ limits: false });
    cacheHome = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-cache-'));
  });
  afterEach(async () => {
    await emu.close();
    await fs.rm(cacheHome, { recursive: true, force: true });
  });

  it('finds a column in every table of the named namespaces that has it, keys marked', async () => {
    const run = await runDq(['find-column', 'USER_ID', 'canvas', 'new_quizzes', '--json'], { env: env() });
    assert.equal(run.code, 0, run.stderr);
    const { matches } = JSON.parse(run.stdout) as { matches: Match[] };
    const catalog = new SampleCatalog();
    const expected: string[] = [];
    for (const ns of ['canvas', 'new_quizzes']) {
      for (const name of catalog.tables(ns) ?? []) {
        const table = catalog.table(ns, name)!;
        for (const part of ['key', 'value'] as const) {
          const props = Object.keys(tableSchema(table).properties?.[part]?.properties ?? {});
          for (const p of props.filter((p) => p.includes('user_id'))) expected.push(`${ns}.${name}.${p}`);
        }
      }
    }
    assert.ok(expected.length >= 2, 'the sample data has user_id columns');
    const found = matches.filter((m) => !m.column.includes('.')).map((m) => `${m.namespace}.${m.table}.${m.column}`);
    assert.deepEqual(found.sort(), expected.sort());
    const plain = await runDq(['find-column', 'user_id', 'canvas', 'new_quizzes'], { env: env() });
    assert.equal(plain.stdout.trim().split('\n').length, matches.length);
    assert.match(plain.stdout, /^canvas\.\w+\.user_id +int64/m);
  });

  it('answers from its cache folder the second time, and reads everything again with --refresh', async () => {
    const first = await runDq(['find-column', 'id', 'canvas'], { env: env() });
    assert.equal(first.code, 0, first.stderr);
    const tables = new SampleCatalog().tables('canvas')!.length;
    assert.equal(calls('listTables'), 1);
    assert.equal(calls('getSchema'), tables);
    const second = await runDq(['find-column', 'id', 'canvas'], { env: env() });
    assert.equal(second.stdout, first.stdout);
    assert.equal(calls('listTables'), 1, 'the table list came from the cache');
    assert.equal(calls('getSchema'), tables, 'the schemas came from the cache');
    const files = await fs.readdir(path.join(cacheHome, 'dq'));
    assert.equal(files.length, 1);
    assert.doesNotMatch(await fs.readFile(path.join(cacheHome, 'dq', files[0]), 'utf8'), new RegExp(emu.clientSecret), 'no secret on disk');
    await runDq(['find-column', 'id', 'canvas', '--refresh'], { env: env() });
    assert.equal(calls('listTables'), 2);
    assert.equal(calls('getSchema'), 2 * tables);
  });

  it('answers from the other namespaces, then names one it cannot list on a dq: line and exits 4, as grep does for a missing file', async () => {
    const run = await runDq(['find-column', 'user_id', 'canvas', 'no_such_namespace', '--json'], { env: env() });
    assert.equal(run.code, 4, run.stderr);
    assert.match(run.stderr, /^dq: The tables of no_such_namespace could not be listed/m);
    assert.doesNotMatch(run.stderr, /warning/);
    assert.ok((JSON.parse(run.stdout) as { matches: Match[] }).matches.length > 0);
    const plain = await runDq(['find-column', 'user_id', 'canvas', 'no_such_namespace'], { env: env() });
    assert.equal(plain.code, 4);
    assert.match(plain.stdout, /^canvas\.\S+\.user_id/m);
    const none = await runDq(['find-column', 'user_id', 'no_such_namespace'], { env: env() });
    assert.equal(none.code, 4);
  });

  it('still answers, with one warning naming the folder and why, when the cache folder cannot be written', async () => {
    const blocker = path.join(cacheHome, 'a-file');
    await fs.writeFile(blocker, 'not a folder\n');
    const run = await runDq(['find-column', 'user_id', 'canvas', 'new_quizzes', '--json'], { env: { ...env(), XDG_CACHE_HOME: blocker } });
    assert.equal(run.code, 0, run.stderr);
    const warnings = run.stderr.trim().split('\n');
    assert.equal(warnings.length, 1, run.stderr);
    assert.match(warnings[0], /^dq: warning: Could not save the cache \(folder .*a-file[/\\]dq\): a part of the path is a file, not a folder \(ENOTDIR\)/);
    assert.doesNotMatch(run.stderr, /could not be listed|could not be read/);
    const { matches, problems } = JSON.parse(run.stdout) as { matches: Match[]; problems: string[] };
    assert.deepEqual(problems, []);
    assert.ok(matches.some((m) => m.namespace === 'canvas') && matches.some((m) => m.namespace === 'new_quizzes'));
    assert.equal(calls('listTables'), 2, 'each namespace listed once');
  });

  it('refuses a missing text before any request', async () => {
    const run = await runDq(['find-column'], { env: env() });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /missing <text>/);
    assert.equal(calls('token'), 0);
  });
});

// What a person typing dq by hand meets: -h after any command, `dq help <topic>`, a nearby
// option or command when one is mistyped, and empty values that would quietly mean the default.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GLOBAL_OPTIONS } from '../../../src/cli/globalOptions';
import { runDq } from '../../support/cliHarness';

// nothing listens on port 9: a command that got as far as a request would fail with exit 7, not 2
const ENV = { DQ_BASE_URL: 'http://127.0.0.1:9', DQ_CLIENT_ID: 'id', DQ_CLIENT_SECRET: 'secret' };

describe('dq help', () => {
  for (const command of ['tables', 'query', 'download', 'sync', 'sync-status', 'emulator']) {
    it(`dq ${command} -h shows that command's help and exits 0`, async () => {
      const run = await runDq([command, '-h'], { env: ENV });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^Usage: dq ${command}\\b`));
      assert.equal(run.stderr, '');
    });
  }

  it('shows the help for -h among other arguments, whatever the environment holds', async () => {
    const run = await runDq(['query', 'canvas', 'users', '-h'], { env: { ...ENV, DQ_ALLOW_INSECURE_HTTP: 'perhaps' } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Usage: dq query/);
  });

  it('refuses help on a command that does not exist, naming the commands', async () => {
    const run = await runDq(['help', 'nosuch']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^dq: usage: unknown command "nosuch"; commands: tables, schema, columns, find-column, query,/);
    const near = await runDq(['help', 'qeury']);
    assert.equal(near.code, 2);
    assert.match(near.stderr, /did you mean query\?/);
    const known = await runDq(['help', 'download']);
    assert.equal(known.code, 0);
    assert.match(known.stdout, /^Usage: dq download/);
  });

  it('lists every global option in each command\'s help, --allow-insecure-http included', async () => {
    const run = await runDq(['tables', '--help']);
    const line = run.stdout.split('\n').find((l) => l.startsWith('Global options'));
    assert.ok(line, run.stdout);
    for (const o of GLOBAL_OPTIONS.filter((g) => g.name !== 'help')) assert.ok(line.includes(`--${o.name}`), `${o.name} in ${line}`);
    assert.match(line, /--allow-insecure-http/);
  });
});

describe('dq typos', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['a misspelt option', ['tables', 'canvas', '--jsn'], /^dq: usage: unknown option --jsn; did you mean --json\?/],
    ['swapped letters in an option', ['query', 'canvas', 'users', '--fromat', 'csv'], /did you mean --format\?/],
    ['a misspelt negation', ['query', 'canvas', 'users', '--no-donwload'], /did you mean --no-download\?/],
    ['an option with one dash', ['tables', 'canvas', '-json'], /options use two dashes: --json/],
    ['a misspelt command', ['tabels', 'canvas'], /^dq: usage: unknown command "tabels" \(did you mean tables\?\); commands: /],
  ];
  for (const [what, argv, message] of cases) {
    it(`suggests the nearest name for ${what}`, async () => {
      const run = await runDq(argv, { env: ENV });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    });
  }

  it('suggests nothing when no known name is close', async () => {
    const run = await runDq(['tables', 'canvas', '--zzzzzz'], { env: ENV });
    assert.equal(run.code, 2);
    assert.doesNotMatch(run.stderr, /did you mean/);
  });
});

describe('dq empty values', () => {
  let tmp: string;
  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-empty-'));
  });
  after(() => fs.rm(tmp, { recursive: true, force: true }));

  const refused: Array<[string[], string]> = [
    [['query', 'canvas', 'users', '--out', ''], '--out'],
    [['query', 'canvas', 'users', '--out='], '--out'],
    [['download', 'some-job', '--out', '  '], '--out'],
    [['sync', 'canvas', 'users', '--to', ''], '--to'],
    [['sync', 'canvas', 'users', '--work-dir='], '--work-dir'],
    [['sync-status', '--to', ''], '--to'],
  ];
  for (const [argv, option] of refused) {
    it(`refuses an empty ${option} in dq ${argv.join(' ')} before anything else`, async () => {
      // the default sync database, were it used, lands in this temporary folder
      const run = await runDq(argv, { env: { ...ENV, XDG_DATA_HOME: tmp }, cwd: tmp });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, new RegExp(`^dq: usage: ${option} is empty; .*leave ${option} out for its default`));
      assert.deepEqual(await fs.readdir(tmp), [], 'no database or folder was made');
    });
  }
});

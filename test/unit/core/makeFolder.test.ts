// makeFolder makes a folder and the missing ones above it, like `mkdir -p`, and fails at once
// where a level cannot be made: Node's recursive mkdir never returns (and ignores signals) when
// a level under an existing parent reports ENOENT, as every path under /proc does.

import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs, readdirSync, readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeFolder } from '../../../src/core/makeFolder';

describe('makeFolder', () => {
  let tmp: string;
  beforeEach(async () => (tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-make-folder-'))));
  afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

  it('makes every missing level, with the mode asked for, and names the first one made', async () => {
    const deep = path.join(tmp, 'a', 'b', 'c');
    assert.equal(await makeFolder(deep, 0o700), path.join(tmp, 'a'));
    assert.ok(statSync(deep).isDirectory());
    assert.equal(statSync(path.join(tmp, 'a', 'b')).mode & 0o777, 0o700 & ~process.umask());
  });

  it('is content with a folder that is there already', async () => {
    await fs.mkdir(path.join(tmp, 'here'));
    assert.equal(await makeFolder(path.join(tmp, 'here')), undefined);
    assert.equal(await makeFolder(path.join(tmp, 'here', 'more')), path.join(tmp, 'here', 'more'));
  });

  it('refuses a file in the way, at whatever level, with ENOTDIR', async () => {
    await fs.writeFile(path.join(tmp, 'file'), 'x');
    await assert.rejects(makeFolder(path.join(tmp, 'file')), { code: 'ENOTDIR' });
    await assert.rejects(makeFolder(path.join(tmp, 'file', 'below')), { code: 'ENOTDIR' });
  });

  it('many callers making the same folders at once all succeed', async () => {
    const deep = path.join(tmp, 'x', 'y', 'z');
    await Promise.all(Array.from({ length: 8 }, () => makeFolder(deep)));
    assert.deepEqual(readdirSync(path.join(tmp, 'x', 'y')), ['z']);
  });

  it('fails at once under /proc, where a level cannot be made although its parent exists', function () {
    if (!existsSync('/proc/self')) this.skip();
    this.timeout(20_000);
    // in a child process: were it to loop as Node's recursive mkdir does, nothing could stop it in this one
    const script = `require(${JSON.stringify(require.resolve('../../../src/core/makeFolder'))}).makeFolder('/proc/dq-no-such/state')
      .then(() => console.log('made'), (err) => console.log(err.code))`;
    const run = spawnSync(process.execPath, ['-e', script], { timeout: 10_000, killSignal: 'SIGKILL', encoding: 'utf8' });
    assert.equal(run.signal, null, 'makeFolder never returned');
    assert.equal(run.stdout.trim(), 'ENOENT');
  });

  it('no source file makes folders with Node\'s recursive mkdir', () => {
    const src = path.resolve(__dirname, '../../../../src');
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/\.ts$/.test(entry.name) && /mkdir(Sync)?\([^)]*recursive/.test(readFileSync(file, 'utf8'))) found.push(path.relative(src, file));
      }
    };
    walk(src);
    assert.deepEqual(found, [], 'use makeFolder from src/core/makeFolder');
  });
});

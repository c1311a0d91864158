// The built dq (package.json "bin": dist/cli.js) runs as a program, as `npx dq` and a linked
// `dq` run it: the build leaves it executable, with its `#!/usr/bin/env node` line. The build
// runs in a temporary folder (linked to this one's sources) so the project's dist/ is left alone.

import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { CLIENT_VERSION } from '../../../src/client/version';

const ROOT = path.resolve(__dirname, '../../../..'); // out/test/integration/cli -> the project
const run = promisify(execFile);

describe('the built dq command', function () {
  this.timeout(120_000);
  let tmp: string;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-bundle-'));
    for (const name of ['src', 'node_modules', 'package.json', 'tsconfig.json']) await fs.symlink(path.join(ROOT, name), path.join(tmp, name));
    await fs.copyFile(path.join(ROOT, 'esbuild.js'), path.join(tmp, 'esbuild.js'));
    await run(process.execPath, ['esbuild.js'], { cwd: tmp });
  });
  after(() => fs.rm(tmp, { recursive: true, force: true }));

  it('is executable and runs by its own name', async () => {
    const cli = path.join(tmp, 'dist', 'cli.js');
    const mode = (await fs.stat(cli)).mode;
    assert.equal(mode & 0o111, 0o111, `mode ${(mode & 0o777).toString(8)}`);
    assert.equal((await fs.readFile(cli, 'utf8')).split('\n')[0], '#!/usr/bin/env node');
    // run as a program, not through node: a missing execute bit is "Permission denied" here
    const { stdout } = await run(cli, ['--version'], { env: { PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` } });
    assert.equal(stdout, `dq ${CLIENT_VERSION}\n`);
  });

  it('leaves the MySQL driver and the AWS SDK out of its own file, and loads them when such a target is opened', async () => {
    const cli = path.join(tmp, 'dist', 'cli.js');
    const own = await fs.readFile(cli, 'utf8');
    // parsed by every dq run when bundled into it, whatever the run does
    assert.ok(!own.includes('AWS_EXECUTION_ENV'), 'the AWS SDK is not in dist/cli.js');
    assert.ok(!own.includes('utf8mb4_general_ci'), 'mysql2 (its character set tables) is not in dist/cli.js');
    // nothing listens on port 9 of this machine: each target's driver is loaded, then refused
    const refused = async (...target: string[]): Promise<string> => {
      const failed = await run(process.execPath, [cli, 'sync-status', '--to', ...target], {
        env: { PATH: process.env.PATH ?? '', HOME: tmp, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test-secret' },
      }).then(
        () => assert.fail(`dq sync-status --to ${target.join(' ')} succeeded against a closed port`),
        (err: { stderr: string }) => err.stderr,
      );
      assert.doesNotMatch(failed, /Cannot find module/, failed);
      return failed;
    };
    assert.match(await refused('mysql://dq@127.0.0.1:9/dw'), /^dq: network: .*MySQL at mysql:\/\/dq@127\.0\.0\.1:9\/dw.*ECONNREFUSED/m);
    assert.match(await refused('s3://bucket/lake', '--s3-endpoint', 'http://127.0.0.1:9'), /^dq: network, ECONNREFUSED: The object store at http:\/\/127\.0\.0\.1:9 could not be reached/m);
  });
});

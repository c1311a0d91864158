// A sync to DuckDB on a machine whose DuckDB has no native library for its platform: the
// sync says so in the words the SQL engine uses, naming the platform, and offers what this
// tool can do instead.

import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const DATABASE = path.resolve(__dirname, '../../../src/sync/duckdbDatabase.js');
const CORE = path.resolve(__dirname, '../../../src/core');

/** Makes every platform package of DuckDB's native library impossible to find. */
const NO_BINDING = `const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith('@duckdb/node-bindings-')) throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};
`;

describe('a sync to DuckDB without its native library', () => {
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-no-binding-'));
    await fs.writeFile(path.join(dir, 'no-binding.js'), NO_BINDING);
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('fails naming the platform, with what to do instead', async () => {
    const script = `
const { openDatabase } = require(${JSON.stringify(DATABASE)});
const { systemClock } = require(${JSON.stringify(path.join(CORE, 'clock.js'))});
const { nullLogger } = require(${JSON.stringify(path.join(CORE, 'logger.js'))});
openDatabase(${JSON.stringify(path.join(dir, 'sync.duckdb'))}, { clock: systemClock, logger: nullLogger, lockWaitMs: 0, readOnly: false }).then(
  () => console.log('opened'),
  (err) => console.log(JSON.stringify({ kind: err.kind, message: err.message, hint: err.hint })),
);`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--require', path.join(dir, 'no-binding.js'), '-e', script]);
    const failure = JSON.parse(stdout) as { kind: string; message: string; hint: string };
    assert.equal(failure.kind, 'io');
    assert.match(failure.message, new RegExp(`^DuckDB has no working native library for ${process.platform}-${process.arch} \\(`));
    assert.match(failure.hint, /Install a build of this tool for this platform, or sync to PostgreSQL/);
    await assert.rejects(fs.stat(path.join(dir, 'sync.duckdb')), 'no database file was made');
  });
});

// A leading `~` in the paths dq is given: the home folder, only where it starts a file path.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { expandTargetHome, userPath } from '../../../src/cli/userPaths';

describe('dq paths with ~', () => {
  const home = path.resolve('/home/pat');
  const env = { HOME: home };
  const cwd = path.resolve('/work/here');

  it('reads ~ and ~/... as the home folder, and leaves ~name and a later ~ alone', () => {
    assert.equal(userPath('~', { cwd, env }), home);
    assert.equal(userPath('~/results', { cwd, env }), path.join(home, 'results'));
    assert.equal(userPath('~pat/results', { cwd, env }), path.join(cwd, '~pat', 'results'));
    assert.equal(userPath('out/~', { cwd, env }), path.join(cwd, 'out', '~'));
  });

  it('expands a sync target\'s file path, with or without duckdb:, and never a PostgreSQL URL', () => {
    assert.equal(expandTargetHome('~/s.duckdb', env), path.join(home, 's.duckdb'));
    assert.equal(expandTargetHome(' duckdb:~/s.duckdb', env), `duckdb:${path.join(home, 's.duckdb')}`);
    assert.equal(expandTargetHome('~other/s.duckdb', env), '~other/s.duckdb');
    for (const url of ['postgresql://etl@db.example.org/~warehouse', 'postgres://~user@db/x']) assert.equal(expandTargetHome(url, env), url);
  });
});

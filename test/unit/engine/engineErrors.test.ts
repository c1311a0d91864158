// How the engine words a DuckDB failure: its kind (which decides the advice) and one sentence of
// DuckDB's before the advice, for the engine's own reading of files and for the user's SQL.

import * as assert from 'node:assert/strict';
import { toEngineError } from '../../../src/engine/engineErrors';

function failure(message: string, origin?: Parameters<typeof toEngineError>[1]): { kind: string; message: string } {
  const err = toEngineError(new Error(message), origin);
  return { kind: err.kind, message: err.message };
}

describe('engine errors', () => {
  it('tells a file the engine could not make as an io failure, whatever step DuckDB names', () => {
    const commit = failure('TransactionContext Error: Failed to commit: Cannot open file "/tmp/engine-1/result-r1.duckdb.wal": Not a directory');
    assert.equal(commit.kind, 'io');
    assert.equal(
      commit.message,
      'TransactionContext Error: Failed to commit: Cannot open file "/tmp/engine-1/result-r1.duckdb.wal": Not a directory. Check that the files still exist and can be read, and that the target folder is writable.',
    );
    assert.equal(failure('TransactionContext Error: Failed to commit: could not write to file "/tmp/x.wal": No space left on device').kind, 'io');
    assert.equal(failure('IO Error: Could not write file "/tmp/x": No space left on device').kind, 'io');
  });

  it('keeps damaged files, the user\'s own SQL and cancellations apart from it', () => {
    assert.equal(failure('Invalid Input Error: Malformed JSON in file "part-0.jsonl.gz", at byte 390 in line 955: unexpected end of data.').kind, 'corrupt');
    const parse = failure('Parser Error: syntax error at or near "SELEC"\n\nLINE 1: SELEC 1\n        ^', 'sql');
    assert.equal(parse.kind, 'syntax');
    assert.equal(parse.message, 'Parser Error: syntax error at or near "SELEC". Correct the SQL and run it again.\nLINE 1: SELEC 1\n        ^');
    assert.equal(failure('Catalog Error: Table with name nope does not exist!', 'sql').message, 'Catalog Error: Table with name nope does not exist! Correct the SQL and run it again.');
    assert.equal(failure('INTERRUPT Error: Interrupted!').kind, 'cancelled');
  });
});

// Who holds a database file, read from DuckDB's own refusals to open it, in the shapes DuckDB
// writes them on each platform, so the sync and the SQL console can name that process.
import * as assert from 'node:assert/strict';
import { lockHolder } from '../../../src/engine/lockHolder';

const SEE_ALSO = 'See also https://duckdb.org/docs/stable/connect/concurrency';

describe('lockHolder', () => {
  it('names the program and its PID (Linux, DuckDB 1.x)', () => {
    const message = `IO Error: Could not set lock on file "/data/sync.duckdb": Conflicting lock is held in /usr/bin/node (PID 27068). ${SEE_ALSO}`;
    assert.deepEqual(lockHolder(message), { program: '/usr/bin/node', pid: 27068 });
  });

  it('leaves out the user and the advice that follow (macOS), and keeps dots and spaces of the program', () => {
    const message =
      'IO Error: Could not set lock on file "/tmp/some.db": Conflicting lock is held in /Applications/Data Tools.app/Contents/MacOS/python3.11 (PID 44293) by user hannes. ' +
      `However, you would be able to open this database in read-only mode, e.g. by using the -readonly parameter in the CLI. ${SEE_ALSO}`;
    assert.deepEqual(lockHolder(message), { program: '/Applications/Data Tools.app/Contents/MacOS/python3.11', pid: 44293 });
  });

  it('reads a message broken over several lines: wrapped by a client, or Windows putting the program on a line of its own', () => {
    const wrapped = `IO Error: Could not set lock on file\n"/data/warehouse.duckdb": Conflicting lock is held in /usr/local/bin/python3.11 (PID 66618).\n${SEE_ALSO}`;
    assert.deepEqual(lockHolder(wrapped), { program: '/usr/local/bin/python3.11', pid: 66618 });
    const windows =
      'IO Error: Cannot open file "C:\\Users\\me\\sync.duckdb": The process cannot access the file because it is being used by another process.\r\n\r\n\r\n' +
      'File is already open in \r\nC:\\Program Files\\nodejs\\node.exe (PID 7812)';
    assert.deepEqual(lockHolder(windows), { program: 'C:\\Program Files\\nodejs\\node.exe', pid: 7812 });
  });

  it('does without the PID, or the program, or both, when DuckDB could not tell them', () => {
    assert.deepEqual(lockHolder(`IO Error: Could not set lock on file "/x.duckdb": Conflicting lock is held in PID 4242 by user root. ${SEE_ALSO}`), { pid: 4242 });
    assert.deepEqual(lockHolder(`IO Error: Could not set lock on file "/x.duckdb": Conflicting lock is held in /usr/bin/python3.12. ${SEE_ALSO}`), { program: '/usr/bin/python3.12' });
    assert.deepEqual(lockHolder('IO Error: Could not set lock on file "/x.duckdb": Conflicting lock is held in /usr/bin/python3.12'), { program: '/usr/bin/python3.12' });
    assert.deepEqual(lockHolder(`IO Error: Could not set lock on file "/x.duckdb": Conflicting lock is held in . ${SEE_ALSO}`), {});
  });

  it('is undefined for any other failure to open a file', () => {
    assert.equal(lockHolder('IO Error: Cannot open database "/x.duckdb" in read-only mode: database does not exist'), undefined);
    assert.equal(lockHolder('IO Error: Could not set lock on file "/x.duckdb": Resource temporarily unavailable'), undefined);
  });
});

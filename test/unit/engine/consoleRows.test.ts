// Where a console's text is cut before its last statement, the one whose rows are kept by
// wrapping it in a CREATE TABLE … AS (consoleRows.ts): a `;` inside a string, a quoted name, a
// dollar-quoted string or a comment is no cut, and comments after the last statement are not
// part of it. DuckDB checks each cut before it is used; these are the cuts it is offered.

import * as assert from 'node:assert/strict';
import { splitLastStatement } from '../../../src/engine/consoleRows';

const lastOf = (text: string): string | undefined => splitLastStatement(text)?.last.trim();

describe('engine: the last statement of a console\'s text', () => {
  it('is the whole text when there is one statement, with nothing before it', () => {
    assert.deepEqual(splitLastStatement('SELECT 1'), { before: '', last: 'SELECT 1', hasBefore: false });
    assert.deepEqual(splitLastStatement('SELECT 1;'), { before: '', last: 'SELECT 1', hasBefore: false });
  });

  it('follows the statements before it, which are kept whole up to its `;`', () => {
    const split = splitLastStatement('CREATE TABLE t (x INT);\nINSERT INTO t VALUES (1);\nSELECT * FROM t');
    assert.equal(split?.before, 'CREATE TABLE t (x INT);\nINSERT INTO t VALUES (1);');
    assert.equal(split?.last.trim(), 'SELECT * FROM t');
    assert.equal(split?.hasBefore, true);
  });

  it('leaves out comments and semicolons after it', () => {
    assert.equal(lastOf('SELECT 1 AS a;\nSELECT 2 AS b; -- the second\n;;\n/* done */'), 'SELECT 2 AS b');
    assert.equal(splitLastStatement('-- setup\nSELECT 2')?.hasBefore, false, 'a comment is no statement');
  });

  it('keeps a line comment that ends the text inside the statement', () => {
    // the caller puts the statement on lines of its own, so the comment ends before the wrapping
    assert.equal(lastOf('SELECT 1; SELECT 2 -- two'), 'SELECT 2 -- two');
  });

  it('is not cut at a `;` inside strings, quoted names or comments', () => {
    assert.equal(lastOf("SELECT 1; SELECT 'a;b' AS s"), "SELECT 'a;b' AS s");
    assert.equal(lastOf("SELECT 1; SELECT 'it''s; fine' AS s"), "SELECT 'it''s; fine' AS s");
    assert.equal(lastOf('SELECT 1; SELECT 2 AS "x;y"'), 'SELECT 2 AS "x;y"');
    assert.equal(lastOf('SELECT 1; SELECT 2 AS "say ""a;b"""'), 'SELECT 2 AS "say ""a;b"""');
    assert.equal(lastOf('SELECT 1; SELECT 2 /* a; /* nested; */ still; */ AS n'), 'SELECT 2 /* a; /* nested; */ still; */ AS n');
    assert.equal(lastOf('SELECT 1; SELECT 2 -- not; a cut\n AS n'), 'SELECT 2 -- not; a cut\n AS n');
  });

  it('reads E strings with backslash escapes, and other strings without', () => {
    assert.equal(lastOf("SELECT 1; SELECT E'it\\'s; fine' AS s"), "SELECT E'it\\'s; fine' AS s");
    // a backslash is a plain character in a standard string: the string ends at the second quote
    assert.equal(lastOf("SELECT 'a\\'; SELECT 2"), 'SELECT 2');
  });

  it('reads dollar-quoted strings, and `$` in names and parameters as plain characters', () => {
    assert.equal(lastOf('SELECT 1; SELECT $$a;b$$ AS s'), 'SELECT $$a;b$$ AS s');
    assert.equal(lastOf('SELECT 1; SELECT $q$a;$$;b$q$ AS s'), 'SELECT $q$a;$$;b$q$ AS s');
    assert.equal(lastOf('SELECT a$b FROM t; SELECT $1'), 'SELECT $1');
  });

  it('gives no cut for text that ends inside a quote or a comment', () => {
    assert.equal(splitLastStatement("SELECT 1; SELECT 'open"), undefined);
    assert.equal(splitLastStatement('SELECT 1; SELECT "open'), undefined);
    assert.equal(splitLastStatement('SELECT 1; SELECT $$open'), undefined);
    assert.equal(splitLastStatement('SELECT 1; /* open'), undefined);
  });

  it('gives no cut for text of no statement', () => {
    assert.equal(splitLastStatement(''), undefined);
    assert.equal(splitLastStatement(' ;; -- nothing\n'), undefined);
  });
});

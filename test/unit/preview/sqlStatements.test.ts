import * as assert from 'node:assert/strict';
import { splitStatements, statementAt } from '../../../src/extension/preview/sqlStatements';

describe('SQL console statements', () => {
  it('splits at semicolons outside quotes, quoted names and comments', () => {
    const sql = `-- the users\nSELECT 'a;b' AS "x;y" FROM canvas.users; /* ; */ SELECT 2 -- ;\n;\n\n  select 3`;
    assert.deepEqual(
      splitStatements(sql).map((s) => s.text),
      [`SELECT 'a;b' AS "x;y" FROM canvas.users`, 'SELECT 2 -- ;', 'select 3'],
    );
  });

  it('starts a statement after its leading comments, where its Run lens goes', () => {
    const sql = '-- Data Query SQL console\n-- Ctrl+Enter runs\nSELECT 1';
    const [only] = splitStatements(sql);
    assert.equal(only.text, 'SELECT 1');
    assert.equal(sql.slice(only.start, only.end), 'SELECT 1');
  });

  it('ignores a console holding only comments', () => {
    assert.deepEqual(splitStatements('-- nothing yet\n/* still nothing */\n'), []);
  });

  it('runs the statement at the cursor, or the one just before a trailing semicolon', () => {
    const sql = 'SELECT 1;\nSELECT 2;\n\nSELECT 3';
    assert.equal(statementAt(sql, sql.indexOf('2'))?.text, 'SELECT 2');
    assert.equal(statementAt(sql, sql.indexOf('2;') + 2)?.text, 'SELECT 2', 'cursor right after the semicolon');
    assert.equal(statementAt(sql, sql.length)?.text, 'SELECT 3');
    assert.equal(statementAt(sql, sql.indexOf('\n\n') + 1)?.text, 'SELECT 2', 'a blank line after a statement runs that statement');
  });
});

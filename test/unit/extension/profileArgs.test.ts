// dataQuery.profileResult's argument object: the columns, WHERE and paths it takes, checked
// before anything is opened, and the WHERE added to a preview's own. VS Code is the plain-Node
// stand-in of fakeVscode.ts.

// first, so the module below loads the stand-in as `vscode`
import '../../support/fakeVscode';

import * as assert from 'node:assert/strict';
import { DqError } from '../../../src/client/errors';
import { profileOptions, withWhere } from '../../../src/extension/preview/profileResult';

function refusal(arg: unknown): DqError {
  try {
    profileOptions(arg);
  } catch (err) {
    assert.ok(err instanceof DqError, String(err));
    return err;
  }
  return assert.fail('expected a refusal');
}

describe('dataQuery.profileResult arguments', () => {
  it('takes the columns and the WHERE given, and nothing when given nothing', () => {
    assert.deepEqual(profileOptions(undefined), {});
    assert.deepEqual(profileOptions({ connection: 'c', jobId: 'j' }), {});
    assert.deepEqual(profileOptions({ paths: ['/a.parquet'], columns: ['key.id', 'value.name'], where: '"key.id" > 3' }), {
      columns: ['key.id', 'value.name'],
      where: '"key.id" > 3',
    });
    assert.deepEqual(profileOptions({ paths: ['/a.parquet'], where: '  ' }), {}, 'a blank WHERE keeps every row');
  });

  it('refuses columns that are not a list of names, a WHERE that is not text, and paths that are not files, saying what to pass', () => {
    for (const columns of ['key.id', [], [''], [1], { name: 'x' }]) {
      const err = refusal({ paths: ['/a.parquet'], columns });
      assert.equal(err.kind, 'usage');
      assert.match(err.message, /"columns" is not a list of column names/);
      assert.match(err.hint ?? '', /\["key\.id", "value\.name"\]/);
    }
    const where = refusal({ connection: 'c', jobId: 'j', where: 42 });
    assert.match(where.message, /"where" is not text/);
    for (const paths of ['/a.parquet', [], [3]]) assert.match(refusal({ paths }).message, /"paths" is not a list of result files/);
  });

  it('adds the WHERE to the view\'s own, each kept whole', () => {
    assert.deepEqual(withWhere({}, 'a > 1'), { where: 'a > 1' });
    assert.deepEqual(withWhere({ where: 'b = 2 OR c = 3' }, 'a > 1'), { where: '(b = 2 OR c = 3\n) AND (a > 1\n)' });
    const view = { filters: [{ column: 'a', op: 'is null' as const }] };
    assert.deepEqual(withWhere(view, undefined), view);
  });
});

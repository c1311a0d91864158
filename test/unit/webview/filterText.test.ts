import * as assert from 'node:assert/strict';
import { engineView, parseFilterText } from '../../../src/webview/filterText';

describe('column filter text', () => {
  it('reads comparisons, null tests and plain text as contains', () => {
    assert.deepEqual(parseFilterText('n', '>= 10'), { column: 'n', op: '>=', value: '10' });
    assert.deepEqual(parseFilterText('n', '<5'), { column: 'n', op: '<', value: '5' });
    assert.deepEqual(parseFilterText('s', '<> active'), { column: 's', op: '!=', value: 'active' });
    assert.deepEqual(parseFilterText('s', '=deleted'), { column: 's', op: '=', value: 'deleted' });
    assert.deepEqual(parseFilterText('s', ' NULL '), { column: 's', op: 'is null' });
    assert.deepEqual(parseFilterText('s', 'not null'), { column: 's', op: 'is not null' });
    assert.deepEqual(parseFilterText('s', 'smith, j'), { column: 's', op: 'contains', value: 'smith, j' });
    assert.equal(parseFilterText('s', '   '), undefined);
  });

  it('gives the engine the sort, the filters and a trimmed WHERE, and no empty WHERE', () => {
    assert.deepEqual(engineView({ sort: [{ column: 'a', descending: true }], filters: { a: '> 1', b: '' }, where: '  b is null ' }), {
      sort: [{ column: 'a', descending: true }],
      filters: [{ column: 'a', op: '>', value: '1' }],
      where: 'b is null',
    });
    assert.equal('where' in engineView({ sort: [], filters: {}, where: ' ' }), false);
  });
});

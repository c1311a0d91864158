import * as assert from 'node:assert/strict';
import { MAX_FETCH_ROWS, MAX_TEXT_LENGTH, parseToHost } from '../../../src/webview/previewProtocol';

describe('preview messages from the webview', () => {
  it('accepts what the grid sends', () => {
    assert.deepEqual(parseToHost({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseToHost({ type: 'fetch', version: 2, offset: 400, limit: 200 }), { type: 'fetch', version: 2, offset: 400, limit: 200 });
    const view = { sort: [{ column: 'key.id', descending: true }], filters: { 'value.name': 'ann', 'value.age': ' ' }, where: '"value.age" > 3' };
    assert.deepEqual(parseToHost({ type: 'setView', view }), {
      type: 'setView',
      view: { sort: [{ column: 'key.id', descending: true }], filters: { 'value.name': 'ann' }, where: '"value.age" > 3' },
    });
    assert.deepEqual(parseToHost({ type: 'copy', text: 'a\tb' }), { type: 'copy', text: 'a\tb' });
    assert.deepEqual(parseToHost({ type: 'copyWhole', version: 2, row: 40, column: 1 }), { type: 'copyWhole', version: 2, row: 40, column: 1 });
    assert.deepEqual(parseToHost({ type: 'copyWhole', version: 2, row: 40, extra: 'x' }), { type: 'copyWhole', version: 2, row: 40 });
    assert.deepEqual(parseToHost({ type: 'profileAgain', version: 3, column: 'x' }), { type: 'profileAgain', version: 3 });
    assert.deepEqual(parseToHost({ type: 'chart', extra: 'x' }), { type: 'chart' });
  });

  it('refuses malformed or oversized requests', () => {
    const refused: unknown[] = [
      null,
      'fetch',
      [],
      { type: 'drop table' },
      { type: 'fetch', version: 1, offset: -1, limit: 10 },
      { type: 'fetch', version: 1, offset: 0.5, limit: 10 },
      { type: 'fetch', version: 1, offset: 0, limit: 0 },
      { type: 'fetch', version: 1, offset: 0, limit: MAX_FETCH_ROWS + 1 },
      { type: 'fetch', version: '1', offset: 0, limit: 10 },
      { type: 'setView', view: { sort: [{ column: 'a' }], filters: {}, where: '' } },
      { type: 'setView', view: { sort: [], filters: { a: 1 }, where: '' } },
      { type: 'setView', view: { sort: [], filters: [], where: '' } },
      { type: 'setView', view: { sort: [], filters: {}, where: 'x'.repeat(MAX_TEXT_LENGTH + 1) } },
      { type: 'copy', text: 42 },
      { type: 'copyWhole', version: 2, row: -1 },
      { type: 'copyWhole', version: 2, row: 1, column: '0' },
      { type: 'shown', version: 1, firstRow: -3, rows: 1 },
      { type: 'profileAgain' },
      { type: 'profileAgain', version: -1 },
      { type: 'profileAgain', version: '3' },
      { type: 'profileAgain', version: 1.5 },
    ];
    for (const message of refused) assert.equal(parseToHost(message), undefined, JSON.stringify(message)?.slice(0, 80));
  });
});

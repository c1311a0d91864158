import * as assert from 'node:assert/strict';
import { columnWidths, isNumeric, MAX_CH, MIN_CH, typeLabel } from '../../../src/webview/columnWidths';

describe('the grid column widths', () => {
  it('fits a 17-digit id whole rather than cutting it', () => {
    const [id] = columnWidths([{ name: 'key.id', type: 'int64', key: true }], [['10000000000000001'], ['2']], true);
    assert.ok(id >= 17, `${id} characters hold 17 digits`);
    assert.equal(id, 17);
  });

  it('is as wide as the header where the values are narrower, with room for the sort mark', () => {
    const [flag] = columnWidths([{ name: 'value.is_active', type: 'boolean' }], [[true], [false]], true);
    assert.equal(flag, 'value.is_active'.length + 2);
    const [unsorted] = columnWidths([{ name: 'value.is_active', type: 'boolean' }], [[true]], false);
    assert.equal(unsorted, 'value.is_active'.length);
  });

  it('keeps a column between the minimum and the limit', () => {
    const [narrow, wide] = columnWidths(
      [
        { name: 'n', type: 'int32' },
        { name: 'value.body', type: 'string' },
      ],
      [[1, 'x'.repeat(300)]],
      false,
    );
    assert.equal(narrow, MIN_CH);
    assert.equal(wide, MAX_CH, 'a long value shows cut, whole on hover');
  });

  it('sizes by the header alone before any row has come', () => {
    assert.deepEqual(columnWidths([{ name: 'value.name', type: 'string' }], [], false), ['value.name'.length]);
  });

  it('measures nested values as the grid shows them and counts nulls as empty', () => {
    const [tags] = columnWidths([{ name: 'tags', type: 'json' }], [[{ a: [1, 2] }], [null]], false);
    assert.equal(tags, '{"a":[1,2]}'.length);
  });

  it('right-aligns numbers only', () => {
    assert.deepEqual(['int64', 'int32', 'number', 'string', 'date-time', 'boolean', 'json'].map((type) => isNumeric({ type })), [true, true, true, false, false, false, false]);
    assert.equal(typeLabel({ type: 'int64', key: true }), 'int64 · key');
  });
});

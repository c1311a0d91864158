import * as assert from 'node:assert/strict';
import { displayOrder, inDisplayOrder } from '../../../src/webview/columnOrder';

describe('the grid column order', () => {
  // as a change table's result comes: the record's meta parts first, then its key and value
  const columns = [
    { name: 'meta.action' },
    { name: 'meta.ts' },
    { name: 'key.course_id', key: true },
    { name: 'value.name' },
    { name: 'key.id', key: true },
    { name: 'value.score' },
  ];

  it('shows key columns first, then the others in the result order, meta columns last', () => {
    const order = displayOrder(columns);
    assert.deepEqual(
      order.map((place) => columns[place].name),
      ['key.course_id', 'key.id', 'value.name', 'value.score', 'meta.action', 'meta.ts'],
    );
  });

  it('leaves a result without keys or meta columns in its order', () => {
    assert.deepEqual(displayOrder([{ name: 'b' }, { name: 'a' }, { name: 'metadata' }]), [0, 1, 2], 'a column merely starting with "meta" is not a meta part');
    assert.deepEqual(displayOrder([]), []);
  });

  it('puts a row in the display order, so copying it copies what the grid shows', () => {
    const order = displayOrder(columns);
    const row = ['upsert', '2026-07-23T19:54:17Z', 7, 'Ada', '10000000000000001', 93];
    assert.deepEqual(inDisplayOrder(row, order), [7, '10000000000000001', 'Ada', 93, 'upsert', '2026-07-23T19:54:17Z']);
    assert.deepEqual(row[0], 'upsert', 'the row itself keeps the result order');
  });
});

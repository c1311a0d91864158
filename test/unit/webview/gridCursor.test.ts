import * as assert from 'node:assert/strict';
import { followCursor, moveCursor, type GridExtent } from '../../../src/webview/gridCursor';

const extent: GridExtent = { rows: 1_000, columns: 5, pageRows: 20 };
const key = (k: string, ctrl = false): { key: string; ctrl: boolean } => ({ key: k, ctrl });

describe('grid keyboard', () => {
  it('moves by cell with the arrows and stays inside the grid', () => {
    assert.deepEqual(moveCursor({ row: 3, column: 2 }, key('ArrowDown'), extent), { row: 4, column: 2 });
    assert.deepEqual(moveCursor({ row: 3, column: 2 }, key('ArrowRight'), extent), { row: 3, column: 3 });
    assert.deepEqual(moveCursor({ row: 0, column: 0 }, key('ArrowUp'), extent), { row: 0, column: 0 });
    assert.deepEqual(moveCursor({ row: 0, column: 4 }, key('ArrowRight'), extent), { row: 0, column: 4 });
  });

  it('pages by a screen less one row, and jumps with Home, End, Ctrl+Home and Ctrl+End', () => {
    assert.deepEqual(moveCursor({ row: 10, column: 1 }, key('PageDown'), extent), { row: 29, column: 1 });
    assert.deepEqual(moveCursor({ row: 10, column: 1 }, key('PageUp'), extent), { row: 0, column: 1 });
    assert.deepEqual(moveCursor({ row: 990, column: 1 }, key('PageDown'), extent), { row: 999, column: 1 });
    assert.deepEqual(moveCursor({ row: 10, column: 3 }, key('Home'), extent), { row: 10, column: 0 });
    assert.deepEqual(moveCursor({ row: 10, column: 1 }, key('End'), extent), { row: 10, column: 4 });
    assert.deepEqual(moveCursor({ row: 10, column: 3 }, key('Home', true), extent), { row: 0, column: 3 });
    assert.deepEqual(moveCursor({ row: 10, column: 3 }, key('End', true), extent), { row: 999, column: 3 });
    assert.equal(moveCursor({ row: 10, column: 3 }, key('a'), extent), undefined, 'other keys are left to the page');
  });

  it('scrolls only when the cursor leaves the screen', () => {
    assert.equal(followCursor(100, 110, 20), 100);
    assert.equal(followCursor(100, 120, 20), 101);
    assert.equal(followCursor(100, 99, 20), 99);
    assert.equal(followCursor(100, 999, 20), 980);
  });
});

import * as assert from 'node:assert/strict';
import { RowWindows } from '../../../src/webview/rowWindows';

function rows(start: number, count: number): unknown[][] {
  return Array.from({ length: count }, (_, i) => [start + i]);
}

describe('grid row windows', () => {
  it('asks for the windows on screen and the next one, once each', () => {
    const windows = new RowWindows(200, 10);
    assert.deepEqual(windows.wanted(190, 30), [0, 200, 400]);
    for (const start of [0, 200, 400]) windows.requested(start);
    assert.deepEqual(windows.wanted(190, 30), [], 'nothing is asked twice while on its way');
    windows.received(200, rows(200, 200));
    assert.deepEqual(windows.row(250), [250]);
    assert.equal(windows.row(150), undefined);
  });

  it('asks again for a window whose fetch failed once the grid retries, and not before', () => {
    const windows = new RowWindows(200, 10);
    for (const start of windows.wanted(190, 30)) windows.requested(start);
    windows.failed(200);
    windows.received(0, rows(0, 200));
    windows.received(400, rows(400, 200));
    assert.deepEqual(windows.wanted(190, 30), [], 'a failure that stands is not asked for in a loop');
    windows.retry();
    assert.deepEqual(windows.wanted(5_000, 30), [5_000, 5_200], 'only the windows on screen are asked for');
    assert.deepEqual(windows.wanted(190, 30), [200], 'the failed window, back on screen after a retry');
    windows.requested(200);
    windows.received(200, rows(200, 200));
    assert.deepEqual(windows.row(250), [250]);
  });

  it('holds a bounded number of rows however far the user scrolls', () => {
    const windows = new RowWindows(200, 10);
    for (let first = 0; first < 1_000_000; first += 5_000) {
      for (const start of windows.wanted(first, 40)) {
        windows.requested(start);
        windows.received(start, rows(start, 200));
      }
      assert.ok(windows.row(first), `row ${first} is at hand`);
    }
    assert.ok(windows.heldRows() <= 2_000, `${windows.heldRows()} rows held`);
  });

  it('keeps the rows on screen when older windows are dropped', () => {
    const windows = new RowWindows(100, 3);
    for (const start of [0, 100, 200]) windows.received(start, rows(start, 100));
    windows.wanted(0, 10); // rows 0-9 are on screen again: their window and the next are the most recent
    windows.received(300, rows(300, 100));
    assert.ok(windows.row(5), 'the visible window stays');
    assert.ok(windows.row(105), 'and the one after it');
    assert.equal(windows.row(205), undefined, 'the least recently used one went');
  });

  it('learns the row count from a short window and asks for nothing past it', () => {
    const windows = new RowWindows(200, 10);
    assert.deepEqual(windows.estimate(), { rows: 200, exact: false });
    windows.received(0, rows(0, 200));
    assert.deepEqual(windows.estimate(), { rows: 400, exact: false });
    windows.received(200, rows(200, 57));
    assert.deepEqual(windows.estimate(), { rows: 257, exact: true });
    assert.deepEqual(windows.wanted(230, 30), []);
    windows.clear();
    assert.deepEqual(windows.estimate(), { rows: 200, exact: false });
    assert.deepEqual(windows.wanted(0, 30), [0, 200]);
  });
});

import * as assert from 'node:assert/strict';
import { countingToText, goToRow } from '../../../src/webview/goToRow';
import { RowWindows } from '../../../src/webview/rowWindows';

function rows(start: number, count: number): unknown[][] {
  return Array.from({ length: count }, (_, i) => [start + i]);
}

describe('grid "Go to"', () => {
  it('waits for the count to go to a row beyond those read so far, instead of stopping at the end of what was read', () => {
    const windows = new RowWindows(200, 10);
    windows.received(0, rows(0, 200));
    windows.received(200, rows(200, 200));
    // 5,000,000 rows, still being counted: row 4,000,000 is not known to exist yet
    assert.deepEqual(goToRow(3_999_999, undefined, windows.known()), { afterCount: 3_999_999 });
    assert.equal(countingToText(3_999_999), `Counting rows to go to row ${(4_000_000).toLocaleString()}…`);
    // the count came: there it goes
    assert.deepEqual(goToRow(3_999_999, 5_000_000, windows.known()), { row: 3_999_999 });
  });

  it('goes at once to a row already read, and to the last row past the end', () => {
    const windows = new RowWindows(200, 10);
    windows.received(0, rows(0, 200));
    assert.deepEqual(goToRow(150, undefined, windows.known()), { row: 150 }, 'a row read already');
    assert.deepEqual(goToRow(9_999, 1_234, windows.known()), { row: 1_233 }, 'past the counted end: the last row');
    windows.received(200, rows(200, 34));
    assert.deepEqual(goToRow(9_999, undefined, windows.known()), { row: 233 }, 'a short page showed the end: no count needed');
    assert.deepEqual(goToRow(-3, 1_234, windows.known()), { row: 0 });
    assert.deepEqual(goToRow(5, 0, windows.known()), { row: 0 }, 'an empty result');
  });
});

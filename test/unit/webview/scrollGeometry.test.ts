import * as assert from 'node:assert/strict';
import { contentHeight, isScaled, rowAtScroll, scrollForRow, type ScrollGeometry } from '../../../src/webview/scrollGeometry';

const BROWSER_LIMIT_PX = 8_000_000;

function geometry(totalRows: number): ScrollGeometry {
  return { totalRows, rowHeight: 24, viewportRows: 30, maxScrollPx: BROWSER_LIMIT_PX };
}

describe('grid scrollbar', () => {
  it('moves one row per row height while the rows fit under the scroll limit', () => {
    const g = geometry(10_000);
    assert.equal(isScaled(g), false);
    assert.equal(contentHeight(g), 240_000);
    for (const row of [0, 1, 2, 3, 17, 4_999, 9_969, 9_970]) {
      assert.equal(scrollForRow(row, g), row * 24);
      assert.equal(rowAtScroll(row * 24, g), row);
      assert.equal(rowAtScroll(row * 24 + 23, g), Math.min(row, 9_970));
    }
  });

  it('spans ten million rows with a scrollbar no taller than the browser allows', () => {
    const g = geometry(10_000_000);
    assert.equal(isScaled(g), true);
    assert.equal(contentHeight(g), BROWSER_LIMIT_PX);
    const bottom = contentHeight(g) - g.viewportRows * g.rowHeight;
    assert.equal(rowAtScroll(0, g), 0);
    assert.equal(rowAtScroll(bottom, g), 10_000_000 - 30, 'the end of the scrollbar shows the last rows');
    assert.equal(rowAtScroll(bottom / 2, g), Math.floor((10_000_000 - 30) / 2));
    let previous = -1;
    for (let px = 0; px <= bottom; px += 97_531) {
      const row = rowAtScroll(px, g);
      assert.ok(row >= previous, 'rows never go backwards as the thumb goes down');
      previous = row;
    }
  });

  it('puts the thumb where a jumped-to row is, even when a pixel stands for several rows', () => {
    const g = geometry(10_000_000);
    for (const row of [0, 1, 123_456, 5_000_000, 9_999_970]) {
      const px = scrollForRow(row, g);
      const shown = rowAtScroll(px, g);
      assert.ok(shown >= row && shown - row <= 2, `row ${row} -> ${px}px -> row ${shown}`);
    }
    assert.equal(rowAtScroll(scrollForRow(20_000_000, g), g), 10_000_000 - 30, 'a row past the end shows the last rows');
  });

  it('does not scroll a result that fits on one screen', () => {
    const g = geometry(12);
    assert.equal(scrollForRow(5, g), 0);
    assert.equal(rowAtScroll(100, g), 0);
  });
});

import * as assert from 'node:assert/strict';
import { cellText, holdsCutValue, hoverText, rowTsv, shownText } from '../../../src/webview/cellText';

describe('cell text', () => {
  it('shows nulls as empty, nested values as JSON and long text cut short', () => {
    assert.equal(cellText(null), '');
    assert.equal(cellText({ a: [1, 2] }), '{"a":[1,2]}');
    assert.equal(cellText(false), 'false');
    assert.equal(cellText('12345678901234567890'), '12345678901234567890');
    const long = 'x'.repeat(2_000);
    assert.equal(shownText(long).length, 501);
    assert.equal(cellText(long), long, 'copying takes the whole value');
  });

  it('shows a long value in full on hover, the first 2,000 characters of a very long one, and nothing for a short one', () => {
    assert.equal(hoverText('GET'), '');
    assert.equal(hoverText(null), '');
    const url = `https://example.org/courses/${'a'.repeat(60)}`;
    assert.equal(hoverText(url), url);
    assert.equal(hoverText({ tags: ['x'.repeat(30)] }), `{"tags":["${'x'.repeat(30)}"]}`);
    const huge = 'y'.repeat(5_000);
    assert.equal(hoverText(huge), `${'y'.repeat(2_000)}… (Ctrl+C copies all 5,000 characters)`);
  });

  it('copies a row as one tab-separated line, whatever the values hold', () => {
    assert.equal(rowTsv([1, 'a\tb', 'line1\r\nline2', null, 'back\\slash']), '1\ta\\tb\tline1\\nline2\t\tback\\\\slash');
  });

  it('shows a value that came cut as its start, marked as cut, and tells its whole length on hover', () => {
    const cut = { cut: true, start: 'z'.repeat(4096), length: 15 * 2 ** 20 };
    assert.equal(shownText(cut), `${'z'.repeat(500)}…`);
    assert.equal(cellText(cut), `${'z'.repeat(4096)}…`, 'never taken for the whole value');
    assert.equal(hoverText(cut), `${'z'.repeat(2_000)}… (Ctrl+C copies all 15,728,640 characters)`);
    assert.equal(holdsCutValue([1, cut]), true, 'copying the row asks for the whole value');
    assert.equal(holdsCutValue([1, 'z'.repeat(5_000), { cut: 'yes', start: 'a', length: 3 }]), false, 'values that came whole are copied as they are');
  });
});

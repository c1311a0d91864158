import * as assert from 'node:assert/strict';
import { cellText, hoverText, rowTsv, shownText } from '../../../src/webview/cellText';

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
});

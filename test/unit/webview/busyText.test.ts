import * as assert from 'node:assert/strict';
import { busyText, sameView } from '../../../src/webview/busyText';
import { EMPTY_VIEW, type ViewState } from '../../../src/webview/previewProtocol';

const sorted: ViewState = { ...EMPTY_VIEW, sort: [{ column: 'key.id', descending: false }] };
const filtered: ViewState = { ...sorted, filters: { 'value.http_status': '= 404' } };

describe('busy status of the preview grid', () => {
  it('names the work the user asked for: a sort, a filter, or reading rows', () => {
    assert.equal(busyText(sorted, EMPTY_VIEW, 400), 'Sorting…');
    assert.equal(busyText({ ...sorted, sort: [{ column: 'key.id', descending: true }] }, sorted, 400), 'Sorting…', 'a reversed sort is a sort');
    assert.equal(busyText(filtered, sorted, 400), 'Filtering…');
    assert.equal(busyText({ ...sorted, where: '"value.user_id" > 3' }, sorted, 400), 'Filtering…');
    assert.equal(busyText(sorted, sorted, 400), 'Reading rows…', 'scrolling to rows not read yet');
    assert.equal(busyText(sorted, undefined, 400), 'Reading rows…', 'the first rows of a result');
  });

  it('counts whole seconds once a second has passed', () => {
    assert.equal(busyText(sorted, EMPTY_VIEW, 999), 'Sorting…');
    assert.equal(busyText(sorted, EMPTY_VIEW, 1_000), 'Sorting… 1 s');
    assert.equal(busyText(filtered, sorted, 12_400), 'Filtering… 12 s');
  });

  it('treats blank filters, spacing and the order filters were typed in as the same view', () => {
    assert.ok(sameView({ ...sorted, filters: { a: ' ' }, where: ' x > 1 ' }, { ...sorted, where: 'x > 1' }));
    assert.ok(sameView({ ...sorted, filters: { a: '=1', b: 'x' } }, { ...sorted, filters: { b: 'x', a: '= 1' } }), 'the same filters, typed or ordered differently');
    assert.ok(!sameView(filtered, sorted));
    assert.ok(!sameView({ ...sorted, where: 'x > 1' }, sorted));
    assert.ok(!sameView(sorted, EMPTY_VIEW));
  });
});

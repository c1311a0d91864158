// What a chart's page keeps for a reload of the window, as the panel reads it back (what the
// page kept passes as it was; anything malformed is refused whole, so the panel says it cannot
// draw the chart again rather than guessing), when the grid's view holds other rows than the
// chart's, and how the page says which rows the chart shows.

import * as assert from 'node:assert/strict';
import { originText, parseSavedChart, sameRows } from '../../../src/webview/chart/chartOrigin';
import { EMPTY_VIEW, type ViewState } from '../../../src/webview/previewProtocol';

const GET: ViewState = { sort: [], filters: { 'value.http_method': 'GET' }, where: '' };

describe('chart origin', () => {
  it('reads back what the page kept', () => {
    const kept = [
      { title: 'canvas_logs.web_logs', files: { paths: ['/r/part-0.jsonl.gz', '/r/part-1.jsonl.gz'], name: 'canvas_logs.web_logs' }, view: GET, spec: { kind: 'bar', x: 'value.http_method' } },
      { title: 'part-0.jsonl.gz', files: { paths: ['/r/part-0.jsonl.gz'] }, view: EMPTY_VIEW, spec: { kind: 'scatter', x: 'a', y: 'b', color: 'c' } },
      { title: 'SELECT 1', spec: { kind: 'histogram', x: 'n' } },
    ];
    for (const state of kept) assert.deepEqual(parseSavedChart(state), state);
  });

  it('refuses a state that is not whole', () => {
    const spec = { kind: 'bar', x: 'a' };
    const bad: unknown[] = [
      undefined,
      null,
      { spec },
      { title: '', spec },
      { title: 't' },
      { title: 't', spec: { kind: 'pie', x: 'a' } },
      { title: 't', spec, files: { paths: [] } },
      { title: 't', spec, files: { paths: ['/a', 3] } },
      { title: 't', spec, files: '/a' },
      { title: 't', spec, view: { filters: {}, where: '' } },
      { title: 't', spec, view: { sort: [], filters: { a: 1 }, where: '' } },
    ];
    for (const state of bad) assert.equal(parseSavedChart(state), undefined, JSON.stringify(state));
  });

  it('holds views the same when they keep the same rows: a sort, spaces or an empty filter change none', () => {
    const sorted: ViewState = { sort: [{ column: 'key.id', descending: true }], filters: { 'value.http_method': ' GET ', 'value.url': '' }, where: ' ' };
    assert.ok(sameRows(GET, sorted));
    assert.ok(sameRows({ sort: [], filters: { a: '1', b: '2' }, where: '' }, { sort: [], filters: { b: '2', a: '1' }, where: '' }), 'in any order of columns');
    assert.ok(!sameRows(GET, { ...GET, filters: { 'value.http_method': 'POST' } }));
    assert.ok(!sameRows(GET, { ...GET, where: 'value.http_status >= 500' }));
    assert.ok(!sameRows(GET, EMPTY_VIEW));
  });

  it('says which rows the chart shows', () => {
    const view: ViewState = { sort: [], filters: { 'value.http_method': 'GET', 'key.id': '> 10' }, where: 'value.http_status >= 500' };
    assert.equal(originText({ title: 't', view }, 1234, 5000), `Filtered: ${(1234).toLocaleString()} of ${(5000).toLocaleString()} rows (key.id: > 10; value.http_method: GET; WHERE value.http_status >= 500).`);
    assert.equal(originText({ title: 't', view }, 12, undefined), 'Filtered: 12 rows (key.id: > 10; value.http_method: GET; WHERE value.http_status >= 500).', 'before the whole result is counted');
    assert.equal(originText({ title: 't', view: EMPTY_VIEW }, 5000, undefined), `All ${(5000).toLocaleString()} rows of the result.`);
    assert.equal(originText({ title: 'SELECT 1' }, 3, undefined), '', 'a console statement\'s rows have no view');
  });
});

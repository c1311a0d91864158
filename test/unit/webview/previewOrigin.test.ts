import * as assert from 'node:assert/strict';
import { parseSavedPreview } from '../../../src/webview/previewOrigin';

describe('a preview grid\'s state kept for a reload of the window', () => {
  const view = { sort: [{ column: 'key.id', descending: false }], filters: { 'value.http_status': '= 404' }, where: '' };

  it('reads back what the page kept: a job\'s files and view, loose files, a statement\'s title alone', () => {
    const kept = [
      { title: 'canvas_logs.web_logs', files: { paths: ['/r/a.jsonl.gz', '/r/b.jsonl.gz'], name: 'canvas_logs.web_logs' }, job: { connection: 'Sample data', jobId: 'j1' }, view },
      { title: 'a.csv', files: { paths: ['/r/a.csv'] } },
      { title: 'SELECT 1' },
    ];
    for (const state of kept) assert.deepEqual(parseSavedPreview(state), state);
  });

  it('keeps only what it knows of the state (the grid\'s place in the rows is the page\'s own)', () => {
    assert.deepEqual(parseSavedPreview({ title: 't', files: { paths: ['/r/a.csv'] }, version: 3, firstRow: 10, cursor: { row: 1, column: 0 } }), { title: 't', files: { paths: ['/r/a.csv'] } });
  });

  it('refuses a state that is not whole', () => {
    const bad = [
      undefined,
      'canvas_logs.web_logs',
      {},
      { title: '' },
      { title: 't', files: { paths: [] } },
      { title: 't', files: { paths: [42] } },
      { title: 't', files: { paths: ['/r/a.csv'] }, job: { connection: 'Sample data' } },
      { title: 't', files: { paths: ['/r/a.csv'] }, view: { sort: 'key.id', filters: {}, where: '' } },
    ];
    for (const state of bad) assert.equal(parseSavedPreview(state), undefined, JSON.stringify(state));
  });
});

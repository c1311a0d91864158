// What a chart's page may post to the extension, as the host checks it: well-formed messages
// pass as they are, anything else (an unknown kind, a name that is not text, an image too
// large or of another format) is dropped.

import * as assert from 'node:assert/strict';
import { MAX_IMAGE_CHARS, MAX_NAME_LENGTH, parseChartToHost, parseSpec } from '../../../src/webview/chart/chartMessages';

describe('chart page messages', () => {
  it('passes well-formed messages as they are', () => {
    const messages = [
      { type: 'ready' },
      { type: 'redraw' },
      { type: 'draw', spec: { kind: 'bar', x: 'a' } },
      { type: 'draw', spec: { kind: 'scatter', x: 'a', y: 'b', color: 'c' } },
      { type: 'drawn', version: 3, marks: 120 },
      { type: 'export', format: 'svg' },
      { type: 'image', id: 1, format: 'png', data: 'iVBORw0KGgo=' },
      { type: 'imageFailed', id: 2, message: 'no chart is drawn' },
    ];
    for (const message of messages) assert.deepEqual(parseChartToHost(message), message);
  });

  it('drops anything else', () => {
    const bad: unknown[] = [
      null,
      'ready',
      { type: 'nope' },
      { type: 'draw', spec: { kind: 'pie', x: 'a' } },
      { type: 'draw', spec: { kind: 'bar' } },
      { type: 'draw', spec: { kind: 'bar', x: 'a', y: 3 } },
      { type: 'draw', spec: { kind: 'bar', x: 'a'.repeat(MAX_NAME_LENGTH + 1) } },
      { type: 'drawn', version: -1, marks: 1 },
      { type: 'drawn', version: 1.5, marks: 1 },
      { type: 'export', format: 'jpeg' },
      { type: 'image', id: 1, format: 'gif', data: '' },
      { type: 'image', id: 1, format: 'svg', data: { svg: true } },
      { type: 'image', id: 'x', format: 'svg', data: '<svg/>' },
      { type: 'imageFailed', id: 1 },
    ];
    for (const message of bad) assert.equal(parseChartToHost(message), undefined, JSON.stringify(message).slice(0, 80));
  });

  it('refuses an image larger than the host takes, and cuts a failure\'s message', () => {
    const largest = 'x'.repeat(MAX_IMAGE_CHARS);
    assert.equal(parseChartToHost({ type: 'image', id: 1, format: 'svg', data: largest })?.type, 'image');
    assert.equal(parseChartToHost({ type: 'image', id: 1, format: 'svg', data: `${largest}x` }), undefined);
    const failed = parseChartToHost({ type: 'imageFailed', id: 1, message: 'x'.repeat(5000) });
    assert.equal(failed?.type === 'imageFailed' && failed.message.length, 1000);
  });

  it('keeps only the parts of a chart it knows', () => {
    assert.deepEqual(parseSpec({ kind: 'line', x: 't', extra: 'dropped' }), { kind: 'line', x: 't' });
  });
});

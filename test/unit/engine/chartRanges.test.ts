// Equal ranges of x for a chart: a round width, a start at a multiple of it, and enough ranges
// to hold the greatest value, whatever the values (one value, negative, tiny, huge, times).

import * as assert from 'node:assert/strict';
import { rangesOf, widthText } from '../../../src/engine/chartRanges';

const DAY = 86_400_000;

describe('chart ranges', () => {
  it('takes a round width of about the span over the ranges, from a multiple of it', () => {
    assert.deepEqual(rangesOf(0, 59_999, 200, 'whole'), { start: 0, width: 500, count: 120 });
    assert.deepEqual(rangesOf(3, 97, 40, 'whole'), { start: 0, width: 5, count: 20 });
    assert.deepEqual(rangesOf(-17.3, 42.1, 40, 'number'), { start: -18, width: 2, count: 31 });
    assert.deepEqual(rangesOf(0.0012, 0.0049, 40, 'number'), { start: 0.0012, width: 0.0001, count: 38 });
  });

  it('never cuts whole numbers in halves, and gives few of them one range each', () => {
    assert.deepEqual(rangesOf(200, 204, 40, 'whole'), { start: 200, width: 1, count: 5 });
    assert.equal(rangesOf(0, 120, 40, 'whole').width, 5, '2.5 is no width for whole numbers');
    assert.equal(rangesOf(0, 1200, 40, 'whole').width, 50);
    assert.equal(rangesOf(0, 1000, 40, 'whole').width, 25);
  });

  it('puts one value in one range', () => {
    assert.deepEqual(rangesOf(7, 7, 40, 'whole'), { start: 7, width: 1, count: 1 });
    assert.deepEqual(rangesOf(0, 0, 40, 'number'), { start: 0, width: 1, count: 1 });
    assert.deepEqual(rangesOf(-3.5, -3.5, 40, 'number'), { start: -3.5, width: 0.5, count: 1 });
  });

  it('holds the greatest value in the last range, also at a range\'s start', () => {
    for (const [lo, hi, most] of [[0, 100, 40], [0.1, 0.7, 6], [1e15, 1e15 + 4e12, 40], [-1e-9, 1e-9, 40]] as const) {
      const { start, width, count } = rangesOf(lo, hi, most, 'number');
      assert.ok(start <= lo && start + (count - 1) * width <= hi && hi < start + count * width, `${lo}..${hi}: ${start} + ${count} × ${width}`);
      assert.ok(count <= most + 1, `${lo}..${hi}: ${count} ranges`);
    }
  });

  it('takes round spans of time, days from midnight', () => {
    const start = Date.UTC(2026, 9, 30, 19, 2, 41);
    const month = rangesOf(start, start + 30 * DAY, 40, 'time');
    assert.deepEqual([month.width, month.start, month.count], [DAY, Date.UTC(2026, 9, 30), 31]);
    assert.equal(rangesOf(0, 90 * 60_000, 40, 'time').width, 5 * 60_000);
    assert.equal(rangesOf(0, 4 * 365 * DAY, 40, 'time').width, 60 * DAY);
    assert.equal(rangesOf(0, 500 * 365 * DAY, 40, 'time').width, 20 * 365 * DAY);
    assert.equal(rangesOf(start, start, 40, 'time').width, 1, 'one time: a range of a millisecond');
  });

  it('says a width as a person reads it', () => {
    assert.deepEqual(
      [widthText(2.5, 'number'), widthText(1e-4, 'number'), widthText(15 * 60_000, 'time'), widthText(DAY, 'time'), widthText(14 * DAY, 'time'), widthText(30 * DAY, 'time'), widthText(250, 'time')],
      ['2.5', '0.0001', '15 minutes', '1 day', '2 weeks', '30 days', '250 milliseconds'],
    );
  });
});

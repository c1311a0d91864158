import * as assert from 'node:assert/strict';
import type { ColumnProfile } from '../../../src/engine/engineProtocol';
import {
  allDistinct,
  distinctText,
  histogramBars,
  nullShare,
  numberText,
  percentText,
  profileFigures,
  profileKind,
  profileSummary,
  sameRows,
  sparkline,
  topValues,
  valueText,
  waitingText,
} from '../../../src/webview/profileText';

const L = 'en-US';

/** 1,000 rows of ids 1..1000 (no NULLs), as the engine profiles them. */
const ids: ColumnProfile = {
  name: 'id',
  type: 'int64',
  count: 1000,
  nulls: 0,
  distinct: 1000,
  distinctApproximate: false,
  min: 1,
  max: 1000,
  mean: 500.5,
  quantiles: { p25: 250.5, p50: 500.5, p75: 750.5 },
  histogram: [
    { from: 1, to: 501, count: 500 },
    { from: 501, to: 1001, count: 250 },
    { from: 1001, to: 1501, count: 0 },
  ],
};

const states: ColumnProfile = {
  name: 'state',
  type: 'string',
  count: 800,
  nulls: 200,
  distinct: 3,
  distinctApproximate: false,
  min: 'active',
  max: 'invited',
  top: [
    { value: 'active', count: 400 },
    { value: 'deleted', count: 300 },
    { value: 'x'.repeat(200), count: 100, cut: true },
  ],
};

const times: ColumnProfile = {
  name: 'ts',
  type: 'date-time',
  count: 10,
  nulls: 0,
  distinct: 10,
  distinctApproximate: false,
  min: '2026-01-01T00:00:00Z',
  max: '2026-01-02T00:00:00Z',
  nonFinite: 1,
  histogram: [
    { from: '2026-01-01T00:00:00Z', to: '2026-01-01T12:00:00Z', count: 4 },
    { from: '2026-01-01T12:00:00Z', to: '2026-01-02T00:00:00Z', count: 5 },
  ],
};

const flags: ColumnProfile = {
  name: 'flag',
  type: 'boolean',
  count: 90,
  nulls: 10,
  distinct: 2,
  distinctApproximate: false,
  min: false,
  max: true,
  top: [
    { value: false, count: 60 },
    { value: true, count: 30 },
  ],
};

const uuids: ColumnProfile = {
  name: 'key.id',
  type: 'string',
  count: 1000,
  nulls: 0,
  distinct: 1000,
  distinctApproximate: false,
  min: '000',
  max: 'fff',
  top: [
    { value: '000', count: 1 },
    { value: '001', count: 1 },
  ],
};

const nothing: ColumnProfile = { name: 'n', type: 'int64', count: 0, nulls: 5, distinct: 0, distinctApproximate: false, min: null, max: null, histogram: [] };

describe('profile texts of the grid\'s strips and popups', () => {
  it('tells numbers, times, booleans and other values apart', () => {
    assert.equal(profileKind(ids), 'number');
    assert.equal(profileKind(times), 'time');
    assert.equal(profileKind({ ...times, type: 'json' }), 'time', 'ISO text min and a histogram without a mean');
    assert.equal(profileKind(flags), 'boolean');
    assert.equal(profileKind(states), 'values');
    assert.equal(profileKind(nothing), 'number', 'a number column of only NULLs');
    assert.equal(profileKind({ ...nothing, type: 'date-time' }), 'time', 'a time column of only NULLs');
    assert.equal(profileKind({ ...ids, min: '1.5', max: '9.5', type: 'number' }), 'number', 'decimals come as text, with a mean');
  });

  it('says the share of NULLs without rounding some to none or not all to all', () => {
    assert.equal(nullShare(states), 0.2);
    assert.equal(nullShare({ ...nothing, nulls: 0 }), 0, 'no rows: no share');
    assert.deepEqual([0, 0.004, 0.2, 0.996, 1].map(percentText), ['0%', '<1%', '20%', '>99%', '100%']);
  });

  it('writes numbers short, values as they came, and "≈" for an estimated distinct count', () => {
    assert.equal(numberText(1234567, L), '1,234,567');
    assert.equal(numberText(375.3966942148761, L), '375.397');
    assert.equal(numberText(123456789.5, L), '123,456,790');
    assert.equal(numberText(0.000123456789, L), '0.000123457');
    assert.deepEqual([NaN, Infinity, -Infinity].map((n) => numberText(n, L)), ['NaN', '∞', '-∞']);
    assert.equal(valueText('12345678901234567890', L), '12345678901234567890', 'a big integer as its text');
    assert.equal(valueText(null, L), '—');
    assert.equal(valueText('y'.repeat(100), L), `${'y'.repeat(60)}…`);
    assert.equal(valueText('short', L, true), 'short…', 'a value the engine cut');
    assert.equal(distinctText(ids, L), '1,000');
    assert.equal(distinctText({ ...ids, distinct: 123456, distinctApproximate: true }, L), '≈ 123,456');
  });

  it('draws a histogram as high as its fullest bucket, top values by their share, booleans as true then false', () => {
    assert.deepEqual(
      sparkline(ids, L).map((b) => b.height),
      [1, 0.5, 0],
    );
    assert.equal(sparkline(ids, L)[1].label, '501 to 1,001: 250');
    assert.deepEqual(
      sparkline(states, L).map((b) => b.height),
      [0.5, 0.375, 0.125],
    );
    assert.equal(sparkline(states, L)[0].label, '"active": 400');
    assert.deepEqual(
      sparkline(flags, L).map((b) => [b.label, b.height]),
      [
        ['true: 30', 30 / 90],
        ['false: 60', 60 / 90],
      ],
    );
    assert.deepEqual(sparkline(nothing, L), [], 'only NULLs: no bars');
    assert.deepEqual(
      sparkline(times, L).map((b) => b.height),
      [0.8, 1],
    );
  });

  it('sums a column up in a few lines: NULLs, distinct values, the range or the commonest values', () => {
    assert.equal(profileSummary(ids, L), '1,000 rows: 0 NULL (0%), 1,000 distinct\nMin 1, max 1,000, mean 500.5');
    assert.equal(profileSummary(states, L), `1,000 rows: 200 NULL (20%), 3 distinct\nMost common: "active" (400), "deleted" (300), "${'x'.repeat(60)}…" (100)`);
    assert.equal(profileSummary(times, L), '10 rows: 0 NULL (0%), 10 distinct\nEarliest 2026-01-01T00:00:00Z, latest 2026-01-02T00:00:00Z');
    assert.equal(profileSummary(nothing, L), '5 rows: 5 NULL (100%), 0 distinct\nNo values.');
    assert.equal(profileSummary(uuids, L), '1,000 rows: 0 NULL (0%), 1,000 distinct\nEvery value differs from the others.');
  });

  it('says so of text whose every value differs, rather than drawing its top values', () => {
    assert.equal(allDistinct(uuids), true);
    assert.equal(allDistinct({ ...uuids, distinctApproximate: true }), false, 'an estimate does not say it');
    assert.equal(allDistinct({ ...uuids, distinct: 999 }), false);
    assert.equal(allDistinct(ids), false, 'numbers show their histogram');
    assert.equal(allDistinct({ ...uuids, count: 1, distinct: 1 }), false, 'one value is no sign of ids');
  });

  it('lists the popup\'s figures: count, NULLs, distinct, range, mean and quartiles, values out of range', () => {
    const figures = (p: ColumnProfile): string[] => profileFigures(p, L).map((f) => `${f.label}: ${f.value}`);
    assert.deepEqual(figures(ids), [
      'Rows: 1,000',
      'Values: 1,000',
      'NULLs: 0 (0%)',
      'Distinct: 1,000',
      'Min: 1',
      'Max: 1,000',
      'Mean: 500.5',
      'Lower quartile ≈: 250.5',
      'Median ≈: 500.5',
      'Upper quartile ≈: 750.5',
    ]);
    assert.deepEqual(figures({ ...ids, distinct: 2000, distinctApproximate: true }).slice(3, 4), ['Distinct (estimated): ≈ 2,000']);
    assert.deepEqual(figures(times), [
      'Rows: 10',
      'Values: 10',
      'NULLs: 0 (0%)',
      'Distinct: 10',
      'Earliest: 2026-01-01T00:00:00Z',
      'Latest: 2026-01-02T00:00:00Z',
      'Infinite times: 1',
    ]);
    assert.deepEqual(figures({ ...ids, nonFinite: 3 }).at(-1), 'NaN and infinities: 3');
    assert.deepEqual(figures(nothing).slice(4), ['Min: —', 'Max: —']);
  });

  it('lists the top values with counts and shares, and the histogram with each bucket\'s range and count', () => {
    assert.deepEqual(topValues(states, L)[0], { value: '"active"', count: '400', share: 0.5 });
    assert.equal(topValues(states, L)[2].value, `"${'x'.repeat(60)}…"`);
    assert.deepEqual(topValues(ids, L), []);
    assert.deepEqual(
      histogramBars(ids, L).map((b) => [b.label, b.count]),
      [
        ['1 to 501: 500', 500],
        ['501 to 1,001: 250', 250],
        ['1,001 to 1,501: 0', 0],
      ],
    );
    assert.deepEqual(histogramBars(states, L), []);
  });

  it('says what a waiting strip waits for', () => {
    assert.equal(waitingText(undefined, L), 'Profiling the whole result…');
    assert.equal(waitingText(1234567, L), 'Profiling the whole result: reading, 1,234,567 rows so far…');
  });

  it('keeps a profile for a view of the same rows in another order, not for other filters or WHERE', () => {
    const view = { sort: [], filters: { a: '> 1', b: ' ' }, where: 'x > 2' };
    assert.equal(sameRows(view, { sort: [{ column: 'a', descending: true }], filters: { a: '> 1' }, where: 'x > 2 ' }), true);
    assert.equal(sameRows(view, { ...view, filters: { a: '> 2' } }), false);
    assert.equal(sameRows(view, { ...view, filters: { ...view.filters, c: 'null' } }), false);
    assert.equal(sameRows(view, { ...view, where: 'x > 3' }), false);
  });
});

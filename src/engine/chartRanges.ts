// Equal ranges of x for a chart that groups numbers or times: of a width a person reads at a
// glance (1, 2, 2.5 or 5 times a power of ten; for times a round second, minute, hour, day, week
// or a round number of days), starting at a multiple of that width, so each range begins at a
// round value (times at midnight, UTC, once they are a day or wider). Ranges hold [from, to).

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Round widths of time, in milliseconds, below a day; from a day on, round numbers of days. */
const TIME_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND, MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR];
const DAY_STEPS = [1, 2, 7, 14, 30, 60, 90, 180, 365];

export type RangeValues = 'whole' | 'number' | 'time';

export interface Ranges {
  /** where the first range starts: a multiple of `width` at or below the least value */
  start: number;
  width: number;
  /** how many ranges reach the greatest value */
  count: number;
}

/** `factor` times ten to the `exponent`, as near as a double gets (1e-4 rather than 0.00009999999999999999). */
function scaled(factor: number, exponent: number): number {
  return exponent >= 0 ? factor * 10 ** exponent : factor / 10 ** -exponent;
}

/** The least of 1, 2, 2.5 and 5 times a power of ten that is `raw` or more (whole numbers: no 2.5 below 10). */
function niceNumber(raw: number, whole: boolean): number {
  const exponent = Math.floor(Math.log10(raw));
  for (const [factor, power] of [[1, 0], [2, 0], [2.5, 0], [5, 0], [1, 1]]) {
    const width = scaled(factor, exponent + power);
    if (whole && !Number.isInteger(width)) continue;
    if (width >= raw * (1 - 1e-12)) return width;
  }
  return scaled(1, exponent + 1);
}

/** A whole number near `q` when it is one but for the rounding of a division. */
function steadied(q: number): number {
  const near = Math.round(q);
  return Math.abs(q - near) <= 1e-9 * Math.max(1, Math.abs(q)) ? near : q;
}

function niceTime(raw: number): number {
  const step = TIME_STEPS.find((s) => s >= raw);
  if (step !== undefined) return step;
  const days = DAY_STEPS.find((d) => d * DAY >= raw);
  return days !== undefined ? days * DAY : niceNumber(raw / (365 * DAY), true) * 365 * DAY;
}

/** At most about `most` equal ranges of a round width from `lo` to `hi` (the least and greatest finite values). */
export function rangesOf(lo: number, hi: number, most: number, values: RangeValues): Ranges {
  const span = hi - lo;
  let width: number;
  if (values === 'time') width = niceTime(Math.max(span / most, 1));
  else if (span > 0) width = niceNumber(values === 'whole' ? Math.max(1, span / most) : span / most, values === 'whole');
  else width = values === 'whole' || lo === 0 ? 1 : niceNumber(Math.abs(lo) / 10, false);
  // a multiple of the width: exact while it can be (a double holds whole numbers up to 2^53)
  const first = Math.floor(steadied(lo / width));
  let start = Number((first * width).toPrecision(15));
  if (start > lo) start = Number(((first - 1) * width).toPrecision(15));
  let count = Math.floor(steadied((hi - start) / width)) + 1;
  // the greatest value lies in the last range, however the division rounded
  while (start + count * width <= hi) count++;
  while (count > 1 && start + (count - 1) * width > hi) count--;
  return { start, width, count };
}

/** A range's width as a person reads it: `5`, `0.25`, `15 minutes`, `1 day`, `2 weeks`. */
export function widthText(width: number, values: RangeValues): string {
  if (values !== 'time') return String(Number(width.toPrecision(6)));
  const units: [number, string][] = [
    [7 * DAY, 'week'],
    [DAY, 'day'],
    [HOUR, 'hour'],
    [MINUTE, 'minute'],
    [SECOND, 'second'],
    [1, 'millisecond'],
  ];
  const [size, unit] = units.find(([s]) => width >= s && width % s === 0) ?? [1, 'millisecond'];
  const n = width / size;
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

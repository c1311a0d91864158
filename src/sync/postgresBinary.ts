// Values in the binary form of PostgreSQL's COPY, read from the JSON text of a record: each
// writer puts the field (its 4-byte length, then the value) at `out[at]` and returns where it
// ends, or -1 when the text is not in the one plain form it takes (the text rows take those, by
// PostgreSQL's own input functions). So every value written here is the one PostgreSQL's text
// input gives for the same text:
// - bigint and integer: an integer of up to 18 digits (no fraction, no exponent);
// - double precision: a JSON number that is neither zero written with a minus nor so large or
//   small that PostgreSQL refuses it, correctly rounded as PostgreSQL's strtod rounds it;
// - timestamptz: `YYYY-MM-DDTHH:MM:SS`, up to 6 fraction digits, then `Z` or `+HH:MM` /
//   `-HH:MM`, a real date and time of years 1 to 9999, as microseconds since 2000-01-01 UTC;
// - date: `YYYY-MM-DD`, as days since 2000-01-01.

const ZERO = 0x30;
const NINE = 0x39;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const COLON = 0x3a;
const UPPER_T = 0x54;
const UPPER_Z = 0x5a;

const TWO_32 = 4294967296;
/** days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch */
const POSTGRES_EPOCH_DAYS = 10957;
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** The field header: a 4-byte big-endian length. */
function putLength(out: Buffer, at: number, length: number): number {
  out[at] = length >>> 24;
  out[at + 1] = (length >>> 16) & 0xff;
  out[at + 2] = (length >>> 8) & 0xff;
  out[at + 3] = length & 0xff;
  return at + 4;
}

/** An unsigned 32-bit word, big-endian. */
function putWord(out: Buffer, at: number, word: number): number {
  out[at] = word >>> 24;
  out[at + 1] = (word >>> 16) & 0xff;
  out[at + 2] = (word >>> 8) & 0xff;
  out[at + 3] = word & 0xff;
  return at + 4;
}

/**
 * The 64-bit two's complement of -(a * m + c) when `negative`, else of a * m + c, as two words;
 * a < 2^40, m < 2^30, c < 2^31, all non-negative integers (every step stays exact in a double).
 */
function putInt64(out: Buffer, at: number, negative: boolean, a: number, m: number, c: number): number {
  const al = a % 1048576;
  const ah = (a - al) / 1048576;
  const x = al * m + c; // < 2^51
  const y = ah * m; // < 2^50, to be shifted by 20 bits
  const yl = y % 4096;
  const yh = (y - yl) / 4096; // y * 2^20 = yh * 2^32 + yl * 2^20
  const t = yl * 1048576 + x;
  let lo = t % TWO_32;
  let hi = yh + (t - lo) / TWO_32;
  if (negative) {
    // two's complement: invert and add one
    lo = TWO_32 - lo;
    hi = TWO_32 - 1 - hi;
    if (lo === TWO_32) {
      lo = 0;
      hi += 1;
    }
    hi %= TWO_32;
  }
  return putWord(out, putWord(out, at, hi), lo);
}

/** A count (a non-negative safe integer) as bigint. */
export function putCount(out: Buffer, at: number, n: number): number {
  at = putLength(out, at, 8);
  const lo = n % TWO_32;
  return putWord(out, putWord(out, at, (n - lo) / TWO_32), lo);
}

/** Digits b[from, to) as a number (at most 15 of them, so exact). */
function digits(b: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + (b[i] - ZERO);
  return n;
}

function allDigits(b: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] < ZERO || b[i] > NINE) return false;
  return true;
}

/** A JSON integer (checked by the scanner: `-?(0|[1-9][0-9]*)`) as bigint, up to 18 digits. */
export function putBigint(out: Buffer, at: number, b: Buffer, from: number, to: number): number {
  const negative = b[from] === MINUS;
  const start = negative ? from + 1 : from;
  const n = to - start;
  if (n > 18) return -1;
  at = putLength(out, at, 8);
  if (n <= 9) return putInt64(out, at, negative, 0, 1, digits(b, start, to));
  return putInt64(out, at, negative, digits(b, start, to - 9), 1e9, digits(b, to - 9, to));
}

/** A JSON integer as integer (int4), when it is in range. */
export function putInteger(out: Buffer, at: number, b: Buffer, from: number, to: number): number {
  const negative = b[from] === MINUS;
  const start = negative ? from + 1 : from;
  if (to - start > 10) return -1;
  const value = negative ? -digits(b, start, to) : digits(b, start, to);
  if (value > 2147483647 || value < -2147483648) return -1;
  at = putLength(out, at, 4);
  return putWord(out, at, value >>> 0);
}

const float = new Float64Array(1);
const floatBytes = new Uint8Array(float.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A JSON number (checked by the scanner, not a negative zero) as double precision. */
export function putDouble(out: Buffer, at: number, b: Buffer, from: number, to: number): number {
  const value = parseNumber(b, from, to);
  // PostgreSQL refuses what strtod overflows or underflows to zero
  if (!Number.isFinite(value)) return -1;
  if (value === 0 && !isZeroText(b, from, to)) return -1;
  at = putLength(out, at, 8);
  float[0] = value;
  for (let k = 0; k < 8; k++) out[at + k] = floatBytes[littleEndian ? 7 - k : k];
  return at + 8;
}

/**
 * The correctly rounded value of a JSON number: a mantissa of up to 15 digits and at most 22
 * fraction digits is exact divided by an exact power of ten (one rounding, the right one);
 * anything else goes through Number(), which rounds correctly too.
 */
function parseNumber(b: Buffer, from: number, to: number): number {
  let mantissa = 0;
  let count = 0;
  let fraction = -1;
  let i = from;
  const negative = b[i] === MINUS;
  if (negative) i++;
  for (; i < to; i++) {
    const c = b[i];
    if (c === DOT) {
      fraction = 0;
      continue;
    }
    if (c < ZERO || c > NINE) break; // an exponent
    mantissa = mantissa * 10 + (c - ZERO);
    if (mantissa !== 0) count++;
    if (fraction >= 0) fraction++;
  }
  if (i === to && count <= 15 && fraction <= 22) {
    const value = fraction > 0 ? mantissa / POWERS_OF_TEN[fraction] : mantissa;
    return negative ? -value : value;
  }
  return Number(b.toString('latin1', from, to));
}

function isZeroText(b: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c === 0x65 || c === 0x45) return true; // the exponent of a zero mantissa does not matter
    if (c > ZERO && c <= NINE) return false;
  }
  return true;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days from 1970-01-01 to the given date of the proleptic Gregorian calendar. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** `YYYY-MM-DD` at b[from] as days since 1970-01-01, or NaN when it is not a real date of years 1 to 9999. */
function civilDays(b: Buffer, from: number): number {
  // the records of a table mostly share their dates: the last one read is kept
  let same = true;
  for (let k = 0; k < 10; k++) {
    if (b[from + k] !== lastDate[k]) {
      same = false;
      break;
    }
  }
  if (same) return lastDays;
  const days = readCivilDays(b, from);
  if (!Number.isNaN(days)) {
    for (let k = 0; k < 10; k++) lastDate[k] = b[from + k];
    lastDays = days;
  }
  return days;
}

/** The last date read (its 10 bytes) and its days since 1970-01-01. */
const lastDate = new Uint8Array(10);
let lastDays = NaN;

function readCivilDays(b: Buffer, from: number): number {
  if (b[from + 4] !== MINUS || b[from + 7] !== MINUS) return NaN;
  if (!allDigits(b, from, from + 4) || !allDigits(b, from + 5, from + 7) || !allDigits(b, from + 8, from + 10)) return NaN;
  const year = digits(b, from, from + 4);
  const month = digits(b, from + 5, from + 7);
  const day = digits(b, from + 8, from + 10);
  if (year < 1 || month < 1 || month > 12 || day < 1) return NaN;
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1])) return NaN;
  return daysFromCivil(year, month, day);
}

/** A JSON string's content b[from, to) (no escapes) in the form `YYYY-MM-DD`, as date. */
export function putDate(out: Buffer, at: number, b: Buffer, from: number, to: number): number {
  if (to - from !== 10) return -1;
  const days = civilDays(b, from);
  if (Number.isNaN(days)) return -1;
  at = putLength(out, at, 4);
  return putWord(out, at, (days - POSTGRES_EPOCH_DAYS) >>> 0);
}

/** A JSON string's content b[from, to) (no escapes) in the form `YYYY-MM-DDTHH:MM:SS[.ffffff](Z|±HH:MM)`, as timestamptz. */
export function putTimestamp(out: Buffer, at: number, b: Buffer, from: number, to: number): number {
  if (to - from < 20 || b[from + 10] !== UPPER_T || b[from + 13] !== COLON || b[from + 16] !== COLON) return -1;
  const days = civilDays(b, from);
  if (Number.isNaN(days) || !allDigits(b, from + 11, from + 13) || !allDigits(b, from + 14, from + 16) || !allDigits(b, from + 17, from + 19)) return -1;
  const hour = digits(b, from + 11, from + 13);
  const minute = digits(b, from + 14, from + 16);
  const second = digits(b, from + 17, from + 19);
  if (hour > 23 || minute > 59 || second > 59) return -1;
  let i = from + 19;
  let micros = 0;
  if (b[i] === DOT) {
    const start = ++i;
    while (i < to && b[i] >= ZERO && b[i] <= NINE) i++;
    const n = i - start;
    if (n === 0 || n > 6) return -1;
    micros = digits(b, start, i) * POWERS_OF_TEN[6 - n];
  }
  let offset = 0;
  if (i === to - 1 && b[i] === UPPER_Z) {
    offset = 0;
  } else if (i === to - 6 && (b[i] === PLUS || b[i] === MINUS) && b[i + 3] === COLON && allDigits(b, i + 1, i + 3) && allDigits(b, i + 4, i + 6)) {
    const hours = digits(b, i + 1, i + 3);
    const minutes = digits(b, i + 4, i + 6);
    if (hours > 15 || minutes > 59) return -1;
    offset = (b[i] === MINUS ? -1 : 1) * (hours * 3600 + minutes * 60);
  } else {
    return -1;
  }
  const seconds = (days - POSTGRES_EPOCH_DAYS) * 86400 + hour * 3600 + minute * 60 + second - offset;
  at = putLength(out, at, 8);
  if (seconds >= 0) return putInt64(out, at, false, seconds, 1e6, micros);
  // before 2000: -(|seconds| * 10^6 - micros), written as -((|seconds| - 1) * 10^6 + (10^6 - micros))
  if (micros === 0) return putInt64(out, at, true, -seconds, 1e6, 0);
  return putInt64(out, at, true, -seconds - 1, 1e6, 1e6 - micros);
}

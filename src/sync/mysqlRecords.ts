// The service's JSONL records as the rows the MySQL target loads: each record's columns read out
// by their paths and written as the text MySQL takes for the column's type, checked on the way
// so that nothing is cut, rounded or guessed silently (LOAD DATA LOCAL turns a value that does
// not fit into a warning, and may not stop). Integers keep every digit (a line with an integer
// a JS number cannot hold exactly is read again by a parser that keeps numbers as written);
// timestamps become DATETIME(6) text in UTC, to the microsecond; booleans 1 or 0; JSON columns
// their JSON text; a text column given a number or object the JSON text of it (as PostgreSQL's
// ->> gives it). A key column must have a value, and a text key fit the indexed length. A
// member path through something that is not an object (a truncation marker where an object
// was) reads as NULL. Rows are written in LOAD DATA's default text format (tab between
// fields, backslash escapes, \N for NULL) by `RecordRows`, a stream over whole lines.

import * as path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { DqError } from '../client/errors';
import type { TargetColumn } from './syncTarget';

/** A number as the record wrote it (from the precise parser). */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** The value of one field: its text for MySQL, or null for SQL NULL. */
export type FieldValue = string | null;

/** Where a record came from, for the errors that name it. */
export interface RecordSource {
  /** the table being loaded: `canvas.users` */
  table: string;
  file: string;
}

/** One column as loaded: where it sits, its type, and the longest text a key of it may be. */
export interface LoadColumn {
  column: TargetColumn;
  /** the most characters a text key holds (its VARCHAR length); undefined for other columns */
  keyChars?: number;
}

const INT32 = { min: -2147483648n, max: 2147483647n };
const INT64 = { min: -9223372036854775808n, max: 9223372036854775807n };
/** Thrown while a record read by JSON.parse is converted, when one of its integers lost digits: it is read again, keeping them. */
const LOST_DIGITS = Symbol('an integer past 2^53');
const INT32_RANGE = { min: -2147483648, max: 2147483647 };
/** The common form of a time: UTC, to the second or a fraction of it. */
const PLAIN_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return leap ? 29 : DAYS_IN_MONTH[month - 1];
}
const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;
const NUMBER_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const TRUE_TEXT = new Set(['true', 't', 'yes', 'y', 'on', '1']);
const FALSE_TEXT = new Set(['false', 'f', 'no', 'n', 'off', '0']);
/** ISO 8601 date-time: date, time to any fraction, then Z, an offset, or nothing (UTC). */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * `2026-11-20T08:00:00.123456+02:00` as MySQL DATETIME(6) text in UTC, `2026-11-20 06:00:00.123456`;
 * undefined when it is not such a time. Digits past the microsecond are dropped.
 */
export function utcDatetime(text: string): string | undefined {
  const plain = PLAIN_UTC.exec(text);
  if (plain) {
    const [, y, mo, d, h, mi, s, fraction = ''] = plain;
    const [year, month, day] = [Number(y), Number(mo), Number(d)];
    const valid = year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month) && Number(h) <= 23 && Number(mi) <= 59 && Number(s) <= 59;
    return valid ? `${y}-${mo}-${d} ${h}:${mi}:${s}.${fraction.slice(0, 6).padEnd(6, '0')}` : undefined;
  }
  const m = DATE_TIME.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '0', fraction = '', zone = 'Z'] = m;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    offsetMinutes = (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0));
  }
  const fields = [Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s)];
  const ms = Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5]);
  const check = new Date(ms);
  // 2026-02-30 and 25:00 are not times; Date.UTC would roll them over
  if (Number.isNaN(ms) || check.getUTCFullYear() !== fields[0] || check.getUTCMonth() !== fields[1] - 1 || check.getUTCDate() !== fields[2] || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) {
    return undefined;
  }
  const t = new Date(ms - offsetMinutes * 60_000);
  const year = t.getUTCFullYear();
  if (year < 1 || year > 9999) return undefined;
  const micros = fraction.slice(0, 6).padEnd(6, '0');
  return `${pad(year, 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}.${micros}`;
}

/** `2026-11-20 08:00:00.000000` (DATETIME(6) text in UTC) as `2026-11-20T08:00:00Z`. */
export function isoFromDatetime(text: string): string {
  return `${text.replace(' ', 'T').replace(/\.0+$/, '').replace(/(\.\d*?)0+$/, '$1')}Z`;
}

/** JSON text of a value read by either parser (RawNumber kept as written). */
export function jsonText(value: unknown): string {
  if (value instanceof RawNumber) return value.text;
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) throw LOST_DIGITS;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`).join(',')}}`;
}

/** A JSON parser that keeps numbers as written (RawNumber); for the lines whose numbers a double may not hold. */
export function parseJsonKeepingNumbers(text: string): unknown {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError(`Unexpected token in JSON at position ${i}`);
  };
  const space = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const value = (): unknown => {
    space();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const out: Record<string, unknown> = {};
      space();
      if (text[i] === '}') {
        i++;
        return out;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail();
        const key = string();
        space();
        if (text[i++] !== ':') fail();
        out[key] = value();
        space();
        const next = text[i++];
        if (next === '}') return out;
        if (next !== ',') fail();
      }
    }
    if (ch === '[') {
      i++;
      const out: unknown[] = [];
      space();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        space();
        const next = text[i++];
        if (next === ']') return out;
        if (next !== ',') fail();
      }
    }
    if (ch === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
    m.lastIndex = i;
    const found = m.exec(text);
    if (!found) return fail();
    i += found[0].length;
    return new RawNumber(found[0]);
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const result = value();
  space();
  if (i !== text.length) fail();
  return result;
}

/** A record's member at a path; undefined when missing or when the path runs through something that is not an object. */
function memberAt(record: unknown, memberPath: readonly string[]): unknown {
  let at: unknown = record;
  for (const name of memberPath) {
    if (at === null || typeof at !== 'object' || Array.isArray(at) || at instanceof RawNumber) return undefined;
    at = (at as Record<string, unknown>)[name];
  }
  return at;
}

/** Reads records (one JSON line each) as rows of the columns, checked (see the file header). */
export class RecordReader {
  /** records whose action is a delete (`meta.action` D), read so far */
  deletes = 0;

  constructor(
    private readonly columns: readonly LoadColumn[],
    private readonly source: RecordSource,
    /** also the record's commit time and action, for a load that keeps the last record of each key */
    private readonly withMeta = false,
  ) {}

  /** The fields of one line (`line` counts from 1, for messages); undefined for a blank line. */
  row(text: string, line: number): FieldValue[] | undefined {
    if (text.trim() === '') return undefined;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (err) {
      throw this.bad(line, `it is not valid JSON (${(err as Error).message})`);
    }
    try {
      return this.fields(record, line);
    } catch (err) {
      if (err !== LOST_DIGITS) throw err;
    }
    return this.fields(parseJsonKeepingNumbers(text), line);
  }

  private fields(record: unknown, line: number): FieldValue[] {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw this.bad(line, 'it is not a JSON object');
    const out: FieldValue[] = this.columns.map((c) => this.field(c, memberAt(record, c.column.path), line));
    const deleted = memberAt(record, ['meta', 'action']) === 'D';
    if (deleted) this.deletes++;
    if (this.withMeta) {
      const ts = memberAt(record, ['meta', 'ts']);
      out.push(typeof ts === 'string' ? (utcDatetime(ts) ?? null) : null);
      out.push(deleted ? 'D' : 'U');
    }
    return out;
  }

  private field(load: LoadColumn, value: unknown, line: number): FieldValue {
    const { column } = load;
    if (value === undefined || value === null) {
      if (column.key) throw this.bad(line, `it has no value for the key column "${column.name}"`);
      return null;
    }
    const text = this.typed(column, value, line);
    if (load.keyChars !== undefined && text.length > load.keyChars && [...text].length > load.keyChars) {
      throw new DqError('invalidResponse', `The key "${column.name}" on line ${line} of ${path.basename(this.source.file)}, a result file of ${this.source.table}, is longer than ${load.keyChars} characters, the longest key the MySQL table indexes.`, {
        hint: 'The table keeps its last complete sync. Sync it to another kind of target (--to), and report the table to the provider.',
        details: { file: this.source.file, line },
      });
    }
    return text;
  }

  private typed(column: TargetColumn, value: unknown, line: number): string {
    const wrong = (what: string): DqError => this.bad(line, `the value of "${column.name}" is not ${what}`);
    switch (column.type) {
      case 'integer':
      case 'bigint': {
        const range = column.type === 'integer' ? INT32 : INT64;
        const size = column.type === 'integer' ? 'a 32-bit integer' : 'a 64-bit integer';
        let digits: string;
        if (typeof value === 'number') {
          if (!Number.isInteger(value)) throw wrong('an integer');
          if (!Number.isSafeInteger(value)) throw LOST_DIGITS; // read again, keeping every digit
          if (column.type === 'integer' && (value < INT32_RANGE.min || value > INT32_RANGE.max)) throw wrong(size);
          return String(value);
        } else if (value instanceof RawNumber || typeof value === 'string') {
          digits = value instanceof RawNumber ? value.text : value.trim();
          if (!INTEGER_TEXT.test(digits)) throw wrong('an integer');
        } else {
          throw wrong('an integer');
        }
        const n = BigInt(digits);
        if (n < range.min || n > range.max) throw wrong(size);
        return digits;
      }
      case 'double': {
        if (typeof value === 'number') return String(value);
        const text = value instanceof RawNumber ? value.text : typeof value === 'string' ? value.trim() : '';
        if (!NUMBER_TEXT.test(text) || !Number.isFinite(Number(text))) throw wrong('a finite number');
        return text;
      }
      case 'boolean': {
        if (typeof value === 'boolean') return value ? '1' : '0';
        const text = typeof value === 'string' ? value.trim().toLowerCase() : value instanceof RawNumber ? value.text : typeof value === 'number' ? String(value) : '';
        if (TRUE_TEXT.has(text)) return '1';
        if (FALSE_TEXT.has(text)) return '0';
        throw wrong('true or false');
      }
      case 'timestamptz': {
        const text = typeof value === 'string' ? utcDatetime(value) : undefined;
        if (text === undefined) throw wrong('a date and time from year 1 to 9999');
        return text;
      }
      case 'date': {
        const m = typeof value === 'string' ? DATE_ONLY.exec(value.trim()) : null;
        if (!m || utcDatetime(`${m[0]}T00:00:00Z`) === undefined) throw wrong('a date from year 1 to 9999');
        return m[0];
      }
      case 'text':
        return typeof value === 'string' ? value : jsonText(value);
      case 'json':
        return jsonText(value);
    }
  }

  private bad(line: number, why: string): DqError {
    return new DqError('invalidResponse', `Line ${line} of ${path.basename(this.source.file)}, a result file of ${this.source.table}, cannot be loaded: ${why}.`, {
      hint: 'The table keeps its last complete sync. Sync it again; if it fails the same way, report the table and its schema version to the provider, with this message.',
      details: { file: this.source.file, line },
    });
  }
}

const TSV_SPECIAL = /[\\\t\n\r\0]/;
const TSV_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };

/** One field in LOAD DATA's default text format: NULL as \N, the tab, newline, CR, NUL and backslash escaped. */
export function tsvField(value: FieldValue): string {
  if (value === null) return '\\N';
  return TSV_SPECIAL.test(value) ? value.replace(/[\\\t\n\r\0]/g, (ch) => TSV_ESCAPES[ch]) : value;
}

/** Pushes the text it gathered once it is this long. */
const PUSH_CHARS = 64 * 1024;
/**
 * The most bytes pushed at once: each push becomes a packet to the server, which refuses one
 * larger than its max_allowed_packet (16 MiB by default in MariaDB), and a record may be 16 MiB.
 */
const MAX_PUSH_BYTES = 1024 * 1024;

export interface RecordRowsOptions {
  reader: RecordReader;
  /** numbers the rows from here (the order of the records across a job's files), as a last field; none when undefined */
  firstOrdinal?: number;
  /** waits while the connection cannot take more (the socket's write buffer is full); undefined when it can */
  gate?: () => Promise<void> | undefined;
}

/**
 * Lines of JSON records in, LOAD DATA rows out (see the file header). `rows` counts the rows
 * written, `lines` the lines read (blank ones too, for the line numbers of messages).
 */
export class RecordRows extends Transform {
  rows = 0;
  lines = 0;
  private rest = '';
  private ordinal: number | undefined;

  constructor(private readonly o: RecordRowsOptions) {
    super({ readableHighWaterMark: PUSH_CHARS * 2 });
    this.ordinal = o.firstOrdinal;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let out: string;
    try {
      const text = this.rest + chunk.toString('utf8');
      const end = text.lastIndexOf('\n');
      this.rest = end === -1 ? text : text.slice(end + 1);
      out = end === -1 ? '' : this.encode(text.slice(0, end));
    } catch (err) {
      done(err as Error);
      return;
    }
    this.send(out, done);
  }

  override _flush(done: TransformCallback): void {
    let out: string;
    try {
      out = this.rest === '' ? '' : this.encode(this.rest);
      this.rest = '';
    } catch (err) {
      done(err as Error);
      return;
    }
    this.send(out, done);
  }

  /** Rows of `text` (whole lines without the last newline), as LOAD DATA text. */
  private encode(text: string): string {
    let out = '';
    for (const raw of text.split('\n')) {
      this.lines++;
      const row = this.o.reader.row(raw.endsWith('\r') ? raw.slice(0, -1) : raw, this.lines);
      if (row === undefined) continue;
      this.rows++;
      const fields = row.map(tsvField);
      if (this.ordinal !== undefined) fields.push(String(this.ordinal++));
      out += `${fields.join('\t')}\n`;
    }
    return out;
  }

  private send(out: string, done: TransformCallback): void {
    if (out !== '') {
      const bytes = Buffer.from(out, 'utf8');
      for (let at = 0; at < bytes.length; at += MAX_PUSH_BYTES) this.push(bytes.subarray(at, at + MAX_PUSH_BYTES));
    }
    const waiting = this.o.gate?.();
    if (waiting) waiting.then(() => done(), done);
    else done();
  }

  /** The next ordinal (where the rows of the next file start). */
  get nextOrdinal(): number | undefined {
    return this.ordinal;
  }
}

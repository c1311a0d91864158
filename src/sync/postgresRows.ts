// Result records (JSON lines, already checked and cleaned by JsonEscapeFilter) as rows of
// PostgreSQL's COPY, one typed field per target column, so COPY loads them straight into typed
// columns. Each field holds what the jsonb load would store (postgresSql.ts `columnValue`): the
// member's value as `->>` reads it, taken by the column type's input function (COPY's text
// form uses the same one), a json column's value as its JSON text, and NULL for a member that
// is missing, null, or under a member that is not an object.
//
// Two forms: binary (PostgreSQL parses nothing: the fastest to load) and text. A value the
// binary form does not take in the one plain form it reads (postgresBinary.ts: a date-time
// with another zone notation, a number given as a string...) throws `NeedsTextRows`; a value
// the text form cannot write exactly as the jsonb load would (a number in exponent form in a
// text column, an object in a typed column) throws `NeedsGeneralLoad`, as does a record the
// scanner does not take (jsonRecordScanner.ts). A snapshot that holds a delete, or a key twice
// (seenKeys.ts), throws `NeedsMerge` when the rows go straight into the table. Nothing here
// knows of streams or of the database.

import {
  ARRAY,
  BACKSLASH,
  DECIMAL,
  EXPONENT,
  FALSE,
  isHex,
  JsonRecordScanner,
  MISSING,
  NeedsGeneralLoad,
  NULL,
  NUMBER,
  OBJECT,
  QUOTE,
  STRING,
  TRUE,
} from './jsonRecordScanner';
import { putBigint, putCount, putDate, putDouble, putInteger, putTimestamp } from './postgresBinary';
import { SeenKeys } from './seenKeys';
import type { TargetColumn, TargetType } from './syncTarget';

/** A value the binary rows do not take; the text rows do (or hand it on). */
export class NeedsTextRows extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'NeedsTextRows';
  }
}

/** A snapshot record that is a delete, where the rows go straight into the table. */
export class NeedsMerge extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'NeedsMerge';
  }
}

export type RowForm = 'binary' | 'text';

export interface RowEncoderOptions {
  form: RowForm;
  /**
   * three more fields after the columns: the record's number across the run (from 1), its
   * `meta.ts` (timestamptz) and its `meta.action` (text)
   */
  withOrder: boolean;
  /**
   * throw NeedsMerge at the first record whose `meta.action` is `D`, or whose key an earlier
   * record had (as far as SeenKeys tells; without `withOrder`)
   */
  refuseDeletes: boolean;
}

const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SLASH = 0x2f;
const LOWER_N = 0x6e;
const LOWER_R = 0x72;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
const LOWER_B = 0x62;
const LOWER_F = 0x66;

/** The binary COPY header (signature, flags, no extension) and trailer. */
const BINARY_HEADER = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
const BINARY_TRAILER = Buffer.from([0xff, 0xff]);
const SLAB_BYTES = 4 * 1024 * 1024;

/** Encodes records as COPY rows; one encoder serves every file of a run (it numbers the records). */
export class TypedRowEncoder {
  /** records encoded so far, across files */
  records = 0;
  readonly form: RowForm;
  private readonly scanner: JsonRecordScanner;
  /** the type of each slot: the columns, then meta.ts and meta.action (with `withOrder`), or meta.action alone */
  private readonly types: TargetType[];
  private readonly written: number;
  private readonly columnCount: number;
  private readonly actionSlot: number;
  private readonly refuseDeletes: boolean;
  /** the slots of the key columns, and where their values lie in the record being written */
  private readonly keySlots: number[];
  private readonly keyFrom: Int32Array;
  private readonly keyTo: Int32Array;
  private readonly seenKeys = new SeenKeys();
  /**
   * Rows are written one call after another into a slab, each call's rows a slice of it; a slab
   * too full for the next call is left to the slices pushed from it. Fewer, fuller buffers than
   * one per call: less memory for the garbage collector to follow.
   */
  private out: Buffer = Buffer.allocUnsafe(SLAB_BYTES);
  /** where this call's rows start in `out` */
  private begin = 0;
  private at = 0;

  constructor(columns: readonly TargetColumn[], options: RowEncoderOptions) {
    this.form = options.form;
    this.columnCount = columns.length;
    this.refuseDeletes = options.refuseDeletes && !options.withOrder;
    const paths = columns.map((c) => c.path);
    this.types = columns.map((c) => c.type);
    if (options.withOrder) {
      paths.push(['meta', 'ts'], ['meta', 'action']);
      this.types.push('timestamptz', 'text');
    } else if (this.refuseDeletes) {
      paths.push(['meta', 'action']);
      this.types.push('text');
    }
    this.written = options.withOrder ? columns.length + 2 : columns.length;
    this.actionSlot = options.withOrder || this.refuseDeletes ? paths.length - 1 : -1;
    this.scanner = new JsonRecordScanner(paths);
    this.keySlots = columns.flatMap((c, slot) => (c.key ? [slot] : []));
    this.keyFrom = new Int32Array(this.keySlots.length);
    this.keyTo = new Int32Array(this.keySlots.length);
  }

  /** What a COPY stream of these rows starts with. */
  header(): Buffer {
    return this.form === 'binary' ? BINARY_HEADER : Buffer.alloc(0);
  }

  /** What a COPY stream of these rows ends with. */
  trailer(): Buffer {
    return this.form === 'binary' ? BINARY_TRAILER : Buffer.alloc(0);
  }

  /**
   * Encodes the lines of `lines` from `from` to `to` (each ended by a newline, but for the last
   * one when `to` is the data's end): one row per record, none for a blank line. Returns the
   * rows as a slice no later call writes over.
   */
  encodeLines(lines: Buffer, from: number, to: number): Buffer {
    if (this.out.length - this.at < to - from + (1 << 16)) {
      this.out = Buffer.allocUnsafe(Math.max(SLAB_BYTES, to - from + (1 << 16)));
      this.at = 0;
    }
    this.begin = this.at;
    let start = from;
    while (start < to) {
      let newline = lines.indexOf(NEWLINE, start);
      if (newline === -1 || newline >= to) newline = to;
      let end = newline;
      if (end > start && lines[end - 1] === RETURN) end--;
      const record = this.records + 1;
      if (this.scanner.scan(lines, start, end, record)) {
        if (this.refuseDeletes) {
          if (this.scanner.isText(lines, this.actionSlot, 'D')) throw new NeedsMerge(`record ${record} is a delete`);
          if (this.repeatsKey(lines)) throw new NeedsMerge(`record ${record} may repeat the key of an earlier one`);
        }
        this.reserve(2 * (end - start) + 12 * this.types.length + 64);
        if (this.form === 'binary') this.binaryRow(lines, record);
        else this.textRow(lines, record);
        this.records = record;
      }
      start = newline + 1;
    }
    return this.out.subarray(this.begin, this.at);
  }

  /** Whether the record's key (its values' bytes) was seen before; false for a record without one. */
  private repeatsKey(b: Buffer): boolean {
    const { kind, start, end } = this.scanner;
    for (let k = 0; k < this.keySlots.length; k++) {
      const slot = this.keySlots[k];
      if (kind[slot] === MISSING || kind[slot] === NULL) return false;
      this.keyFrom[k] = start[slot];
      this.keyTo[k] = end[slot];
    }
    return this.seenKeys.seenBefore(b, this.keyFrom, this.keyTo, this.keySlots.length);
  }

  private textRow(b: Buffer, record: number): void {
    const out = this.out;
    for (let s = 0; s < this.written; s++) {
      if (s > 0) out[this.at++] = TAB;
      if (s === this.columnCount) {
        // the record's number comes before meta.ts and meta.action
        this.at += out.write(String(record), this.at, 'latin1');
        out[this.at++] = TAB;
      }
      this.textField(b, s, record);
    }
    out[this.at++] = NEWLINE;
  }

  private binaryRow(b: Buffer, record: number): void {
    const out = this.out;
    const fields = this.written + (this.written > this.columnCount ? 1 : 0);
    out[this.at++] = fields >>> 8;
    out[this.at++] = fields & 0xff;
    for (let s = 0; s < this.written; s++) {
      if (s === this.columnCount) this.at = putCount(out, this.at, record); // the record's number, before meta.ts
      this.binaryField(b, s, record);
    }
  }

  private textField(b: Buffer, s: number, record: number): void {
    const { kind, start, end, detail, negativeZero } = this.scanner;
    const type = this.types[s];
    const from = start[s];
    const to = end[s];
    switch (kind[s]) {
      case MISSING:
      case NULL:
        this.out[this.at++] = BACKSLASH;
        this.out[this.at++] = 0x4e; // \N
        return;
      case STRING:
        if (type === 'json') this.jsonText(b, from, to);
        else if (detail[s] === 0) this.plain(b, from + 1, to - 1);
        else this.unescaped(b, from + 1, to - 1, record, true);
        return;
      case TRUE:
      case FALSE:
        this.plain(b, from, to);
        return;
      case NUMBER:
        if (type !== 'json') checkNumber(type, detail[s], negativeZero[s] === 1, record);
        this.plain(b, from, to);
        return;
      default:
        if (type !== 'json') throw new NeedsGeneralLoad(`record ${record} holds an object or array where a column takes a single value`);
        this.jsonText(b, from, to);
    }
  }

  private binaryField(b: Buffer, s: number, record: number): void {
    const { kind, start, end, detail, negativeZero } = this.scanner;
    const type = this.types[s];
    const from = start[s];
    const to = end[s];
    const k = kind[s];
    if (k === MISSING || k === NULL) {
      this.word(0xffffffff); // -1: NULL
      return;
    }
    if (type === 'json') {
      // jsonb's binary form: a version byte (1), then the JSON text
      this.word(to - from + 1);
      this.out[this.at++] = 1;
      this.plain(b, from, to);
      return;
    }
    if (k === OBJECT || k === ARRAY) throw new NeedsGeneralLoad(`record ${record} holds an object or array where a column takes a single value`);
    if (k === NUMBER) checkNumber(type, detail[s], negativeZero[s] === 1, record);
    let next = -1;
    switch (type) {
      case 'text':
        if (k === STRING && detail[s] !== 0) {
          // the length is known once the escapes are read
          const lengthAt = this.at;
          this.at += 4;
          this.unescaped(b, from + 1, to - 1, record, false);
          this.out.writeUInt32BE(this.at - lengthAt - 4, lengthAt);
          return;
        }
        if (k === STRING) {
          this.word(to - from - 2);
          this.plain(b, from + 1, to - 1);
        } else {
          this.word(to - from);
          this.plain(b, from, to);
        }
        return;
      case 'boolean':
        if (k === TRUE || k === FALSE) {
          this.word(1);
          this.out[this.at++] = k === TRUE ? 1 : 0;
          return;
        }
        break;
      case 'bigint':
        if (k === NUMBER) next = putBigint(this.out, this.at, b, from, to);
        break;
      case 'integer':
        if (k === NUMBER) next = putInteger(this.out, this.at, b, from, to);
        break;
      case 'double':
        if (k === NUMBER) next = putDouble(this.out, this.at, b, from, to);
        break;
      case 'timestamptz':
        if (k === STRING && detail[s] === 0) next = putTimestamp(this.out, this.at, b, from + 1, to - 1);
        break;
      case 'date':
        if (k === STRING && detail[s] === 0) next = putDate(this.out, this.at, b, from + 1, to - 1);
        break;
    }
    if (next < 0) throw new NeedsTextRows(`record ${record} holds a value for a ${type} column in a form other than the plain one`);
    this.at = next;
  }

  private word(value: number): void {
    const out = this.out;
    out[this.at++] = value >>> 24;
    out[this.at++] = (value >>> 16) & 0xff;
    out[this.at++] = (value >>> 8) & 0xff;
    out[this.at++] = value & 0xff;
  }

  /** Bytes as they are (for text rows: bytes that need no escaping). */
  private plain(b: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n > 256) {
      // a call of Buffer#copy costs more than a loop over a short field
      b.copy(this.out, this.at, from, to);
      this.at += n;
      return;
    }
    const out = this.out;
    let at = this.at;
    for (let i = from; i < to; i++) out[at++] = b[i];
    this.at = at;
  }

  /** JSON text as a text-row field: backslashes doubled, tabs (whitespace between tokens) escaped. */
  private jsonText(b: Buffer, from: number, to: number): void {
    const out = this.out;
    let at = this.at;
    for (let i = from; i < to; i++) {
      const c = b[i];
      if (c === BACKSLASH) {
        out[at++] = BACKSLASH;
        out[at++] = BACKSLASH;
      } else if (c === TAB) {
        out[at++] = BACKSLASH;
        out[at++] = LOWER_T;
      } else {
        out[at++] = c;
      }
    }
    this.at = at;
  }

  /**
   * A JSON string's content (between its quotes, checked by the scanner) as the text it stands
   * for: for a text row, escaped as COPY's text form wants it (whose escapes `\\`, `\b`, `\f`,
   * `\n`, `\r` and `\t` mean what JSON's do, so those pass as they are); for a binary row, raw.
   */
  private unescaped(b: Buffer, from: number, to: number, record: number, forText: boolean): void {
    const out = this.out;
    let at = this.at;
    for (let i = from; i < to; ) {
      const c = b[i];
      if (c !== BACKSLASH) {
        out[at++] = c;
        i++;
        continue;
      }
      const e = b[i + 1];
      if (e === LOWER_U) {
        let code = hex4(b, i + 2);
        i += 6;
        if (code >= 0xdc00 && code <= 0xdfff) throw new NeedsGeneralLoad(`record ${record} holds half a surrogate pair`);
        if (code >= 0xd800 && code <= 0xdbff) {
          const low = i + 6 <= to && b[i] === BACKSLASH && b[i + 1] === LOWER_U ? hex4(b, i + 2) : -1;
          if (low < 0xdc00 || low > 0xdfff) throw new NeedsGeneralLoad(`record ${record} holds half a surrogate pair`);
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          i += 6;
        }
        if (code === 0) throw new NeedsGeneralLoad(`record ${record} holds \\u0000`);
        at = putCodePoint(out, at, code, forText);
      } else if (e === QUOTE || e === SLASH) {
        out[at++] = e;
        i += 2;
      } else if (forText) {
        out[at++] = BACKSLASH;
        out[at++] = e;
        i += 2;
      } else {
        out[at++] = e === LOWER_N ? NEWLINE : e === LOWER_T ? TAB : e === LOWER_R ? RETURN : e === LOWER_B ? 0x08 : e === LOWER_F ? 0x0c : BACKSLASH;
        i += 2;
      }
    }
    this.at = at;
  }

  /** Room for `bytes` more; this call's rows move to a bigger slab when they need it. */
  private reserve(bytes: number): void {
    if (this.at + bytes <= this.out.length) return;
    const written = this.at - this.begin;
    const grown = Buffer.allocUnsafe(Math.max(SLAB_BYTES, 2 * (written + bytes)));
    this.out.copy(grown, 0, this.begin, this.at);
    this.out = grown;
    this.begin = 0;
    this.at = written;
  }
}

/**
 * A JSON number for a column that is not json, in a form whose text the jsonb load would read
 * the same (`->>` writes numbers as PostgreSQL's numeric does, which drops the minus of a
 * zero): no negative zero but for integer types (which read `-0` as 0), no exponent but for
 * double precision, no fraction for integer types, dates, times and booleans.
 */
function checkNumber(type: TargetType, form: number, negativeZero: boolean, record: number): void {
  if (negativeZero && type !== 'integer' && type !== 'bigint') throw new NeedsGeneralLoad(`record ${record} holds a negative zero`);
  if (form === EXPONENT && type !== 'double') throw new NeedsGeneralLoad(`record ${record} holds a number in exponent form`);
  if (form === DECIMAL && type !== 'double' && type !== 'text') throw new NeedsGeneralLoad(`record ${record} holds a fraction for a column that takes none`);
}

function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10;
}

/** The value of four hex digits at b[i], or -1. */
function hex4(b: Buffer, i: number): number {
  if (!isHex(b[i]) || !isHex(b[i + 1]) || !isHex(b[i + 2]) || !isHex(b[i + 3])) return -1;
  return (hexValue(b[i]) << 12) | (hexValue(b[i + 1]) << 8) | (hexValue(b[i + 2]) << 4) | hexValue(b[i + 3]);
}

/** A code point as UTF-8; for a text row, backslash, tab, newline and return escaped. */
function putCodePoint(out: Buffer, at: number, code: number, forText: boolean): number {
  if (code < 0x80) {
    if (forText && (code === BACKSLASH || code === TAB || code === NEWLINE || code === RETURN)) {
      out[at++] = BACKSLASH;
      out[at++] = code === BACKSLASH ? BACKSLASH : code === TAB ? LOWER_T : code === NEWLINE ? LOWER_N : LOWER_R;
    } else {
      out[at++] = code;
    }
  } else if (code < 0x800) {
    out[at++] = 0xc0 | (code >> 6);
    out[at++] = 0x80 | (code & 0x3f);
  } else if (code < 0x10000) {
    out[at++] = 0xe0 | (code >> 12);
    out[at++] = 0x80 | ((code >> 6) & 0x3f);
    out[at++] = 0x80 | (code & 0x3f);
  } else {
    out[at++] = 0xf0 | (code >> 18);
    out[at++] = 0x80 | ((code >> 12) & 0x3f);
    out[at++] = 0x80 | ((code >> 6) & 0x3f);
    out[at++] = 0x80 | (code & 0x3f);
  }
  return at;
}

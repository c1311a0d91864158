// Reads one JSON record (a line of a result file) byte by byte and notes where the values of
// some member paths lie (`['value', 'client', 'ip']`), and what they are: a string (with or
// without escapes), a number (and its form), true, false, null, an object or an array. Every
// byte is looked at once, and the record is checked to be JSON as strictly as PostgreSQL's
// own parser checks it (grammar, escapes, UTF-8), so a record that parser would refuse is
// never taken for a good one. A path under a member that is not an object, or missing, has no
// value (as `->` reads it). What this reader does not settle the way PostgreSQL's jsonb would
// (a member named twice, a member name written with escapes, nesting past 512 levels, numbers
// PostgreSQL's numeric refuses) throws `NeedsGeneralLoad`; so does a record that is not JSON:
// the general loader then decides what the record is worth.

/** A record the typed load does not take; the general (jsonb) load decides what it is worth. */
export class NeedsGeneralLoad extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'NeedsGeneralLoad';
  }
}

/** What a path's value is. */
export const MISSING = 0;
export const NULL = 1;
export const STRING = 2;
export const NUMBER = 3;
export const TRUE = 4;
export const FALSE = 5;
export const OBJECT = 6;
export const ARRAY = 7;

/** How a number is written (its `detail`). */
export const INTEGER = 0;
export const DECIMAL = 1;
export const EXPONENT = 2;

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_U = 0x75;
const LOWER_N = 0x6e;
const LOWER_R = 0x72;
const LOWER_T = 0x74;
const LOWER_B = 0x62;
const LOWER_F = 0x66;

/** The deepest nesting read here. */
const MAX_DEPTH = 512;
/** PostgreSQL's numeric takes exponents up to 1000 and a thousand digits are more than any column needs. */
const MAX_NUMBER_DIGITS = 1000;

const LITERAL_TRUE = Buffer.from('true');
const LITERAL_FALSE = Buffer.from('false');
const LITERAL_NULL = Buffer.from('null');

/** JSON's white space: space, tab, newline, return. */
const SPACE_BYTE = new Uint8Array(256);
for (const c of [SPACE, TAB, NEWLINE, RETURN]) SPACE_BYTE[c] = 1;

/** Bytes that stand for themselves inside a JSON string: printable ASCII but the quote and the backslash. */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) PLAIN[c] = c === QUOTE || c === BACKSLASH ? 0 : 1;

/** One member name along the paths, with what sits below it. */
interface Member {
  name: Buffer;
  /** its place among its siblings */
  index: number;
  /** the slot of the path ending here, or -1 */
  slot: number;
  members: Member[];
  /** the record that last named this member */
  seen: number;
}

export class JsonRecordScanner {
  /** per slot, what the last record scanned holds there (MISSING when nothing) */
  readonly kind: Uint8Array;
  /** per slot, where its value starts and ends in the scanned buffer (quotes included for a string) */
  readonly start: Int32Array;
  readonly end: Int32Array;
  /** per slot: a number's form, or 1 for a string that holds escapes */
  readonly detail: Uint8Array;
  /** per slot: 1 for a number that is a negative zero (`-0`, `-0.0e5`) */
  readonly negativeZero: Uint8Array;
  private readonly root: Member[] = [];
  private readonly stack = new Uint8Array(MAX_DEPTH + 1);
  private record = 0;
  /** set by the readers: what the last value read was */
  private lastKind = MISSING;
  private lastDetail = 0;
  private lastNegativeZero = false;

  /** One slot per path, in order. */
  constructor(paths: readonly (readonly string[])[]) {
    paths.forEach((path, slot) => this.addPath(path, slot));
    this.kind = new Uint8Array(paths.length);
    this.start = new Int32Array(paths.length);
    this.end = new Int32Array(paths.length);
    this.detail = new Uint8Array(paths.length);
    this.negativeZero = new Uint8Array(paths.length);
  }

  private addPath(path: readonly string[], slot: number): void {
    if (path.length === 0) throw new Error(`slot ${slot} has an empty path`);
    let members = this.root;
    let member: Member | undefined;
    for (const part of path) {
      const name = Buffer.from(part, 'utf8');
      member = members.find((m) => m.name.equals(name));
      if (!member) {
        member = { name, index: members.length, slot: -1, members: [], seen: 0 };
        members.push(member);
      }
      members = member.members;
    }
    if (member!.slot !== -1) throw new Error(`two slots read ${path.join('.')}`);
    member!.slot = slot;
  }

  /**
   * Scans the line b[from, to) (without its line end) as record number `record` (for messages);
   * false for a blank line. The slots then describe the record.
   */
  scan(b: Buffer, from: number, to: number, record: number): boolean {
    let i = skipSpace(b, from, to);
    if (i === to) return false;
    this.record = record;
    this.kind.fill(MISSING);
    if (b[i] !== OPEN_BRACE) throw this.invalid('does not start with "{"');
    i = this.object(b, i, to, this.root, 1);
    if (skipSpace(b, i, to) !== to) throw this.invalid('goes on after its closing "}"');
    return true;
  }

  /** Whether the slot holds a string that reads as `text` (ASCII). */
  isText(b: Buffer, slot: number, text: string): boolean {
    if (this.kind[slot] !== STRING) return false;
    const from = this.start[slot];
    const to = this.end[slot];
    if (this.detail[slot] !== 0) return JSON.parse(b.toString('utf8', from, to)) === text;
    if (to - from - 2 !== text.length) return false;
    for (let k = 0; k < text.length; k++) if (b[from + 1 + k] !== text.charCodeAt(k)) return false;
    return true;
  }

  /** Reads the object at b[i] ('{'), noting the members on the paths. */
  private object(b: Buffer, i: number, to: number, members: readonly Member[], depth: number): number {
    if (depth > MAX_DEPTH) throw new NeedsGeneralLoad(`record ${this.record} nests deeper than ${MAX_DEPTH} levels`);
    const record = this.record;
    let guess = 0;
    i = skipSpace(b, i + 1, to);
    if (b[i] === CLOSE_BRACE) return i + 1;
    for (;;) {
      if (i >= to || b[i] !== QUOTE) throw this.invalid('has a member without a quoted name');
      const nameFrom = i + 1;
      // records name their members in the same order, mostly: the one after the last found is
      // tried first, and a name that is that member's own needs no further checks
      let member: Member | undefined = members[guess];
      const nameTo = member === undefined ? -1 : nameFrom + member.name.length;
      if (member !== undefined && nameTo < to && b[nameTo] === QUOTE && sameName(member.name, b, nameFrom, nameTo)) {
        i = nameTo + 1;
      } else {
        i = this.string(b, i, to);
        if (this.lastDetail !== 0 && members.length > 0) throw new NeedsGeneralLoad(`record ${record} has a member name written with escapes`);
        member = members.length > 0 ? findMember(members, b, nameFrom, i - 1) : undefined;
      }
      // compact JSON first: no space around the colon
      if (b[i] === COLON) i++;
      else {
        i = skipSpace(b, i, to);
        if (b[i] !== COLON) throw this.invalid('has a member name without ":"');
        i++;
      }
      if (SPACE_BYTE[b[i]] === 1) i = skipSpace(b, i, to);
      if (i >= to) throw this.invalid('ends inside an object');
      if (member === undefined) {
        i = this.value(b, i, to, depth);
      } else {
        guess = member.index + 1;
        if (member.seen === record) throw new NeedsGeneralLoad(`record ${record} names the member "${member.name.toString('utf8')}" twice`);
        member.seen = record;
        const valueFrom = i;
        if (b[i] === OPEN_BRACE && member.members.length > 0) {
          i = this.object(b, i, to, member.members, depth + 1);
          this.lastKind = OBJECT;
        } else {
          i = this.value(b, i, to, depth);
        }
        const slot = member.slot;
        if (slot >= 0) {
          this.kind[slot] = this.lastKind;
          this.start[slot] = valueFrom;
          this.end[slot] = i;
          this.detail[slot] = this.lastKind === OBJECT ? 0 : this.lastDetail;
          this.negativeZero[slot] = this.lastKind === NUMBER && this.lastNegativeZero ? 1 : 0;
        }
      }
      if (SPACE_BYTE[b[i]] === 1) i = skipSpace(b, i, to);
      const c = b[i];
      if (c === COMMA && i < to) {
        i++;
        if (SPACE_BYTE[b[i]] === 1) i = skipSpace(b, i, to);
        continue;
      }
      if (c === CLOSE_BRACE && i < to) return i + 1;
      throw this.invalid('has an object that is not closed properly');
    }
  }

  /** Reads any JSON value at b[i]; sets lastKind (and lastDetail, lastNegativeZero). */
  private value(b: Buffer, i: number, to: number, depth: number): number {
    const c = b[i];
    if (c === QUOTE) {
      this.lastKind = STRING;
      return this.string(b, i, to);
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const next = this.container(b, i, to, depth);
      this.lastKind = c === OPEN_BRACE ? OBJECT : ARRAY;
      return next;
    }
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      this.lastKind = NUMBER;
      return this.number(b, i, to);
    }
    if (c === LOWER_T && matches(b, i, to, LITERAL_TRUE)) {
      this.lastKind = TRUE;
      return i + 4;
    }
    if (c === LOWER_F && matches(b, i, to, LITERAL_FALSE)) {
      this.lastKind = FALSE;
      return i + 5;
    }
    if (c === LOWER_N && matches(b, i, to, LITERAL_NULL)) {
      this.lastKind = NULL;
      return i + 4;
    }
    throw this.invalid('holds a value that is not JSON');
  }

  /** Reads an object or array at b[i] without noting anything in it, one level after another (no recursion). */
  private container(b: Buffer, i: number, to: number, depth: number): number {
    const stack = this.stack;
    let level = 0;
    stack[0] = b[i];
    i++;
    let first = true;
    for (;;) {
      // after an opening bracket (first) or a comma, inside stack[level]
      i = skipSpace(b, i, to);
      const open = stack[level];
      let closed = false;
      if (first && i < to && b[i] === (open === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) {
        i++;
        closed = true;
      } else {
        if (open === OPEN_BRACE) {
          if (i >= to || b[i] !== QUOTE) throw this.invalid('has a member without a quoted name');
          i = skipSpace(b, this.string(b, i, to), to);
          if (b[i] !== COLON || i >= to) throw this.invalid('has a member name without ":"');
          i = skipSpace(b, i + 1, to);
        }
        if (i >= to) throw this.invalid('ends inside an object or array');
        const c = b[i];
        if (c === OPEN_BRACE || c === OPEN_BRACKET) {
          if (depth + level + 1 > MAX_DEPTH) throw new NeedsGeneralLoad(`record ${this.record} nests deeper than ${MAX_DEPTH} levels`);
          stack[++level] = c;
          i++;
          first = true;
          continue;
        }
        i = this.value(b, i, to, depth + level + 1);
      }
      // after a value or a closing bracket: a comma, or the closing bracket of the level
      for (;;) {
        if (closed) {
          if (level === 0) return i;
          level--;
          closed = false;
        }
        i = skipSpace(b, i, to);
        if (i >= to) throw this.invalid('ends inside an object or array');
        const c = b[i];
        if (c === COMMA) {
          i++;
          first = false;
          break;
        }
        if (c === (stack[level] === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) {
          i++;
          closed = true;
          continue;
        }
        throw this.invalid('has an object or array that is not closed properly');
      }
    }
  }

  /** Reads the string at b[i] ('"'), checking its escapes and UTF-8; lastDetail is 1 when it holds escapes. */
  private string(b: Buffer, i: number, to: number): number {
    i++;
    let escaped = 0;
    for (;;) {
      // the common bytes first, in a tight loop: b[to] is a line end or past the data, never plain
      while (PLAIN[b[i]] === 1) i++;
      if (i >= to) throw this.invalid('ends inside a string');
      const c = b[i];
      if (c === QUOTE) {
        this.lastDetail = escaped;
        return i + 1;
      }
      if (c === BACKSLASH) {
        escaped = 1;
        const e = b[i + 1];
        if (e === LOWER_U) {
          if (i + 6 > to || !isHex(b[i + 2]) || !isHex(b[i + 3]) || !isHex(b[i + 4]) || !isHex(b[i + 5])) throw this.invalid('has a bad \\u escape');
          i += 6;
        } else if (e === QUOTE || e === BACKSLASH || e === SLASH || e === LOWER_B || e === LOWER_F || e === LOWER_N || e === LOWER_R || e === LOWER_T) {
          i += 2;
        } else {
          throw this.invalid('has a bad escape');
        }
      } else if (c < 0x20) {
        throw this.invalid('has a control character inside a string');
      } else {
        i = utf8(b, i, to);
        if (i < 0) throw this.invalid('is not valid UTF-8');
      }
    }
  }

  /** Reads the number at b[i]; sets lastDetail to its form and lastNegativeZero. */
  private number(b: Buffer, i: number, to: number): number {
    const from = i;
    let negative = false;
    let nonZero = false;
    if (b[i] === MINUS) {
      negative = true;
      i++;
    }
    if (i < to && b[i] === ZERO) {
      i++;
    } else if (i < to && b[i] > ZERO && b[i] <= NINE) {
      nonZero = true;
      i++;
      while (i < to && b[i] >= ZERO && b[i] <= NINE) i++;
    } else {
      throw this.invalid('holds a bad number');
    }
    let form = INTEGER;
    if (i < to && b[i] === DOT) {
      i++;
      if (!(i < to && b[i] >= ZERO && b[i] <= NINE)) throw this.invalid('holds a bad number');
      while (i < to && b[i] >= ZERO && b[i] <= NINE) {
        if (b[i] !== ZERO) nonZero = true;
        i++;
      }
      form = DECIMAL;
    }
    if (i - from > MAX_NUMBER_DIGITS) throw new NeedsGeneralLoad(`record ${this.record} holds a number of more than ${MAX_NUMBER_DIGITS} digits`);
    if (i < to && (b[i] === LOWER_E || b[i] === UPPER_E)) {
      i++;
      if (i < to && (b[i] === PLUS || b[i] === MINUS)) i++;
      if (!(i < to && b[i] >= ZERO && b[i] <= NINE)) throw this.invalid('holds a bad number');
      while (i < to && b[i] === ZERO) i++;
      const digits = i;
      while (i < to && b[i] >= ZERO && b[i] <= NINE) i++;
      if (i - digits > 3) throw new NeedsGeneralLoad(`record ${this.record} holds a number with an exponent of 1000 or more`);
      form = EXPONENT;
    }
    this.lastDetail = form;
    this.lastNegativeZero = negative && !nonZero;
    return i;
  }

  private invalid(why: string): NeedsGeneralLoad {
    return new NeedsGeneralLoad(`record ${this.record} is not valid JSON: it ${why}`);
  }
}

function skipSpace(b: Buffer, i: number, to: number): number {
  while (i < to) {
    const c = b[i];
    if (c !== SPACE && c !== TAB && c !== NEWLINE && c !== RETURN) break;
    i++;
  }
  return i;
}

function matches(b: Buffer, i: number, to: number, word: Buffer): boolean {
  if (i + word.length > to) return false;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return false;
  return true;
}

function sameName(name: Buffer, b: Buffer, from: number, to: number): boolean {
  const n = to - from;
  if (name.length !== n) return false;
  for (let k = 0; k < n; k++) if (name[k] !== b[from + k]) return false;
  return true;
}

function findMember(members: readonly Member[], b: Buffer, from: number, to: number): Member | undefined {
  for (let m = 0; m < members.length; m++) if (sameName(members[m].name, b, from, to)) return members[m];
  return undefined;
}

export function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** Checks the UTF-8 sequence at b[i] (its first byte is 0x80 or more); the index past it, or -1. */
function utf8(b: Buffer, i: number, to: number): number {
  const c = b[i];
  const cont = (k: number, low = 0x80, high = 0xbf): boolean => i + k < to && b[i + k] >= low && b[i + k] <= high;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? i + 2 : -1;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? i + 3 : -1;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? i + 3 : -1;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? i + 3 : -1;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? i + 4 : -1;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? i + 4 : -1;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? i + 4 : -1;
  return -1;
}

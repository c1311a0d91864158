// The JSON escapes a database cannot store, dropped from result lines before they are loaded:
// `\u0000` (PostgreSQL keeps no NUL in text or jsonb) and a lone UTF-16 surrogate such as
// `\ud83d`, the first half of an emoji whose second half a truncation cut off (neither
// PostgreSQL nor DuckDB reads it). A surrogate pair (`\ud83d\ude00`) stays, and so does text
// that only looks like an escape (`\\u0000`, an escaped backslash then `u0000`). Lines pass
// byte for byte otherwise. Shared by both targets, and loads neither's driver.

import { Transform, type TransformCallback } from 'node:stream';

const NEWLINE = 0x0a;
/** What a line holds when it may need cleaning: `\u0000`, or `\uD800` to `\uDFFF` in either case. */
const MAYBE = [Buffer.from('\\u0000'), Buffer.from('\\ud'), Buffer.from('\\uD')];
/**
 * An escape preceded by an even number of backslashes (an odd one escapes the backslash):
 * `\u0000`, a high surrogate with the low one after it (kept), a high one alone, or a low one
 * that no high one came before (both dropped). Pairs are matched first, left to right.
 */
const SPECIAL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(0000|[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|[dD][c-fC-F][0-9a-fA-F]{2})/g;

/** The lines with `\u0000` and lone surrogate escapes dropped; the same buffer when there are none. */
export function cleanJsonLines(lines: Buffer): Buffer {
  if (!MAYBE.some((m) => lines.includes(m))) return lines;
  const text = lines.toString('utf8');
  const cleaned = text.replace(SPECIAL_ESCAPE, (whole: string, slashes: string, escape: string) => (escape.length === 10 ? whole : slashes));
  return cleaned === text ? lines : Buffer.from(cleaned, 'utf8');
}

/** `cleanJsonLines` on a stream of JSON lines: works on whole lines, carrying a partial one. */
export class JsonEscapeFilter extends Transform {
  private carry: Buffer = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const end = data.lastIndexOf(NEWLINE) + 1;
    this.carry = data.subarray(end);
    if (end > 0) this.push(cleanJsonLines(data.subarray(0, end)));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.carry.length) this.push(cleanJsonLines(this.carry));
    this.carry = Buffer.alloc(0);
    done();
  }
}

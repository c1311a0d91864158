// The result lines as a target loads them, checked and cleaned on their way from the file:
// - each line is one record: a JSON object (its first byte past spaces and tabs is `{`), or
//   empty. So no line reads `\.`, which would end PostgreSQL's COPY early and silently drop
//   every record after it, and no line is cut in two by a carriage return (COPY takes a lone
//   CR for a line end); a CR passes only as part of a CRLF line end;
// - no line is longer than MAX_RECORD_BYTES, the longest record DuckDB reads (the DuckDB
//   target sets the same limit), so memory stays bounded and both targets load the same files;
// - the JSON escapes a database cannot store are dropped: `\u0000` (PostgreSQL keeps no NUL in
//   text or jsonb) and a lone UTF-16 surrogate such as `\ud83d`, the first half of an emoji
//   whose second half a truncation cut off (neither PostgreSQL nor DuckDB reads it). A
//   surrogate pair (`\ud83d\ude00`) stays, and so does text that only looks like an escape
//   (`\\u0000`, an escaped backslash then `u0000`). Lines pass byte for byte otherwise.
// Every byte is looked at a bounded number of times, however long a line or however small the
// chunks it arrives in. Shared by both targets, and loads neither's driver.

import * as path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { DqError } from '../client/errors';

/** The longest line (one record) a sync loads: DuckDB's own limit on a JSON record (maximum_object_size). */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const OPEN_BRACE = 0x7b;
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

/** What the lines come from, for the errors that name them. */
export interface JsonLinesSource {
  /** the table being loaded: `canvas.users` */
  table: string;
  /** the result file */
  file: string;
  /** the longest line taken (default MAX_RECORD_BYTES) */
  maxLineBytes?: number;
}

/** A size as a person reads it: `16 MiB`, `1.5 KiB`, `200 bytes`. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

function newlinesIn(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) n++;
  return n;
}

/** A result file holds a record longer than a sync loads (at `line` when known); both targets say it so. */
export function recordTooLong(table: string, file: string, line?: number, maxBytes = MAX_RECORD_BYTES): DqError {
  const where = `${line === undefined ? 'A record in' : `The record on line ${line} of`} ${path.basename(file)}, a result file of ${table},`;
  return new DqError('invalidResponse', `${where} is longer than ${sizeText(maxBytes)}, the most a sync loads as one record.`, {
    hint: 'The table keeps its last complete sync. Report the table to the provider; query it as files instead (dq query) to read that record.',
    details: line === undefined ? { file } : { file, line },
  });
}

/**
 * The checks and `cleanJsonLines` on a stream of JSON lines: works on whole lines, holding at
 * most one partial line (never more than the limit). `lines` counts the lines passed on: the
 * rows a COPY of them must stage.
 */
export class JsonEscapeFilter extends Transform {
  /** lines passed on so far (a last line without its newline counts once it is passed on) */
  lines = 0;
  private readonly maxLineBytes: number;
  /** the line begun and not ended yet, in the chunks it came in */
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(private readonly source: JsonLinesSource) {
    super();
    this.maxLineBytes = source.maxLineBytes ?? MAX_RECORD_BYTES;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      const out: Buffer[] = [];
      let from = 0;
      const first = chunk.indexOf(NEWLINE);
      if (first === -1) {
        this.hold(chunk);
        done();
        return;
      }
      if (this.partialBytes > 0) {
        // the line carried over ends here: joined once, whatever the number of chunks it spans
        this.hold(chunk.subarray(0, first));
        const line = Buffer.concat([...this.partial, chunk.subarray(first, first + 1)], this.partialBytes + 1);
        this.partial = [];
        this.partialBytes = 0;
        out.push(this.checked(line));
        from = first + 1;
      }
      const end = chunk.lastIndexOf(NEWLINE) + 1;
      if (end > from) out.push(this.checked(chunk.subarray(from, end)));
      this.hold(chunk.subarray(end));
      for (const lines of out) this.push(lines);
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      if (this.partialBytes > 0) this.push(this.checked(Buffer.concat(this.partial, this.partialBytes)));
      this.partial = [];
      this.partialBytes = 0;
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  /** Keeps the start of a line that goes on in the next chunk; refuses it once it is past the limit. */
  private hold(part: Buffer): void {
    if (part.length === 0) return;
    this.partialBytes += part.length;
    if (this.partialBytes > this.maxLineBytes) throw this.tooLong(this.lines + 1);
    this.partial.push(part);
  }

  /** Whole lines (each ended by a newline, but for the file's last), checked, counted and cleaned. */
  private checked(block: Buffer): Buffer {
    // a CR is part of a CRLF line end, or COPY would take it for a line end of its own
    for (let r = block.indexOf(RETURN); r !== -1; r = block.indexOf(RETURN, r + 1)) {
      if (block[r + 1] !== NEWLINE) throw this.notRecord(this.lines + 1 + newlinesIn(block.subarray(0, r)), 'it holds a carriage return before its end');
    }
    for (let start = 0; start < block.length; ) {
      const newline = block.indexOf(NEWLINE, start);
      const end = newline === -1 ? block.length : newline;
      const n = this.lines + 1;
      if (end - start > this.maxLineBytes) throw this.tooLong(n);
      let i = start;
      while (i < end && (block[i] === SPACE || block[i] === TAB)) i++;
      const blank = i === end || (i === end - 1 && block[i] === RETURN);
      if (!blank && block[i] !== OPEN_BRACE) throw this.notRecord(n, 'it does not start with "{"');
      this.lines = n;
      start = end + 1;
    }
    return cleanJsonLines(block);
  }

  private tooLong(line: number): DqError {
    return recordTooLong(this.source.table, this.source.file, line, this.maxLineBytes);
  }

  private notRecord(line: number, why: string): DqError {
    return new DqError('invalidResponse', `Line ${line} of ${path.basename(this.source.file)}, a result file of ${this.source.table}, is not a JSON record: ${why}.`, {
      hint: 'The table keeps its last complete sync. Sync it again; if the file is the same, report the table to the provider.',
      details: { file: this.source.file, line },
    });
  }
}

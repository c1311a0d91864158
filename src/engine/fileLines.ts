// A window of a JSONL file's records as text, read without parsing the records before it: the
// file streams through Node's zlib (about twice as fast as DuckDB's own gzip reader on deflated
// files: 155 against 270 ms to 90% of a 128 MiB file here) and its lines are split on the way.
// Valid JSON holds no raw control character, so a line is a record; lines of only white space
// are no records, as the JSON reader skips them.

import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { cancelledError, EngineError, isZlibError } from './engineErrors';
import { onlyWhiteSpace } from './gzipIndex';

/** The longest line a window reads; a longer one fails the read (the caller then parses the records). */
export const MAX_LINE_BYTES = 1024 * 1024;

const CHUNK_BYTES = 1024 * 1024;

/**
 * The chunks read past are garbage at once, but V8 frees them only once some 64 MiB of them
 * have piled up, and they would stay through the copy of the result that resumes afterwards.
 * Where the collector is exposed (the engine's process), a read that passed this much frees them
 * right after it answers.
 */
const COLLECT_AFTER_BYTES = 16 * 1024 * 1024;
const collectGarbage = typeof globalThis.gc === 'function' ? (): void => void globalThis.gc!() : undefined;

export interface LineWindow {
  gzip: boolean;
  /** the first record to return, counted from 0 */
  from: number;
  count: number;
  /** asked between chunks: true stops the read with a `cancelled` error */
  cancelled?: () => boolean;
}

/** Records read on either side of a window, for the windows next to it. */
export interface Around {
  /** at most this many records before the window, and after it */
  before: number;
  after: number;
  /** at most this many bytes of them on each side: the nearest ones are kept */
  bytes: number;
}

/** Records `first` to `first + lines.length` of a file, each without its line end. */
export interface LineSpan {
  first: number;
  lines: string[];
  /** no record follows the last line: the file ends there */
  atEnd: boolean;
}

const NOTHING_AROUND: Around = { before: 0, after: 0, bytes: 0 };

/** A gzip file's decompressed bytes from a restart point on (gzipIndex.ts, fileEnds.ts). */
export interface Restart {
  stream: Readable;
  /** bytes to pass over to reach the start of a line */
  skip: number;
  /** records before that line */
  records: number;
  /** the file's records: a read that reaches the end with another count did not read this file */
  total: number;
}

/** The restart point before record `record` of a file, when one is known. */
export type Restarts = (record: number) => Promise<Restart | undefined>;

/** A read from a restart point that did not end where the file does: the file is read from its start instead. */
class RestartMismatch extends Error {}

/**
 * Records `from` to `from + count` of the file (fewer at its end), each without its line end,
 * and up to `around` records on either side of them, as far as the file has them. Fails on a
 * line over MAX_LINE_BYTES in the window (one around it only ends the span on its side), or
 * when the file cannot be read, or decompressed before the window is complete: a damaged
 * gzip file is a `corrupt` EngineError naming the file (damage past the window only ends
 * the span there).
 */
export async function recordSpan(path: string, o: LineWindow, around = NOTHING_AROUND, restarts?: Restarts): Promise<LineSpan> {
  const restart = o.gzip && restarts ? await restarts(Math.max(0, o.from - around.before)).catch(() => undefined) : undefined;
  if (restart) {
    try {
      const { first, lines, atEnd } = await scan(path, o, around, restart);
      return { first, lines, atEnd };
    } catch (err) {
      if (isCancelled(err)) throw err;
      // read as if there were no restart point: that read names any damage as such
    }
  }
  const { first, lines, atEnd } = await scan(path, o, around);
  return { first, lines, atEnd };
}

/**
 * How many records the file holds: its lines but those of only white space, as the JSON reader
 * counts them when every record is valid. Fails when the file cannot be read, and with a
 * `corrupt` EngineError naming the file when it cannot be decompressed to its end: a gzip file
 * cut short, even at a point where its lines are whole, which the JSON reader takes for the end.
 */
export async function countRecords(path: string, o: { gzip: boolean; cancelled?: () => boolean }): Promise<number> {
  return (await scan(path, { ...o, from: Number.POSITIVE_INFINITY, count: 1 }, NOTHING_AROUND)).records;
}

/**
 * Reads the file's lines, keeping records `from` to `from + count` and those `around` them (none
 * when `from` is infinite), and counts the records passed.
 */
async function scan(path: string, o: LineWindow, around: Around, restart?: Restart): Promise<LineSpan & { records: number }> {
  const start = Math.max(0, o.from - around.before);
  const end = o.from + o.count;
  const kept: string[] = [];
  const sizes: number[] = [];
  /** kept[head] is the first record of the span: those before it were dropped for room */
  let head = 0;
  /** bytes of the records kept before the window, and after it */
  let bytesBefore = 0;
  let bytesAfter = 0;
  let after = 0;
  const file = restart ? undefined : createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const text = restart ? restart.stream : o.gzip ? pipeline(file!, createGunzip({ chunkSize: CHUNK_BYTES }), () => undefined) : file!;
  let passed = 0;
  let records = restart?.records ?? 0;
  /** bytes still to pass over before the first line of a restart */
  let skip = restart?.skip ?? 0;
  let blank = true;
  let line: Buffer[] = [];
  let lineBytes = 0;
  const span = (atEnd: boolean): LineSpan & { records: number } => ({ first: start + head, lines: kept.slice(head), atEnd, records });
  /** Takes the line just ended; true when the span is complete. */
  const keep = (): boolean => {
    if (blank) return false;
    const index = records++;
    if (index < start) return false;
    const tooLong = lineBytes > MAX_LINE_BYTES;
    if (index >= end) {
      if (tooLong || after === around.after || bytesAfter + lineBytes > around.bytes) return true;
      after++;
      bytesAfter += lineBytes;
      kept.push(lineText(line));
      return after === around.after;
    }
    kept.push(tooLong ? '' : lineText(line));
    sizes.push(lineBytes);
    if (index >= o.from) return index + 1 === end && around.after === 0;
    bytesBefore += lineBytes;
    if (tooLong) {
      head = kept.length;
      bytesBefore = 0;
    }
    for (; bytesBefore > around.bytes; head++) bytesBefore -= sizes[head];
    return false;
  };
  try {
    for await (const read of text as AsyncIterable<Buffer>) {
      if (o.cancelled?.()) throw cancelledError();
      passed += read.length;
      const chunk = skip > 0 ? read.subarray(Math.min(skip, read.length)) : read;
      skip -= read.length - chunk.length;
      for (let from = 0; from < chunk.length; ) {
        const newline = chunk.indexOf(10, from);
        const to = newline < 0 ? chunk.length : newline;
        if (blank) blank = onlyWhiteSpace(chunk, from, to);
        if (records >= start) {
          lineBytes += to - from;
          if (lineBytes <= MAX_LINE_BYTES) line.push(chunk.subarray(from, to));
          else if (records >= o.from && records < end) throw new Error(`Record ${records + 1} of ${path} is longer than ${MAX_LINE_BYTES} bytes.`);
          else line = [];
        }
        if (newline < 0) break;
        if (keep()) return span(false);
        blank = true;
        line = [];
        lineBytes = 0;
        from = newline + 1;
      }
    }
    // the last line may have no line end; a span that leaves it out does not reach the file's end
    const complete = keep();
    if (restart && !complete && records !== restart.total) throw new RestartMismatch(`${records} records read from a restart point, not ${restart.total}`);
    return span(!complete);
  } catch (err) {
    if (restart || !isZlibError(err)) throw err;
    if (records >= end) return span(false);
    throw damaged(path, err, records);
  } finally {
    file?.destroy();
    if (text !== file) text.destroy();
    if (passed >= COLLECT_AFTER_BYTES && collectGarbage) setImmediate(collectGarbage);
  }
}

/** A gzip file that cannot be decompressed to its end; `records` whole records come before the damage. */
export class DamagedFile extends EngineError {
  constructor(
    message: string,
    readonly records: number,
  ) {
    super('corrupt', message);
  }
}

/** A gzip file that cannot be decompressed: cut short (a download that stopped early) or garbled. */
function damaged(path: string, err: Error & { code: string }, records: number): DamagedFile {
  return damagedFile(path, err.code, records);
}

/** A gzip file zlib failed on with `code` after `records` whole records. */
export function damagedFile(path: string, code: string, records: number): DamagedFile {
  const how = code === 'Z_BUF_ERROR' ? 'it ends early' : 'its compressed data is garbled';
  return new DamagedFile(`${basename(path)} is damaged (${how}): download the job again.`, records);
}

function isCancelled(err: unknown): boolean {
  return err instanceof EngineError && err.kind === 'cancelled';
}

/** A line's text (a CR before its line feed stays: it is white space to the JSON parser). */
function lineText(parts: Buffer[]): string {
  return (parts.length === 1 ? parts[0] : Buffer.concat(parts)).toString('utf8');
}

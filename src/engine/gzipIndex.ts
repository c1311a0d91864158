// Restart points inside a gzip file, so that a far window of its records is read from a point
// near it instead of from the file's start (fileLines.ts). A gzip file cannot be entered in the
// middle: its deflate data only decodes from the start, and back-references reach 32 KiB into
// what came before. So while a file is read to its end anyway (fileEnds.ts: the count, the
// check that it is whole), the inflater is made to stop at deflate block boundaries (Z_BLOCK),
// and every few MiB of output one of them becomes a checkpoint: the compressed offset where the
// next block starts, the 32 KiB of output before it (kept in a file of windows, not in memory),
// and the first line that starts after it. From a checkpoint a raw inflater, given the window as
// its dictionary, decodes the rest of the file.
//
// A block may start inside a byte: zlib knows how many bits of the last byte it read are left
// over, but Node does not tell. So the leftover bits are found by trial: for each of the eight
// counts, a restart is decoded and its first bytes compared with the output the read saw; one
// count gives them. To feed a stream that starts inside a byte, the restart puts empty deflate
// blocks in front of it (they add no output) whose lengths bring the block's first bit to a
// byte's first bit.
//
// Only Node's own zlib does the work; its handle is driven directly (`_handle.writeSync`,
// `_writeState`), as Node's own synchronous zlib functions drive it. Where that is missing the
// read reports it as unsupported, and the caller reads the file as before, without an index.
// A file of several gzip members, or with bytes after its member, gets no index.

import { closeSync, createReadStream, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { constants, createGunzip, createInflateRaw, type Gunzip, type InflateRaw } from 'node:zlib';

/** What back-references reach: the dictionary of a restart. */
export const WINDOW_BYTES = 32 * 1024;
/** A checkpoint at most every this many bytes of output. */
export const CHECKPOINT_EVERY = 4 * 1024 * 1024;
const IN_CHUNK = 1024 * 1024;
const OUT_CHUNK = 1024 * 1024;
/** bytes of output compared to tell the leftover bits of a checkpoint */
const TRIAL_OUTPUT = 256;
/** compressed bytes a trial decodes at most: a block header and enough symbols for TRIAL_OUTPUT */
const TRIAL_INPUT = 8 * 1024;
const NEWLINE = 0x0a;

export interface Checkpoint {
  /** compressed offset of the first byte after the bits leftover in `lastByte` */
  input: number;
  /** the byte before `input`, whose top `bits` bits begin the block */
  lastByte: number;
  bits: number;
  /** output offset of the checkpoint */
  output: number;
  /** output bytes from the checkpoint to the first line that starts after it */
  skip: number;
  /** records (lines of more than white space) before that line */
  records: number;
  /** where its window lies in the windows file (its length: `output`, at most WINDOW_BYTES) */
  window: number;
}

export interface GzipIndex {
  /** the file of windows */
  windows: string;
  /** the gzip file's size: its deflate data ends 8 bytes before */
  size: number;
  /** the file's records */
  records: number;
  checkpoints: Checkpoint[];
}

/** A file read to its end: its records, and restart points when it could be indexed. */
export interface IndexedRead {
  records: number;
  index?: GzipIndex;
}

/** The file could not be decompressed to its end; `records` whole records came before. */
export class GzipDamage extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly records: number,
  ) {
    super(message);
  }
}

/** Node's zlib does not let its handle be driven here: read the file without an index. */
export class IndexUnsupported extends Error {}

interface ZlibHandle {
  writeSync(flush: number, input: Buffer, inOff: number, inLen: number, out: Buffer, outOff: number, outLen: number): void;
}

/** The handle and write state of a zlib stream (see the note at the top). */
function driven(stream: Gunzip | InflateRaw): { handle: ZlibHandle; state: Uint32Array } {
  const inner = stream as unknown as { _handle?: Partial<ZlibHandle>; _writeState?: Uint32Array };
  if (typeof inner._handle?.writeSync !== 'function' || !(inner._writeState instanceof Uint32Array)) {
    stream.close();
    throw new IndexUnsupported("This Node's zlib cannot be driven block by block.");
  }
  stream.on('error', () => undefined); // read from `errored` after each write
  return { handle: inner._handle as ZlibHandle, state: inner._writeState };
}

interface Pending {
  input: number;
  lastByte: number;
  output: number;
  window: Buffer;
  /** output after the checkpoint, for the trials */
  seen: Buffer[];
  seenBytes: number;
  bits?: number;
  skip?: number;
  records?: number;
}

/**
 * Reads the gzip file at `path` to its end, counting its records (lines of more than white
 * space) and writing the windows of its checkpoints to `windows`. Synchronous: run it on a
 * thread of its own (gzipIndexWorker.ts). Throws GzipDamage when the file is cut short or
 * garbled, IndexUnsupported when zlib cannot be driven so, and stops with an Error once
 * `cancelled()` holds (asked between blocks).
 */
export function indexGzipFile(path: string, o: { windows: string; every?: number; cancelled?: () => boolean }): IndexedRead {
  const every = o.every ?? CHECKPOINT_EVERY;
  const gunzip = createGunzip();
  const { handle, state } = driven(gunzip);
  const fd = openSync(path, 'r');
  let windowsFd: number | undefined;
  try {
    const size = fstatSync(fd).size;
    const out = Buffer.allocUnsafe(OUT_CHUNK);
    let input: Buffer = Buffer.alloc(0);
    /** file offset of input[0], of the next unread byte, and of the next unconsumed one in `input` */
    let inputStart = 0;
    let readTo = 0;
    let at = 0;
    let total = 0;
    let records = 0;
    let blank = true;
    let tail: Buffer = Buffer.alloc(0);
    let nextAt = every;
    let pending: Pending | undefined;
    const checkpoints: Checkpoint[] = [];

    const refill = (): void => {
      if (input.length - at >= IN_CHUNK / 2 || readTo >= size) return;
      const chunk = Buffer.allocUnsafe(Math.min(IN_CHUNK, size - readTo));
      const got = readSync(fd, chunk, 0, chunk.length, readTo);
      readTo += got;
      input = Buffer.concat([input.subarray(at), chunk.subarray(0, got)]);
      inputStart += at;
      at = 0;
    };
    /** Counts the records of a piece of output, and places the pending checkpoint's first line. */
    const lines = (bytes: Buffer, offset: number): void => {
      for (let from = 0; from < bytes.length; ) {
        const newline = bytes.indexOf(NEWLINE, from);
        const to = newline < 0 ? bytes.length : newline;
        if (blank) blank = onlyWhiteSpace(bytes, from, to);
        if (newline < 0) return;
        if (!blank) records++;
        blank = true;
        if (pending && pending.skip === undefined) {
          pending.skip = offset + newline + 1 - pending.output;
          pending.records = records;
        }
        from = newline + 1;
      }
    };
    const settle = (): void => {
      if (!pending || pending.bits === undefined || pending.skip === undefined) return;
      windowsFd ??= openSync(o.windows, 'w', 0o600);
      const window = checkpoints.length * WINDOW_BYTES;
      writeSync(windowsFd, pending.window, 0, pending.window.length, window);
      checkpoints.push({ input: pending.input, lastByte: pending.lastByte, bits: pending.bits, output: pending.output, skip: pending.skip, records: pending.records!, window });
      pending = undefined;
    };
    const tryBits = (p: Pending): void => {
      const expected = Buffer.concat(p.seen).subarray(0, TRIAL_OUTPUT);
      const compressed = Buffer.allocUnsafe(Math.min(TRIAL_INPUT, size - p.input));
      readSync(fd, compressed, 0, compressed.length, p.input);
      p.seen = [];
      const bits = [0, 1, 2, 3, 4, 5, 6, 7].find((b) => decodes(p.window, p.lastByte, b, compressed, expected));
      if (bits === undefined) pending = undefined; // not a block boundary after all: no checkpoint here
      else p.bits = bits;
    };

    for (;;) {
      if (o.cancelled?.()) throw new Error('The read was cancelled.');
      refill();
      const available = input.length - at;
      const last = readTo >= size && available === 0;
      handle.writeSync(last ? constants.Z_FINISH : constants.Z_BLOCK, input, at, available, out, 0, OUT_CHUNK);
      if (gunzip.errored) {
        const err = gunzip.errored as Error & { code?: string };
        throw new GzipDamage(err.message, err.code ?? 'Z_DATA_ERROR', records);
      }
      const produced = OUT_CHUNK - state[0];
      const consumed = available - state[1];
      at += consumed;
      if (produced > 0) {
        const piece = out.subarray(0, produced);
        lines(piece, total);
        if (pending && pending.bits === undefined) {
          pending.seen.push(Buffer.from(piece.subarray(0, TRIAL_OUTPUT - pending.seenBytes)));
          pending.seenBytes = Math.min(TRIAL_OUTPUT, pending.seenBytes + produced);
          if (pending.seenBytes >= TRIAL_OUTPUT) tryBits(pending);
        }
        settle();
        total += produced;
        tail = produced >= WINDOW_BYTES ? Buffer.from(piece.subarray(produced - WINDOW_BYTES)) : Buffer.concat([tail, piece]).subarray(-WINDOW_BYTES);
      }
      // a finish that filled the output has more to give
      if (last && state[0] > 0) break;
      if (last) continue;
      if (consumed === 0 && produced === 0) {
        // the stream ended with bytes after it (zero padding): the next write finishes it
        readTo = size;
        at = input.length;
        continue;
      }
      // stopped with room for output and input left: at a block's start (or a member's)
      if (state[0] > 0 && state[1] > 0 && !pending && total >= nextAt) {
        const offset = inputStart + at;
        pending = { input: offset, lastByte: offset > 0 ? readByte(fd, offset - 1) : 0, output: total, window: Buffer.from(tail), seen: [], seenBytes: 0 };
        nextAt = total + every;
      }
    }
    if (!blank) records++;
    // a file of one member and nothing after it ends with the size of its output
    const single = size >= 8 && readUInt32At(fd, size - 4) === total % 2 ** 32;
    return { records, ...(single && checkpoints.length > 0 ? { index: { windows: o.windows, size, records, checkpoints } } : {}) };
  } finally {
    closeSync(fd);
    if (windowsFd !== undefined) closeSync(windowsFd);
    gunzip.close();
  }
}

/** Whether a restart with `bits` leftover bits decodes `expected` first. */
function decodes(window: Buffer, lastByte: number, bits: number, compressed: Buffer, expected: Buffer): boolean {
  const inflate = createInflateRaw(window.length > 0 ? { dictionary: window } : {});
  try {
    const { handle, state } = driven(inflate);
    const start = Buffer.concat([restartHead(lastByte, bits), compressed]);
    const out = Buffer.alloc(expected.length);
    handle.writeSync(constants.Z_SYNC_FLUSH, start, 0, start.length, out, 0, out.length);
    return !inflate.errored && state[0] === 0 && out.equals(expected);
  } finally {
    inflate.close();
  }
}

/**
 * The decompressed bytes of the file from a checkpoint on (to the end of its deflate data),
 * as a stream; the reader skips `checkpoint.skip` bytes to reach a line's start. `file` is its
 * path, or the file opened already (then closed with the stream).
 */
export async function streamFrom(file: string | FileHandle, index: GzipIndex, checkpoint: Checkpoint, chunkSize = OUT_CHUNK): Promise<InflateRaw> {
  const window = Buffer.alloc(Math.min(WINDOW_BYTES, checkpoint.output));
  const fd = openSync(index.windows, 'r');
  try {
    readSync(fd, window, 0, window.length, checkpoint.window);
  } finally {
    closeSync(fd);
  }
  const inflate = createInflateRaw({ chunkSize, ...(window.length > 0 ? { dictionary: window } : {}) });
  const head = restartHead(checkpoint.lastByte, checkpoint.bits);
  const range = { start: checkpoint.input, end: index.size - 9, highWaterMark: chunkSize };
  const rest = typeof file === 'string' ? createReadStream(file, range) : file.createReadStream(range);
  const source = Readable.from(
    (async function* () {
      yield head;
      yield* rest;
    })(),
  );
  source.on('error', (err) => inflate.destroy(err));
  inflate.on('close', () => {
    source.destroy();
    rest.destroy();
  });
  source.pipe(inflate);
  return inflate;
}

/**
 * Bits in front of a block that starts `bits` bits before the end of `lastByte`: empty
 * deflate blocks whose lengths make the block's first bit a byte's first, then those bits.
 * Whole bytes; empty when the block starts on a byte.
 */
export function restartHead(lastByte: number, bits: number): Buffer {
  const out = new BitWriter();
  // an empty fixed block is 10 bits, the empty dynamic block below 99: together any length mod 8
  const pad = (8 - bits) % 8;
  const plan: Record<number, string> = { 0: '', 2: 'F', 4: 'FF', 6: 'FFF', 3: 'D', 5: 'DF', 7: 'DFF', 1: 'DFFF' };
  for (const block of plan[pad]) {
    if (block === 'F') emptyFixedBlock(out);
    else emptyDynamicBlock(out);
  }
  if (bits > 0) out.bits(lastByte >> (8 - bits), bits);
  return out.bytes();
}

/** Writes bits as deflate packs them: values from their lowest bit, Huffman codes from their highest. */
class BitWriter {
  private readonly done: number[] = [];
  private current = 0;
  private used = 0;

  bits(value: number, count: number): void {
    for (let i = 0; i < count; i++) this.bit((value >> i) & 1);
  }

  code(code: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) this.bit((code >> i) & 1);
  }

  bytes(): Buffer {
    if (this.used !== 0) throw new Error('The restart head does not end on a byte.');
    return Buffer.from(this.done);
  }

  private bit(b: number): void {
    this.current |= b << this.used;
    if (++this.used === 8) {
      this.done.push(this.current);
      this.current = 0;
      this.used = 0;
    }
  }
}

/** A block that is not the last, with fixed codes and nothing but its end: 10 bits. */
function emptyFixedBlock(out: BitWriter): void {
  out.bits(0, 1); // not the last block
  out.bits(1, 2); // fixed codes
  out.code(0, 7); // end of block (symbol 256)
}

/**
 * A block that is not the last, with dynamic codes and nothing but its end: 99 bits. Its
 * literal/length code has only the end-of-block symbol (length 1) and no distance code; the
 * code-length code has four symbols of 2 bits: 0, 1, 17 and 18.
 */
function emptyDynamicBlock(out: BitWriter): void {
  out.bits(0, 1); // not the last block
  out.bits(2, 2); // dynamic codes
  out.bits(0, 5); // 257 literal/length codes
  out.bits(0, 5); // 1 distance code
  out.bits(14, 4); // 18 code-length code lengths, in the order below
  const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1];
  const used: Record<number, number> = { 0: 2, 1: 2, 17: 2, 18: 2 };
  for (const symbol of order) out.bits(used[symbol] ?? 0, 3);
  // canonical codes of the code-length symbols, all of length 2: 0, 1, 17, 18 in that order
  const code: Record<number, number> = { 0: 0, 1: 1, 17: 2, 18: 3 };
  // lengths of the 257 literal/length codes: 256 zeros (138 + 108 + 10), then 1 for symbol 256
  out.code(code[18], 2);
  out.bits(138 - 11, 7);
  out.code(code[18], 2);
  out.bits(108 - 11, 7);
  out.code(code[17], 2);
  out.bits(10 - 3, 3);
  out.code(code[1], 2);
  // the one distance code: none (length 0)
  out.code(code[0], 2);
  // the block's only symbol: end of block, code 0 of length 1
  out.code(0, 1);
}

function readByte(fd: number, offset: number): number {
  const byte = Buffer.alloc(1);
  readSync(fd, byte, 0, 1, offset);
  return byte[0];
}

function readUInt32At(fd: number, offset: number): number {
  const bytes = Buffer.alloc(4);
  readSync(fd, bytes, 0, 4, offset);
  return bytes.readUInt32LE(0);
}

/** Whether bytes `start` to `end` are only white space (a line of them is no record). */
export function onlyWhiteSpace(bytes: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  }
  return true;
}

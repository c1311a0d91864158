// What the engine learns from a result's files before reading them: that they exist, their
// format (named, or sniffed from content) and whether they are gzip-compressed (by magic
// bytes, never by name). A file with no content at all (an incremental result with nothing
// new, a 0-byte object) tells nothing and holds no rows: format and compression come from the
// first file with content, and the files without any are left out. When every file is empty
// the name's extension tells the format. Gzip-compressed Parquet, which DuckDB cannot read, is
// unpacked into the engine's temporary folder (unpackedFiles.ts).

import { open, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import { isGzipMagic } from '../core/contract';
import { sniffFormat } from '../core/formatSniffer';
import { EngineError } from './engineErrors';
import type { ResultFormat, ResultSource } from './engineProtocol';

const HEAD_BYTES = 64 * 1024;

export interface InspectedFiles {
  format: ResultFormat;
  gzip: boolean;
  /** the files DuckDB reads */
  paths: string[];
  /** files unpacked for this source (each taken from the unpacker): to release when it closes */
  unpacked: string[];
}

/** Unpacks a gzip file (Parquet) for DuckDB: the copy's path. */
export interface Unpacker {
  take(path: string): Promise<string>;
  release(paths: readonly string[]): Promise<void>;
}

export async function inspectFiles(source: ResultSource, unpacker: Unpacker): Promise<InspectedFiles> {
  if (source.paths.length === 0) throw new EngineError('io', 'There are no files to open: download the job first.');
  const heads: Buffer[] = [];
  for (const path of source.paths) heads.push(await readHead(path));
  const empty = heads.map(isEmpty);
  const format = source.format ?? formatOf(source.paths, heads, empty);
  const files = readFiles(source.paths, heads, empty);
  const gzip = isGzipMagic(heads[files[0]]);
  const paths = files.map((i) => source.paths[i]);
  if (format !== 'parquet' || !gzip) return { format, gzip, paths, unpacked: [] };
  const unpacked: string[] = [];
  try {
    for (const path of paths) unpacked.push(await unpacker.take(path));
  } catch (err) {
    await unpacker.release(unpacked);
    throw err;
  }
  return { format, gzip: false, paths: unpacked, unpacked };
}

/**
 * The files to read, by index: those with content; when none has any, those that are more
 * than 0 bytes (gzip of nothing: the reader takes them for no rows), else the first.
 */
function readFiles(paths: readonly string[], heads: readonly Buffer[], empty: readonly boolean[]): number[] {
  const all = paths.map((_, i) => i);
  const withContent = all.filter((i) => !empty[i]);
  if (withContent.length > 0) return withContent;
  const written = all.filter((i) => heads[i].length > 0);
  return written.length > 0 ? written : [0];
}

const NAMED_FORMAT = /\.(jsonl|csv|tsv|parquet)(\.gz)?$/i;

/** The format of the first file with content; the name's when no file has any. */
function formatOf(paths: readonly string[], heads: readonly Buffer[], empty: readonly boolean[]): ResultFormat {
  for (const [i, head] of heads.entries()) {
    if (empty[i]) continue;
    const format = sniffFormat(head);
    if (format) return format;
    throw new EngineError('corrupt', `${basename(paths[i])} is not a result file (gzip JSONL, CSV, TSV or Parquet). Open a file that a job downloaded.`);
  }
  const named = NAMED_FORMAT.exec(paths[0])?.[1];
  if (named) return named.toLowerCase() as ResultFormat;
  throw new EngineError('corrupt', `${basename(paths[0])} holds no records, and its name does not say which format it is in. Open the files through their job (the Jobs view) instead.`);
}

/** A file with no content: zero bytes, or gzip of nothing (inflated only as far as its first byte). */
function isEmpty(head: Buffer): boolean {
  if (!isGzipMagic(head)) return head.length === 0;
  try {
    return gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: 1 }).length === 0;
  } catch {
    // more than a byte of content (ERR_BUFFER_TOO_LARGE), or damaged data: the reader says which
    return false;
  }
}

async function openReadable(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (err) {
    throw new EngineError('io', `Cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'}). Check that the file still exists.`);
  }
}

async function readHead(path: string): Promise<Buffer> {
  const file = await openReadable(path);
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

// What the engine learns from a result's files before reading them: that they exist, their
// format (named, or sniffed from content) and whether they are gzip-compressed (by magic
// bytes, never by name). A file with no content at all (an incremental result with nothing
// new) tells nothing, so the next file is asked, and when every file is empty the name's
// extension is. Gzip-compressed Parquet, which DuckDB cannot read, is unpacked into the
// engine's temporary folder.

import { createReadStream, createWriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { constants, createGunzip, gunzipSync } from 'node:zlib';
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
  /** files unpacked for this source, to delete when it closes */
  unpacked: string[];
}

export async function inspectFiles(source: ResultSource, unpackDir: string): Promise<InspectedFiles> {
  if (source.paths.length === 0) throw new EngineError('io', 'There are no files to open: download the job first.');
  const heads: Buffer[] = [];
  for (const path of source.paths) heads.push(await readHead(path));
  const format = source.format ?? formatOf(source.paths, heads);
  const gzip = isGzipMagic(heads[0]);
  if (format !== 'parquet' || !gzip) return { format, gzip, paths: source.paths, unpacked: [] };
  const stamp = Date.now().toString(36);
  const paths = await Promise.all(source.paths.map((p, i) => gunzipInto(p, join(unpackDir, `unpacked-${stamp}-${i}.parquet`))));
  return { format, gzip: false, paths, unpacked: paths };
}

const NAMED_FORMAT = /\.(jsonl|csv|tsv|parquet)(\.gz)?$/i;

/** The format of the first file with content; the name's when no file has any. */
function formatOf(paths: readonly string[], heads: readonly Buffer[]): ResultFormat {
  for (const [i, head] of heads.entries()) {
    if (isEmpty(head)) continue;
    const format = sniffFormat(head);
    if (format) return format;
    throw new EngineError('corrupt', `${basename(paths[i])} is not a result file (gzip JSONL, CSV, TSV or Parquet). Open a file that a job downloaded.`);
  }
  const named = NAMED_FORMAT.exec(paths[0])?.[1];
  if (named) return named.toLowerCase() as ResultFormat;
  throw new EngineError('corrupt', `${basename(paths[0])} holds no records, and its name does not say which format it is in. Open the files through their job (the Jobs view) instead.`);
}

/** A file with no content: zero bytes, or gzip of nothing. */
function isEmpty(head: Buffer): boolean {
  if (!isGzipMagic(head)) return head.length === 0;
  try {
    return gunzipSync(head, { finishFlush: constants.Z_SYNC_FLUSH }).length === 0;
  } catch {
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

async function gunzipInto(path: string, target: string): Promise<string> {
  try {
    await pipeline(createReadStream(path), createGunzip(), createWriteStream(target));
  } catch {
    throw new EngineError('corrupt', `${basename(path)} is a damaged gzip file. Download the job again.`);
  }
  return target;
}

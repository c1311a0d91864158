// File names derived from data the service controls (object ids) must never escape the
// target folder or collide. Everything here is pure string work, safe on every platform.

import { createHash } from 'node:crypto';
import * as path from 'node:path';

/** Names Windows refuses as file names, whatever the extension. */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f<>:"/\\|?*]/g;

export const MAX_FILE_NAME_LENGTH = 120;

/**
 * Turns arbitrary text into one safe path segment: no separators, no `..`, no control or
 * reserved characters, no reserved Windows names, no trailing dots or spaces, bounded length.
 * Never returns an empty string.
 */
export function sanitizeFileName(name: string, maxLength = MAX_FILE_NAME_LENGTH): string {
  let s = name.normalize('NFC').replace(UNSAFE_CHARS, '_');
  s = s.replace(/\.{2,}/g, '_'); // no `..` anywhere
  s = s.replace(/^[.\s]+/, '').replace(/[.\s]+$/, ''); // no hidden, no trailing dot/space
  if (WINDOWS_RESERVED.test(s)) s = `_${s}`;
  if (s.length > maxLength) s = s.slice(0, maxLength).replace(/[.\s]+$/, '');
  return s.length > 0 ? s : '_';
}

/** A short, stable hash of an id, so distinct ids always give distinct names. */
export function shortHash(text: string, length = 10): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, length);
}

/**
 * The base name (without extension) of a job's result object: `part-00000-<hash of id>`.
 * The object id is never used as a path; its hash keeps names distinct and stable.
 */
export function objectFileBaseName(objectId: string, index: number): string {
  return `part-${String(index).padStart(5, '0')}-${shortHash(objectId)}`;
}

/** File extension for a result object from the job's format and whether the file on disk is gzip. */
export function resultFileExtension(format: string | undefined, gzip: boolean): string {
  const known = format === 'jsonl' || format === 'csv' || format === 'tsv' || format === 'parquet';
  const base = known ? `.${format}` : '.bin';
  return gzip ? `${base}.gz` : base;
}

/** Joins a sanitised name to `dir` and proves the result stays directly inside `dir`. */
export function safeJoin(dir: string, name: string): string {
  return directlyInside(dir, sanitizeFileName(name, 255));
}

/**
 * A hidden file beside `name` that belongs to one download run: `.<name>.<runId>.<role>`,
 * e.g. `.part-00000-1a2b3c4d5e.9f8e7d6c5b4a.part`. The run id keeps two runs into the same
 * folder from ever sharing one; the leading dot keeps it out of plain listings.
 */
export function runFilePath(dir: string, name: string, runId: string, role: 'part' | 'old'): string {
  return directlyInside(dir, `.${sanitizeFileName(`${name}.${runId}.${role}`, 254)}`);
}

function directlyInside(dir: string, safeName: string): string {
  const root = path.resolve(dir);
  const full = path.resolve(root, safeName);
  if (path.dirname(full) !== root) {
    throw new Error(`refusing a file name outside ${root}`);
  }
  return full;
}

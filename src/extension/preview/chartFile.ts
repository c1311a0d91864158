// A chart's image as the chart's page hands it over (SVG text, or PNG as base64), checked and
// written: to a file beside the target first, then renamed over it, so a failed or refused
// write leaves no half-written file and never harms a file that was there.

import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DqError } from '../../client/errors';
import type { ImageFormat } from '../../webview/chart/chartMessages';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image format a file's extension names (`.svg` or `.png`, in any case), or undefined. */
export function imageFormatOf(file: string): ImageFormat | undefined {
  const ext = path.extname(file).toLowerCase();
  return ext === '.svg' ? 'svg' : ext === '.png' ? 'png' : undefined;
}

/** The file's bytes, once they are what the format says: an SVG document, or a PNG image. */
export function imageBytes(format: ImageFormat, data: string): Buffer {
  if (format === 'svg') {
    if (!/^\s*(<\?xml[^>]*>\s*)?<svg[\s>]/.test(data) || !/<\/svg>\s*$/.test(data)) throw new DqError('invalidResponse', 'The chart did not come back as an SVG document; nothing was written.');
    return Buffer.from(data, 'utf8');
  }
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length <= PNG_SIGNATURE.length || !bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) {
    throw new DqError('invalidResponse', 'The chart did not come back as a PNG image; nothing was written.');
  }
  return bytes;
}

/** Writes `bytes` to `file` through a file beside it, renamed over it once complete; removed if anything fails. */
export async function writeWhole(file: string, bytes: Buffer): Promise<void> {
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.partial`);
  try {
    await fs.writeFile(partial, bytes, { flag: 'wx' });
    await fs.rename(partial, file);
  } catch (err) {
    await fs.rm(partial, { force: true }).catch(() => undefined);
    const reason = err instanceof Error ? err.message : String(err);
    throw new DqError('io', `The chart could not be saved to ${file}: ${reason}`, { hint: 'Choose a folder you can write to.' });
  }
}

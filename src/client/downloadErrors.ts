// The errors an object download ends with, each with what went wrong and what to do next:
// cancelled, refused links, redirects, sizes that disagree or exceed the limit, a host that
// trickles, and limits given wrongly by a caller.

import { formatBytes } from '../core/byteSize';
import { formatDuration } from '../core/durationText';
import { cancelledError, DqError } from './errors';

export function downloadCancelled(): DqError {
  return cancelledError('The download', { operation: 'download' });
}

export function linkRefused(label: string, status: number, times: number): DqError {
  return new DqError('server', `The download link for ${label} was refused (HTTP ${status}) ${times} times in a row, with fresh links and no progress`, {
    status,
    operation: 'download',
    details: { refusedInARow: times },
    hint: 'The results may have expired (about 24 hours after the job started); run the query again.',
  });
}

/**
 * The object host sent the download elsewhere. Redirects are not followed (a link is fetched
 * from the host the service named, and nowhere else), so trying again cannot help.
 */
export function redirected(status: number, location: string | string[] | undefined, label: string): DqError {
  const to = Array.isArray(location) ? location[0] : location;
  let where = 'to another address';
  try {
    if (to) where = `to ${new URL(to).host}`;
  } catch {
    /* a relative or unreadable Location: the same host, or nowhere in particular */
  }
  return new DqError('server', `The host of the download link for ${label} redirected it ${where} (HTTP ${status}), which this client does not follow`, {
    status,
    operation: 'download',
    hint: 'Trying again will not help: tell the data provider that its download links redirect, which they should not.',
  });
}

export function sizeMismatch(label: string, expected: number, got: number): DqError {
  return new DqError('invalidResponse', `The size of ${label} does not match: expected ${expected} bytes, got ${got}`, {
    operation: 'download',
    hint: 'The file was not kept. Download it again; if the sizes keep disagreeing, run the query again.',
  });
}

export function longerThanAnnounced(label: string, announced: number): DqError {
  return new DqError('invalidResponse', `The object host sent more of ${label} than the ${announced} bytes it announced`, {
    operation: 'download',
    hint: 'The file was not kept. Download it again; if it happens again, run the query again.',
  });
}

export function objectTooLarge(label: string, max: number, announced?: number): DqError {
  const size = announced === undefined ? 'is larger than' : `is ${formatBytes(announced)}, more than`;
  return new DqError('invalidResponse', `${capitalised(label)} ${size} the ${formatBytes(max)} this client downloads for one result file`, {
    operation: 'download',
    details: { maxObjectBytes: max, ...(announced === undefined ? {} : { announcedBytes: announced }) },
    hint: 'The file was not kept. Result files are typically up to about 500 MB, so the link probably leads somewhere else; if files this large are expected, raise the limit (maxObjectBytes).',
  });
}

export function tooSlow(label: string, got: number, windowMs: number, perSecond: number): DqError {
  return new DqError('network', `The object host sent ${label} too slowly: ${got} bytes in ${formatDuration(windowMs, 'long')}, less than ${formatBytes(perSecond)} a second`, {
    operation: 'download',
    details: { bytesInWindow: got, windowMs },
    hint: 'The network or the object host is overloaded; try again later, or check the network and proxy.',
  });
}

/** A limit given by a caller: a whole number of at least 1 (a usage error otherwise). */
export function limitOption(name: string, value: number): number {
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new DqError('usage', `The download option ${name} must be a whole number of at least 1, not ${String(value)}`, { operation: 'download', hint: `Fix ${name} where the download is started.` });
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// Downloads one pasted pre-signed URL into `<results>/links/` with the client's object
// downloader: no credential of any kind goes to the link's host, the file is staged and
// renamed only when complete, gzip is recognised by content. The file is named from a hash
// of the link without its query (the signature), never from the URL's own file name.

import type { Dispatcher } from 'undici';
import { DqError } from '../client/errors';
import { ObjectDownloader } from '../client/objectDownloader';
import { DEFAULT_MAX_WAIT_MS } from '../client/retryPolicy';
import { checkUrl } from '../client/serviceUrls';
import type { DownloadProgress } from '../client/types';
import type { Clock } from '../core/clock';
import { safeUrl, type Logger } from '../core/logger';
import { shortHash } from '../core/paths';
import { storedFile, type StoredFile } from './jobEntry';
import { linksFolder } from './resultsLayout';

export interface LinkDownloadOptions {
  url: string;
  resultsRoot: string;
  dispatcher: Dispatcher;
  clock: Clock;
  logger: Logger;
  userAgent: string;
  decompress?: boolean;
  sha256?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: DownloadProgress) => void;
}

export async function downloadLink(options: LinkDownloadOptions): Promise<StoredFile> {
  const url = checkUrl(options.url.trim(), false, 'link');
  const objectId = shortHash(`${url.origin}${url.pathname}`, 16);
  const downloader = new ObjectDownloader({
    dispatcher: options.dispatcher,
    clock: options.clock,
    logger: options.logger,
    userAgent: options.userAgent,
    retry: { maxRetries: 4, baseMs: 500, maxMs: 30_000, maxWaitMs: DEFAULT_MAX_WAIT_MS, random: Math.random },
    requestTimeoutMs: 60_000,
    allowInsecureHttp: false,
    // a pasted link cannot be renewed: every attempt uses it as given
    freshUrl: async () => url.href,
  });
  options.logger.info(`Downloading a pasted link from ${safeUrl(url.href)}.`);
  const [file] = await downloader.download(
    { id: objectId, status: 'complete', objects: [{ id: objectId }] },
    { dir: linksFolder(options.resultsRoot), decompress: options.decompress, sha256: options.sha256, signal: options.signal, onProgress: options.onProgress },
  );
  if (!file) throw new DqError('invalidResponse', 'The link gave no file.', { hint: 'Copy the link again; it may have expired.' });
  return storedFile(file);
}

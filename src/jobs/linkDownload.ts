// Downloads one pasted pre-signed URL into `<results>/links/` with the client's object
// downloader: no credential of any kind goes to the link's host, the file is staged and
// renamed only when complete, gzip is recognised by content. The file is named from a hash
// of the link without its query (the signature), never from the URL's own file name.
// A pasted link cannot be renewed: its first refusal (403/404) ends the download as expired
// or revoked, and every failure's advice speaks of the link, not of a connection or a query.

import type { Dispatcher } from 'undici';
import { DqError, isDqError } from '../client/errors';
import { ObjectDownloader } from '../client/objectDownloader';
import { defaultRetryPolicy, errorCode } from '../client/retryPolicy';
import { isLoopbackHost } from '../client/serviceUrls';
import type { DownloadProgress } from '../client/types';
import type { Clock } from '../core/clock';
import { parseHttpUrl } from '../core/httpUrl';
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

const NEW_LINK = 'Ask whoever shared it for a new link (Copy Result Link on a complete job makes one).';

export async function downloadLink(options: LinkDownloadOptions): Promise<StoredFile> {
  const url = linkUrl(options.url);
  const objectId = shortHash(`${url.origin}${url.pathname}`, 16);
  const downloader = new ObjectDownloader({
    dispatcher: options.dispatcher,
    clock: options.clock,
    logger: options.logger,
    userAgent: options.userAgent,
    retry: defaultRetryPolicy(),
    requestTimeoutMs: 60_000,
    allowInsecureHttp: false,
    // a pasted link cannot be renewed: every attempt uses it as given, and its first refusal is final
    freshUrl: async () => url.href,
    maxRefusalsInARow: 1,
    objectName: 'the linked file',
  });
  options.logger.info(`Downloading a pasted link from ${safeUrl(url.href)}.`);
  const [file] = await downloader
    .download(
      { id: objectId, status: 'complete', objects: [{ id: objectId }] },
      { dir: linksFolder(options.resultsRoot), decompress: options.decompress, sha256: options.sha256, signal: options.signal, onProgress: options.onProgress },
    )
    .catch((err: unknown) => {
      throw linkFailure(err);
    });
  if (!file) throw new DqError('invalidResponse', 'The link gave no file.', { hint: `Copy the link again; it may have expired. ${NEW_LINK}` });
  return storedFile(file);
}

/** The pasted text as a link that may be fetched: http(s), and plain http only to this machine. */
function linkUrl(raw: string): URL {
  const parsed = parseHttpUrl(raw.trim());
  if (!parsed.url) throw new DqError('usage', 'That is not a download link', { hint: `${parsed.problem} Paste the whole link as it was shared.` });
  const url = parsed.url;
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new DqError('insecure', `Refusing a plain http link to ${url.host}: the data would travel unencrypted`, {
      hint: 'Ask whoever shared it for an https:// link.',
    });
  }
  return url;
}

/** A failed download of a pasted link, with advice about the link. */
function linkFailure(err: unknown): unknown {
  if (!isDqError(err)) return err;
  if (err.details?.refusedInARow !== undefined) {
    return new DqError('notFound', `The link was refused (HTTP ${String(err.status)}): it has expired or was revoked`, {
      status: err.status,
      operation: 'download',
      hint: `Pre-signed links last about 15 minutes. ${NEW_LINK}`,
    });
  }
  const hint = linkHint(err);
  if (hint === undefined) return err;
  return new DqError(err.kind, err.message, { status: err.status, type: err.type, uuid: err.uuid, operation: err.operation, details: err.details, hint, cause: err.cause });
}

function linkHint(err: DqError): string | undefined {
  switch (err.kind) {
    case 'network':
      return networkHint(errorCode(err));
    case 'server':
      return err.status !== undefined && (err.status === 429 || err.status >= 500)
        ? 'The link\'s host had a problem; open the link again in a while.'
        : `The link's host would not give the file. ${NEW_LINK}`;
    case 'invalidResponse':
      return `The file was not kept. Open the link again; if it keeps failing, ask whoever shared it for a new link.`;
    default:
      return undefined;
  }
}

function networkHint(code: string | undefined): string {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'The link\'s host name was not found: check that the whole link was pasted, and your DNS or proxy settings.';
  if (code === 'ECONNREFUSED') return 'Nothing answered at the link\'s address: check that the whole link was pasted, and your proxy settings.';
  if (code && /CERT|SSL|TLS|SELF_SIGNED/i.test(code)) return 'The certificate of the link\'s host was not accepted: check the link, or the proxy\'s certificate settings (strict SSL).';
  if (code && /TIMEOUT/.test(code)) return 'The link\'s host did not answer in time: check the network and proxy settings, then open the link again.';
  return 'Check the network connection and proxy settings, then open the link again.';
}

// Which service and account a synced table's rows came from, as the meta table records it
// beside the point: the gateway's base URL, the data prefix, the scope (the account asked for)
// and a tag of the credentials' client ID, as one text such as
// `https://api.example.com/dap?client=3f2a9c01b7e4` or
// `https://api.example.com/dap?scope=acct-7&client=3f2a9c01b7e4`. Two institutions on one
// public gateway differ only in their credentials, so the client tag tells their tables apart.
// Changes from one service or account cannot be applied on top of rows from another, so an
// incremental sync compares the stored source with its own first. Never a credential: the
// URL's user part is dropped (the client refuses one anyway), the secret is no part of it, and
// of the client ID only the first 12 hex digits of its SHA-256 are kept.

import { createHash } from 'node:crypto';

/** The parts of a connection that say whose data it reads. */
export interface SyncSourceParts {
  baseUrl: string;
  dataPrefix: string;
  /** the account asked for; empty or missing means the credentials' own */
  scope?: string;
  /**
   * the client ID of the credentials the sync uses: only its tag (`clientTag`) goes into the
   * source. Missing where it is not at hand (the explorer, which reads no secrets): the source
   * is then the service's alone, which a sync run never records.
   */
  clientId?: string;
}

/** How a stored source compares with the source of the run about to apply changes on top of it. */
export type SourceMatch =
  /** the same service and credentials */
  | 'same'
  /** none recorded, or recorded before client tags were (the same service): the run records its own */
  | 'adopt'
  /** the same service, other credentials: another account's rows, perhaps */
  | 'otherCredentials'
  /** another gateway, data prefix or scope, or the sample data */
  | 'otherService';

/** The client part at the end of a source: `?client=<tag>` or `&client=<tag>` (a scope is URI-encoded, so it never ends so). */
const CLIENT_PART = /[?&]client=([0-9a-f]{12})$/;

/** The first 12 hex digits of the SHA-256 of a client ID: tells credentials apart, and gives nothing of the ID away. */
export function clientTag(clientId: string): string {
  return createHash('sha256').update(clientId.trim(), 'utf8').digest('hex').slice(0, 12);
}

/**
 * The source as stored and compared: the base URL without user part, trailing slashes, query
 * or fragment (host and scheme in lower case, a default port left out), then the data prefix,
 * then `?scope=` when one is asked for, then the client tag when the client ID is given.
 * Equal for every way of writing the same service and credentials.
 */
export function sourceIdentity(parts: SyncSourceParts): string {
  let base = parts.baseUrl.trim();
  try {
    const url = new URL(base);
    // no user part, query or fragment: only what names the service
    base = `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    // not a URL: compared as written (the client would have refused it before any sync)
  }
  base = base.replace(/\/+$/, '');
  const prefix = parts.dataPrefix.trim().replace(/^\/+|\/+$/g, '');
  const scope = parts.scope || undefined; // as the client sends it
  const service = `${base}${prefix ? `/${prefix}` : ''}${scope ? `?scope=${encodeURIComponent(scope)}` : ''}`;
  const clientId = parts.clientId?.trim();
  return clientId ? `${service}${scope ? '&' : '?'}client=${clientTag(clientId)}` : service;
}

/** The source without its client tag: the service alone (a source written before tags were is one already). */
export function serviceOfSource(source: string): string {
  return source.replace(CLIENT_PART, '');
}

/** The client tag a source ends with; undefined for one without (the sample data, or one written before tags were). */
export function clientTagOfSource(source: string): string | undefined {
  return CLIENT_PART.exec(source)?.[1];
}

/**
 * Whether a run whose source is `current` may apply changes to rows the meta table says came
 * from `stored`. A source without client tag, of the same service, is taken to be this run's
 * credentials' (it was written before tags were recorded) and is adopted: nobody is made to
 * take a fresh snapshot for it.
 */
export function compareSources(stored: string | undefined, current: string): SourceMatch {
  if (stored === undefined) return 'adopt';
  if (stored === current) return 'same';
  if (serviceOfSource(stored) !== serviceOfSource(current)) return 'otherService';
  if (clientTagOfSource(stored) === undefined && clientTagOfSource(current) !== undefined) return 'adopt';
  return 'otherCredentials';
}

// Stored credentials are bound to the service they were saved for: the record in SecretStorage
// holds, beside the client ID and secret, the base URL (origin and path) they were entered
// for. A connection whose base URL now differs does not get them until its owner agrees.
// Pure: no `vscode` import, so plain tests can use it.

import { DqError } from '../../client/errors';
import type { Credentials } from '../../client/types';
import { parseBaseUrl } from '../../core/httpUrl';
import { isRecord } from '../../core/isRecord';

/** What SecretStorage holds for a connection; `boundTo` is absent in records saved before binding. */
export interface StoredCredentials extends Credentials {
  boundTo?: string;
}

/**
 * The address a secret is bound to: the base URL's origin and path, lower-case scheme and
 * host, default port left out, no trailing slash. The data prefix is not part of it: the
 * client secret only ever goes to `{base}/ids/auth/login`.
 */
export function serviceAddress(baseUrl: string): string {
  const url = parseBaseUrl(baseUrl).url;
  if (!url) return baseUrl.trim().replace(/\/+$/, '');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Whether credentials bound to `boundTo` may be sent to a connection at `baseUrl`. */
export function sameService(boundTo: string, baseUrl: string): boolean {
  return serviceAddress(boundTo) === serviceAddress(baseUrl);
}

/** Reads a SecretStorage value; undefined when it is not a credentials record. */
export function parseStoredCredentials(text: string): StoredCredentials | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value) || typeof value.clientId !== 'string' || typeof value.clientSecret !== 'string') return undefined;
  const stored: StoredCredentials = { clientId: value.clientId, clientSecret: value.clientSecret };
  if (typeof value.boundTo === 'string' && value.boundTo !== '') stored.boundTo = value.boundTo;
  return stored;
}

/** The SecretStorage value of credentials bound to the service at `baseUrl`. */
export function storedCredentialsText(credentials: Credentials, baseUrl: string): string {
  return JSON.stringify({ clientId: credentials.clientId, clientSecret: credentials.clientSecret, boundTo: serviceAddress(baseUrl) });
}

/** The error of a connection whose stored credentials were saved for another service. */
export function credentialsSavedElsewhere(connection: string, savedFor: string, baseUrl: string): DqError {
  return new DqError('auth', `The client ID and secret of "${connection}" were saved for ${savedFor}, not for ${serviceAddress(baseUrl)}, so they were not sent.`, {
    hint: 'Use "Set Credentials" on the connection to use them with the new URL or to enter new ones.',
  });
}

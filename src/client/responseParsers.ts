// Checks the minimum each answer must have before anything relies on it. Unknown fields are
// kept and ignored; a missing or mistyped required field is an 'invalidResponse' error. A
// byte order mark in front of an answer is ignored; a sign-in answer is never quoted.

import type { JobRecord, PresignedUrlResponse, SchemaEnvelope, TokenResponse } from '../core/contract';
import { isRecord } from '../core/isRecord';
import { excerpt, withoutBom } from './errorMapping';
import { DqError } from './errors';

const JOB_STATUSES = new Set(['waiting', 'running', 'complete', 'failed']);

function invalid(what: string, operation: string, sample?: string): DqError {
  const hint =
    operation === 'login'
      ? 'Check that the base URL points at the Data Query Service gateway. The answer is not shown, as a sign-in answer may hold a token.'
      : `Check that the base URL and data prefix point at a Data Query Service${sample ? `; it answered: ${excerpt(sample, 120)}` : ''}.`;
  return new DqError('invalidResponse', `The service's answer to ${operation} was not understood: ${what}`, { operation, hint });
}

export function parseJson(text: string, operation: string): unknown {
  try {
    return JSON.parse(withoutBom(text));
  } catch {
    throw invalid('the body is not JSON', operation, operation === 'login' ? undefined : text);
  }
}

export function parseTokenResponse(text: string): TokenResponse {
  const data = parseJson(text, 'login');
  if (!isRecord(data) || typeof data.access_token !== 'string' || data.access_token.length === 0) {
    // never echo the body: it may hold a token in an unexpected field
    throw invalid('no access_token in the sign-in answer', 'login');
  }
  const expiresIn = typeof data.expires_in === 'number' ? data.expires_in : Number(data.expires_in);
  return {
    access_token: data.access_token,
    expires_in: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined,
    token_type: typeof data.token_type === 'string' ? data.token_type : undefined,
    scope: typeof data.scope === 'string' ? data.scope : undefined,
  };
}

export function parseTableList(data: unknown): string[] {
  if (!isRecord(data) || !Array.isArray(data.tables) || !data.tables.every((t) => typeof t === 'string')) {
    throw invalid('expected {"tables": [strings]}', 'listTables');
  }
  return data.tables as string[];
}

export function parseSchemaEnvelope(data: unknown): SchemaEnvelope {
  if (!isRecord(data) || !isRecord(data.schema)) {
    throw invalid('expected {"version": number, "schema": {...}}', 'getSchema');
  }
  const version = typeof data.version === 'number' ? data.version : Number(data.version);
  if (!Number.isFinite(version)) throw invalid('the schema has no numeric version', 'getSchema');
  return { ...(data as object), version, schema: data.schema } as SchemaEnvelope;
}

export function parseJobRecord(data: unknown, operation: string): JobRecord {
  if (!isRecord(data) || typeof data.id !== 'string' || data.id.length === 0) {
    throw invalid('the job record has no id', operation);
  }
  if (typeof data.status !== 'string' || !JOB_STATUSES.has(data.status)) {
    throw invalid(`the job record has an unknown status ${excerpt(JSON.stringify(data.status) ?? 'undefined', 40)}`, operation);
  }
  if (data.objects !== undefined) {
    if (!Array.isArray(data.objects) || !data.objects.every((o) => isRecord(o) && typeof o.id === 'string')) {
      throw invalid('the job record\'s objects are not [{"id": string}]', operation);
    }
  }
  if (data.status === 'complete' && data.objects === undefined) {
    return { ...data, objects: [] } as unknown as JobRecord;
  }
  return data as JobRecord;
}

export function parsePresignedUrls(data: unknown, requested: string[]): PresignedUrlResponse {
  if (!isRecord(data) || !isRecord(data.urls)) throw invalid('expected {"urls": {...}}', 'createUrls');
  const urls = data.urls;
  for (const id of requested) {
    const entry = urls[id];
    if (!isRecord(entry) || typeof entry.url !== 'string') {
      throw invalid('a requested object has no download link', 'createUrls');
    }
  }
  return data as unknown as PresignedUrlResponse;
}

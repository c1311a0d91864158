// The argument object of "Query Table" (`dataQuery.queryTable`), checked before anything
// is sent, so a typo never costs one of the five job creations a minute.

import { DqError } from '../client/errors';
import { FORMATS, MODES, type Format, type Mode } from '../core/contract';
import { isRecord } from '../core/isRecord';
import { isoUtc } from '../core/isoTime';
import type { QueryParams } from './jobEntry';

/** What a caller passes: `since` is an ISO time or `"last"`. */
export interface QueryTableArgs {
  connection: string;
  namespace: string;
  table: string;
  format?: Format;
  since?: string;
  until?: string;
  mode?: Mode;
  download?: boolean;
}

export interface QueryDefaults {
  format: Format;
  download: boolean;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

export function parseQueryArgs(raw: unknown, defaults: QueryDefaults): { params: QueryParams; download: boolean } {
  if (!isRecord(raw)) throw bad('Query Table needs an argument object {connection, namespace, table, format?, since?, until?, mode?, download?}.');
  const connection = requiredText(raw, 'connection');
  const namespace = requiredText(raw, 'namespace');
  const table = requiredText(raw, 'table');
  const format = raw.format === undefined ? defaults.format : oneOf(raw.format, FORMATS, 'format');
  const since = raw.since === undefined || raw.since === 'last' ? raw.since : dateTime(raw.since, 'since');
  const until = raw.until === undefined ? undefined : dateTime(raw.until, 'until');
  if (until && !since) throw bad('"until" needs "since": a snapshot has no end. Leave both out for a snapshot.');
  if (until && since && since !== 'last' && Date.parse(since) >= Date.parse(until)) throw bad('"since" must be earlier than "until".');
  const mode = raw.mode === undefined ? undefined : oneOf(raw.mode, MODES, 'mode');
  if (raw.download !== undefined && typeof raw.download !== 'boolean') throw bad('"download" must be true or false.');
  const request: QueryParams['request'] = { format };
  if (since) request.since = since;
  if (until) request.until = until;
  if (mode) request.mode = mode;
  return { params: { connection, namespace, table, request }, download: raw.download ?? defaults.download };
}

function requiredText(raw: Record<string, unknown>, name: string): string {
  const value = raw[name];
  if (typeof value !== 'string' || value.trim() === '') throw bad(`"${name}" is missing: pass the ${name} name as a string.`);
  return value.trim();
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], name: string): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw bad(`"${name}" must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)}).`);
}

function dateTime(value: unknown, name: string): string {
  const ms = typeof value === 'string' && ISO_DATE_TIME.test(value.trim()) ? Date.parse(value.trim()) : NaN;
  if (Number.isNaN(ms)) throw bad(`"${name}" must be a date-time like 2026-11-20T08:00:00Z${name === 'since' ? ' or "last"' : ''} (got ${JSON.stringify(value)}).`);
  return isoUtc(ms);
}

function bad(message: string): DqError {
  return new DqError('usage', message);
}

// Checks of what a person typed, made before any request so mistakes cost no rate budget.

import { FORMATS, MODES, type Format, type Mode } from '../core/contract';
import { isoUtc } from '../core/isoTime';
import { UsageError } from './argParser';

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export function requireName(value: string | undefined, what: 'namespace' | 'table'): string {
  if (value === undefined || value === '') throw new UsageError(`missing <${what}>`);
  if (!NAME.test(value) || value.length > 128) {
    throw new UsageError(`"${value}" is not a valid ${what} name (letters, digits, _ . - only)`);
  }
  return value;
}

export function requireId(value: string | undefined, what: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`missing <${what}>`);
  if (/[\u0000-\u001f\u007f]/.test(value) || value.length > 1024) throw new UsageError(`"${value}" is not a valid ${what}`);
  return value;
}

export function parseFormat(value: unknown): Format {
  const v = value === undefined ? 'jsonl' : String(value);
  if ((FORMATS as readonly string[]).includes(v)) return v as Format;
  throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got "${v}")`);
}

export function parseMode(value: unknown): Mode | undefined {
  if (value === undefined) return undefined;
  const v = String(value);
  if ((MODES as readonly string[]).includes(v)) return v as Mode;
  throw new UsageError(`--mode must be one of ${MODES.join(', ')} (got "${v}")`);
}

/** Accepts an ISO 8601 date or date-time; no offset means UTC. Returns canonical UTC. */
export function parseDateTime(value: unknown, option: string): string | undefined {
  if (value === undefined) return undefined;
  const raw = String(value).trim();
  const iso = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(raw);
  if (!iso) throw new UsageError(`${option} must be a UTC date-time like 2026-11-20T08:00:00Z (got "${raw}")`);
  const [y, mo, d] = raw.slice(0, 10).split('-').map(Number);
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) {
    throw new UsageError(`${option} is not a real date: "${raw}"`);
  }
  const clock = /[T ](\d{2}):(\d{2})(?::(\d{2}))?/.exec(raw);
  if (clock && (Number(clock[1]) > 23 || Number(clock[2]) > 59 || Number(clock[3] ?? 0) > 59)) {
    throw new UsageError(`${option} is not a real time of day: "${raw}"`);
  }
  let text = raw.replace(' ', 'T');
  if (!iso[1]) text += text.includes('T') ? 'Z' : 'T00:00:00Z';
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`${option} is not a real date-time: "${raw}"`);
  return isoUtc(ms);
}

/** A whole-number option within [min, max], or undefined when not given. */
export function parseWhole(value: unknown, option: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${option} must be a whole number ${range} (got ${String(value)})`);
  }
  return n;
}

export function parseConcurrency(value: unknown): number | undefined {
  return parseWhole(value, '--concurrency', 1, 32);
}

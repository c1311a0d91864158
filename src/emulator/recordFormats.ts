// How change records become bytes: JSONL lines, and flat rows for CSV and TSV with a header of
// dotted column names. Null columns are omitted from JSONL and empty in CSV/TSV; arrays and
// variable objects become JSON text.
//
// CSV follows RFC 4180 quoting (fields with a comma, quote, CR or LF are quoted, quotes
// doubled). TSV never quotes; it escapes backslash, tab, LF and CR as \\, \t, \n and \r.

import type { ChangeRecord } from './sampleData/changeHistory';
import type { FlatColumn } from './sampleData/tableModel';

export type FlatValue = string | number | boolean | null;

export function jsonlLine(record: ChangeRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** The record's value for each flat column, typed for Parquet; null when absent. */
export function flatValues(record: ChangeRecord, columns: FlatColumn[]): FlatValue[] {
  const out: FlatValue[] = new Array<FlatValue>(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const col = columns[i];
    let v: unknown = record;
    for (const step of col.path) {
      v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[step] : undefined;
      if (v === undefined) break;
    }
    if (v === undefined || v === null) out[i] = null;
    else if (col.kind === 'json') out[i] = JSON.stringify(v);
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[i] = v;
    else out[i] = JSON.stringify(v);
  }
  return out;
}

function csvField(v: FlatValue): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function tsvField(v: FlatValue): string {
  if (v === null) return '';
  return String(v).replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

export type Delimited = 'csv' | 'tsv';

export function headerLine(columns: FlatColumn[], format: Delimited): string {
  const names = columns.map((c) => (format === 'csv' ? csvField(c.name) : tsvField(c.name)));
  return `${names.join(format === 'csv' ? ',' : '\t')}${format === 'csv' ? '\r\n' : '\n'}`;
}

export function delimitedLine(record: ChangeRecord, columns: FlatColumn[], format: Delimited): string {
  const values = flatValues(record, columns);
  return format === 'csv' ? `${values.map(csvField).join(',')}\r\n` : `${values.map(tsvField).join('\t')}\n`;
}

// How a table's schema changed since the last sync, sorted into what a target applies in place
// and what needs a fresh snapshot. Added columns are added; new enum values and columns that
// became optional need nothing (enums are text, and only key columns are NOT NULL). A removed
// column, a column whose stored type changed, or other key columns cannot be applied to the
// rows already loaded: each is named in words so the person knows why a snapshot is needed.

import type { SchemaEnvelope } from '../core/contract';
import { columnsOf, type Column } from '../core/schema';
import { targetColumnsOf } from './syncColumns';
import type { TargetColumn } from './syncTarget';

export interface SchemaChange {
  /** columns to add in place, in schema order */
  added: TargetColumn[];
  /** changes that need a fresh snapshot, one phrase each, naming the column */
  incompatible: string[];
  /** compatible changes worth a log line: new enum values, a column that became optional */
  notes: string[];
}

/** Compares the schema a table was last synced with to the service's current one. */
export function compareSchemas(stored: SchemaEnvelope, current: SchemaEnvelope): SchemaChange {
  const change = compareColumns(targetColumnsOf(stored), targetColumnsOf(current));
  change.notes.push(...readableNotes(columnsOf(stored), columnsOf(current)));
  return change;
}

/** Compares two column lists by name (see the file header for what counts as compatible). */
export function compareColumns(stored: readonly TargetColumn[], current: readonly TargetColumn[]): SchemaChange {
  const change: SchemaChange = { added: [], incompatible: [], notes: [] };
  const keysOf = (columns: readonly TargetColumn[]): string => columns.filter((c) => c.key).map((c) => `${c.name} ${c.type}`).join(', ');
  if (keysOf(stored) !== keysOf(current)) {
    change.incompatible.push(`the key columns changed from (${keysOf(stored)}) to (${keysOf(current)})`);
  }
  const now = new Map(current.map((c) => [c.name, c]));
  const before = new Map(stored.map((c) => [c.name, c]));
  for (const old of stored) {
    if (old.key) continue;
    const column = now.get(old.name);
    if (!column) change.incompatible.push(`column "${old.name}" was removed`);
    else if (column.key) continue; // reported with the key columns
    else if (column.type !== old.type) change.incompatible.push(`column "${old.name}" changed type from ${old.type} to ${column.type}`);
    else if (column.path.join('\u0000') !== old.path.join('\u0000')) change.incompatible.push(`column "${old.name}" moved to another place in the records`);
  }
  for (const column of current) {
    if (!column.key && !before.has(column.name)) change.added.push(column);
  }
  return change;
}

/** New enum values and columns no longer required: compatible, but worth saying. */
function readableNotes(stored: readonly Column[], current: readonly Column[]): string[] {
  const notes: string[] = [];
  const before = new Map(stored.map((c) => [`${c.part}.${c.name}`, c]));
  for (const column of current) {
    const old = before.get(`${column.part}.${column.name}`);
    if (!old) continue;
    if (old.enumValues && column.enumValues) {
      const known = new Set(old.enumValues.map((v) => JSON.stringify(v)));
      const added = column.enumValues.filter((v) => !known.has(JSON.stringify(v)));
      if (added.length > 0) notes.push(`column "${column.name}" has new values ${added.map((v) => JSON.stringify(v)).join(', ')}`);
    }
    if (old.required && !column.required) notes.push(`column "${column.name}" is no longer required`);
  }
  return notes;
}

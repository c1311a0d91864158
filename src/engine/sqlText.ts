// SQL text for the engine: quoting, and the query of a view (filters, the user's own WHERE,
// sort) over a result. Filter values never enter the text: they are bound as parameters.

import { EngineError } from './engineErrors';
import type { Filter, ResultColumn, View } from './engineProtocol';

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

export interface BoundSql {
  sql: string;
  params: string[];
}

/** The WHERE clause (with its leading keyword) of a view, or an empty string. */
export function whereClause(view: View, columns: ResultColumn[]): BoundSql {
  const conditions: string[] = [];
  const params: string[] = [];
  for (const filter of view.filters ?? []) {
    const { condition, value } = filterCondition(filter, columnNamed(columns, filter.column));
    conditions.push(condition);
    if (value !== undefined) params.push(value);
  }
  const free = view.where?.trim();
  if (free) conditions.push(`(${free}\n)`);
  return { sql: conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '', params };
}

/** The ORDER BY clause of a view, ties broken by `tieBreak` when given, or an empty string. */
export function orderClause(view: View, columns: ResultColumn[], tieBreak?: string): string {
  const keys = (view.sort ?? []).map((s) => `${quoteIdent(columnNamed(columns, s.column).name)} ${s.descending ? 'DESC' : 'ASC'} NULLS LAST`);
  if (keys.length === 0) return '';
  if (tieBreak) keys.push(tieBreak);
  return ` ORDER BY ${keys.join(', ')}`;
}

function columnNamed(columns: ResultColumn[], name: string): ResultColumn {
  const column = columns.find((c) => c.name === name);
  if (!column) throw new EngineError('syntax', `The result has no column "${name}". Pick one of its columns.`);
  return column;
}

function filterCondition(filter: Filter, column: ResultColumn): { condition: string; value?: string } {
  const id = quoteIdent(column.name);
  switch (filter.op) {
    case 'is null':
      return { condition: `${id} IS NULL` };
    case 'is not null':
      return { condition: `${id} IS NOT NULL` };
    case 'contains':
      return { condition: `contains(lower(${shownText(id, column)}), lower(?))`, value: filter.value ?? '' };
    case '=':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const type = comparedAs(column);
      const comparable = type === column.sqlType ? id : `CAST(${id} AS VARCHAR)`;
      return { condition: `${comparable} ${filter.op} CAST(? AS ${type})`, value: filter.value ?? '' };
    }
    default:
      throw new EngineError('syntax', `Unknown filter operator "${String(filter.op)}".`);
  }
}

/** A column's values as text the way the grid shows them: timestamps in ISO 8601 (rowValues.ts). */
function shownText(id: string, column: ResultColumn): string {
  const text = `CAST(${id} AS VARCHAR)`;
  return column.sqlType.startsWith('TIMESTAMP') ? `regexp_replace(replace(${text}, ' ', 'T'), '\\+00(:00)?$', 'Z')` : text;
}

/** The type a comparison filter's value is read as: the column's own, or text for JSON and nested values. */
export function comparedAs(column: ResultColumn): string {
  return column.sqlType === 'JSON' || column.type === 'json' ? 'VARCHAR' : column.sqlType;
}

/** The comparison filters whose value must be read as a type other than text. */
export function typedFilterValues(view: View, columns: ResultColumn[]): { filter: Filter; column: ResultColumn; type: string }[] {
  const typed = [];
  for (const filter of view.filters ?? []) {
    if (filter.op === 'contains' || filter.op === 'is null' || filter.op === 'is not null') continue;
    const column = columnNamed(columns, filter.column);
    const type = comparedAs(column);
    if (type !== 'VARCHAR') typed.push({ filter, column, type });
  }
  return typed;
}

/** Members of a JSON object as a JSON Pointer (RFC 6901), whatever characters their names hold: `/a/b~1c`. */
export function jsonPointer(members: readonly string[]): string {
  return members.map((m) => `/${m.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

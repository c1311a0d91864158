// What a user types in a column's filter box, as an engine filter: `abc` (contains), `= abc`,
// `!= abc` (or `<>`), `< 5`, `<= 5`, `> 5`, `>= 5`, `null`, `not null`.

import type { Filter, View } from '../engine/engineProtocol';
import type { ViewState } from './previewProtocol';

const COMPARISON = /^(<=|>=|!=|<>|=|<|>)\s*(.*)$/s;

export function parseFilterText(column: string, text: string): Filter | undefined {
  const typed = text.trim();
  if (typed === '') return undefined;
  const lower = typed.toLowerCase();
  if (lower === 'null' || lower === 'is null') return { column, op: 'is null' };
  if (lower === 'not null' || lower === 'is not null' || lower === '!null') return { column, op: 'is not null' };
  const comparison = COMPARISON.exec(typed);
  if (comparison) {
    const op = comparison[1] === '<>' ? '!=' : (comparison[1] as Filter['op']);
    return { column, op, value: comparison[2] };
  }
  return { column, op: 'contains', value: typed };
}

/** The engine's view of what the user typed. */
export function engineView(state: ViewState): View {
  const filters = Object.entries(state.filters)
    .map(([column, text]) => parseFilterText(column, text))
    .filter((f): f is Filter => f !== undefined);
  const where = state.where.trim();
  return { sort: state.sort, filters, ...(where === '' ? {} : { where }) };
}

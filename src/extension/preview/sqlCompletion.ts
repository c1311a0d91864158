// What the SQL console offers while typing: after `<namespace>.` the tables of that namespace,
// after `<view>.` that view's columns, elsewhere the namespaces, every view name and the
// columns of the views the statement names. Names that SQL would misread are quoted.

import type { ResultColumn } from '../../engine/engineProtocol';
import { quoteIdent } from '../../engine/sqlText';

export interface ConsoleView {
  name: string;
  columns: ResultColumn[];
}

export interface SqlSuggestion {
  kind: 'namespace' | 'view' | 'column';
  label: string;
  insertText: string;
  detail?: string;
  documentation?: string;
}

/** `before`: the statement's text up to the cursor; `statement`: all of it. */
export function suggestSql(before: string, statement: string, views: readonly ConsoleView[]): SqlSuggestion[] {
  const chain = /[A-Za-z0-9_.]*\.$/.exec(before)?.[0];
  if (chain) {
    const qualifier = chain.slice(0, -1);
    const view = views.find((v) => v.name === qualifier);
    if (view) return view.columns.map(columnSuggestion);
    return views
      .filter((v) => v.name.startsWith(`${qualifier}.`))
      .map((v) => ({ kind: 'view', label: v.name.slice(qualifier.length + 1), insertText: v.name.slice(qualifier.length + 1), detail: viewDetail(v) }));
  }
  const namespaces = [...new Set(views.map((v) => v.name.split('.')[0]))];
  const named = views.filter((v) => statement.includes(v.name));
  return [
    ...namespaces.map((n): SqlSuggestion => ({ kind: 'namespace', label: n, insertText: n })),
    ...views.map((v): SqlSuggestion => ({ kind: 'view', label: v.name, insertText: v.name, detail: viewDetail(v) })),
    ...named.flatMap((v) => v.columns.map(columnSuggestion)),
  ];
}

function columnSuggestion(column: ResultColumn): SqlSuggestion {
  return {
    kind: 'column',
    label: column.name,
    insertText: /^[a-z_][a-z0-9_]*$/.test(column.name) ? column.name : quoteIdent(column.name),
    detail: column.type,
    documentation: column.description,
  };
}

function viewDetail(view: ConsoleView): string {
  return `${view.columns.length} columns`;
}

// The schema page's HTML: every column in a table (name, type, key, required, description),
// a filter box, and the raw JSON schema behind one click. Everything from the service is
// escaped; the only script is the filter's, loaded with this page's nonce.

import { columnsOf, columnNotes, type Column } from '../../core/schema';
import type { SchemaEnvelope } from '../../core/contract';
import { escapeHtml, webviewDocument } from '../ui/webviewDocument';

export interface SchemaPageSources {
  /** the webview's CSP source */
  cspSource: string;
  script: string;
  style: string;
  nonce: string;
}

export interface SchemaPageContent {
  namespace: string;
  table: string;
  envelope: SchemaEnvelope;
  /** e.g. `read 5 min ago` */
  readText: string;
}

export function schemaPageHtml(content: SchemaPageContent, sources: SchemaPageSources): string {
  const { namespace, table, envelope } = content;
  let columns: Column[] = [];
  let problem = '';
  try {
    columns = columnsOf(envelope, `${namespace}.${table}`);
  } catch (err) {
    problem = `<p class="problem">${escapeHtml(err instanceof Error ? err.message : String(err))}</p>`;
  }
  const name = escapeHtml(`${namespace}.${table}`);
  const body = `<h1>${name} <span class="version">schema version ${envelope.version}</span></h1>
<p class="read">${escapeHtml(content.readText)}, ${columns.length} columns.</p>
${problem}
<input id="filter" type="search" placeholder="Filter columns by name, type or description" aria-label="Filter columns">
<table id="columns">
<thead><tr><th>Column</th><th>Type</th><th>Key</th><th>Required</th><th>Description</th></tr></thead>
<tbody>
${columns.map(columnRow).join('\n')}
</tbody>
</table>
<p id="none" hidden>No column matches.</p>
<details id="raw"><summary>Raw JSON schema</summary><pre>${escapeHtml(JSON.stringify(envelope, null, 2))}</pre></details>
`;
  return webviewDocument({ ...sources, title: `${namespace}.${table}`, body });
}

function columnRow(c: Column): string {
  const text = [c.description ?? '', ...columnNotes(c)].filter(Boolean).join(' ');
  const search = `${c.name} ${c.type} ${text}`.toLowerCase();
  return `<tr data-search="${escapeHtml(search)}"${c.problem ? ' class="problem"' : ''}><td>${escapeHtml(c.name)}</td><td>${escapeHtml(c.type)}</td><td>${c.part === 'key' ? 'key' : ''}</td><td>${c.required ? 'required' : ''}</td><td>${escapeHtml(text)}</td></tr>`;
}

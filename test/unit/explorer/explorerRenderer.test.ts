// How the Explorer's nodes look, in plain Node: the renderer turns a node into the item data the
// provider hands VS Code, with the time given, so ages and countdowns are told without a clock.

import * as assert from 'node:assert/strict';
import { STALE_AFTER_MS } from '../../../src/core/schemaCache';
import type { Column } from '../../../src/core/schema';
import type { Connection } from '../../../src/extension/connections/connectionConfig';
import type { ColumnNode, NamespaceNode, TableNode } from '../../../src/extension/explorer/explorerNodes';
import { hoverTooltip, markSyncedTable, renderNode, SET_CREDENTIALS_COMMAND } from '../../../src/extension/explorer/explorerRenderer';

const NOW = Date.UTC(2026, 10, 20, 8, 0, 0);
const HOUR = 60 * 60 * 1000;
const remote: Connection = { kind: 'remote', name: 'Prod', baseUrl: 'https://dq.example.com', dataPrefix: 'dap', namespaces: ['canvas'], allowInsecureHttp: false };
const sample: Connection = { kind: 'sample', name: 'Sample', namespaces: ['canvas'] } as Connection;

const table = (schema?: TableNode['schema']): TableNode => ({ kind: 'table', id: 'c/Prod/n/canvas/t/users', connection: remote, namespace: 'canvas', table: 'users', schema });
const column = (c: Partial<Column>, hasMembers = false): ColumnNode => ({
  kind: 'column',
  id: `c/Prod/n/canvas/t/users/${c.part ?? 'value'}/${c.name ?? 'name'}`,
  connection: remote,
  namespace: 'canvas',
  table: 'users',
  column: { name: 'name', part: 'value', type: 'string', required: false, ...c } as Column,
  hasMembers,
});
const markdown = (tooltip: unknown): string => {
  assert.ok(typeof tooltip === 'object' && tooltip !== null && 'markdown' in tooltip, 'a Markdown tooltip');
  return String((tooltip as { markdown: string }).markdown);
};

describe('explorer renderer', () => {
  it('draws a connection by kind: the host of a remote one, the sample data with its own icon', () => {
    const item = renderNode({ kind: 'connection', id: 'c/Prod', connection: remote, needsCredentials: false }, NOW);
    assert.deepEqual([item.label, item.description, item.icon.id, item.contextValue, item.collapsible], ['Prod', 'dq.example.com', 'plug', 'dataQuery.connection.remote', 'collapsed']);
    assert.match(markdown(item.tooltip), /https:\/\/dq\.example\.com\/dap/);
    const shown = renderNode({ kind: 'connection', id: 'c/Sample', connection: sample, needsCredentials: false }, NOW);
    assert.deepEqual([shown.description, shown.icon.id, shown.contextValue], ['sample data', 'beaker', 'dataQuery.connection.sample']);
  });

  it('offers Set Credentials on a connection without them, saying when they were saved for another URL', () => {
    const missing = renderNode({ kind: 'connection', id: 'c/Prod', connection: remote, needsCredentials: true }, NOW);
    assert.equal(missing.description, 'no credentials: click to set them');
    assert.equal(missing.collapsible, 'none');
    assert.deepEqual(missing.icon, { id: 'key', color: 'errorForeground' });
    assert.equal(missing.command?.command, SET_CREDENTIALS_COMMAND);
    const elsewhere = renderNode({ kind: 'connection', id: 'c/Prod', connection: remote, needsCredentials: true, credentialsSavedFor: 'https://old.example.com' }, NOW);
    assert.equal(elsewhere.description, 'credentials saved for another URL: click');
    assert.match(markdown(elsewhere.tooltip), /saved for https:\/\/old\.example\.com/);
  });

  it('shows a table schema version, marked stale, and leaves its tooltip to the hover', () => {
    assert.equal(renderNode(table(), NOW).description, undefined, 'no version before the schema is read');
    assert.equal(renderNode(table({ version: 3, readAt: NOW, stale: false }), NOW).description, 'v3');
    const stale = renderNode(table({ version: 3, readAt: NOW - STALE_AFTER_MS, stale: true }), NOW);
    assert.equal(stale.description, 'v3 (stale)');
    assert.equal(stale.tooltip, undefined);
  });

  it('tells the age of a list or schema as of the hover, and that it is read again past 4 hours', () => {
    const namespace: NamespaceNode = { kind: 'namespace', id: 'c/Prod/n/canvas', connection: remote, namespace: 'canvas' };
    assert.match(markdown(hoverTooltip(namespace, NOW)), /Expand to list its tables\./);
    assert.match(markdown(hoverTooltip({ ...namespace, listedAt: NOW - 2 * HOUR }, NOW)), /Tables listed 2 h ago\.$/);
    assert.match(markdown(hoverTooltip({ ...namespace, listedAt: NOW - 4 * HOUR }, NOW)), /Tables listed 4 h ago: older than the service's 4-hour refresh/);
    const users = table({ version: 3, readAt: NOW - 2 * HOUR, stale: false });
    const mark = { description: 'synced', tooltip: 'Synced to the test database.', syncing: false };
    assert.match(markdown(hoverTooltip(users, NOW, mark)), /Schema version 3, read 2 h ago\.\n\nSynced to the test database\.$/);
  });

  it('adds a sync mark after the version, with a green table icon, or a spinning one while it syncs', () => {
    const marked = markSyncedTable(renderNode(table({ version: 3, readAt: NOW, stale: false }), NOW), { description: 'synced', tooltip: '', syncing: false });
    assert.equal(marked.description, 'v3 · synced');
    assert.deepEqual(marked.icon, { id: 'table', color: 'charts.green' });
    const syncing = markSyncedTable(renderNode(table(), NOW), { description: 'syncing: applying', tooltip: '', syncing: true });
    assert.equal(syncing.description, 'syncing: applying');
    assert.deepEqual(syncing.icon, { id: 'sync~spin' });
  });

  it('marks key and required columns, nested objects and columns whose schema has a problem', () => {
    const key = renderNode(column({ name: 'id', part: 'key', type: 'integer', required: true }), NOW);
    assert.deepEqual([key.description, key.icon.id, key.contextValue], ['integer · key · required', 'key', 'dataQuery.column.key']);
    assert.match(markdown(key.tooltip), /Primary key column, required\./);
    const object = renderNode(column({ name: 'preferences', type: 'object' }, true), NOW);
    assert.deepEqual([object.collapsible, object.icon.id, object.contextValue], ['collapsed', 'symbol-object', 'dataQuery.column']);
    const odd = renderNode(column({ name: 'odd', type: 'unknown', problem: 'no type' } as Partial<Column>), NOW);
    assert.deepEqual(odd.icon, { id: 'warning', color: 'problemsWarningIcon.foreground' });
  });

  it('draws an error with its way forward as the click, and a wait for the rate limit counting down', () => {
    const action = { title: 'Retry', command: 'dataQuery.refresh', arguments: ['node'] };
    const error = renderNode({ kind: 'error', id: 'e', message: 'The service failed.', detail: 'server (503)', action }, NOW);
    assert.deepEqual([error.label, error.description, error.tooltip, error.contextValue], ['The service failed.', 'Retry', 'server (503)\n\nClick: Retry', 'dataQuery.error']);
    assert.deepEqual(error.command, action);
    assert.deepEqual(error.icon, { id: 'error', color: 'errorForeground' });
    const waiting = renderNode({ kind: 'waiting', id: 'w', reason: 'limit', until: NOW + 12_300 }, NOW);
    assert.equal(waiting.label, 'Waiting for the list-tables limit: 13 s');
    assert.equal(renderNode({ kind: 'waiting', id: 'w', reason: 'paused', until: NOW }, NOW).label, "Paused by the service's rate limit: starting");
    assert.deepEqual(renderNode({ kind: 'empty', id: 'x', message: 'No tables in this namespace.' }, NOW).icon, { id: 'info' });
  });
});

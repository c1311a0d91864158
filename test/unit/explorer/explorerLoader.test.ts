// The Explorer's error nodes in plain Node: a failed listing or schema read becomes a node in
// the words every notification uses (describeFailure), whose click is the step that helps: the
// settings for a namespace the service lacks or plain http, Refresh of the namespace for a
// table that is gone, Set Credentials for a refused sign-in, else Retry.

import * as assert from 'node:assert/strict';
import { errorFromResponse } from '../../../src/client/errorMapping';
import type { DqError } from '../../../src/client/errors';
import { checkBaseUrl } from '../../../src/client/serviceUrls';
import { nullLogger } from '../../../src/core/logger';
import type { ClientPool } from '../../../src/extension/connections/clientPool';
import type { Connection } from '../../../src/extension/connections/connectionConfig';
import type { ConnectionStore } from '../../../src/extension/connections/connectionStore';
import { ExplorerLoader } from '../../../src/extension/explorer/explorerLoader';
import { ExplorerNodeIndex } from '../../../src/extension/explorer/explorerNodeIndex';
import type { ErrorNode, ExplorerNode, NamespaceNode, TableNode } from '../../../src/extension/explorer/explorerNodes';
import { TableListCache } from '../../../src/extension/explorer/tableListCache';
import { SchemaModel } from '../../../src/extension/schema/schemaModel';
import { FakeClock } from '../../support/fakeClock';
import { MemoryStorage } from '../jobs/memoryStorage';

const connection: Connection = { kind: 'remote', name: 'Prod', baseUrl: 'https://dq.example.com', dataPrefix: 'dap', namespaces: ['canvas'], allowInsecureHttp: false };

/** The Explorer over a service whose table listing and schema reads fail with `failure`. */
function explorerFailingWith(failure: () => DqError) {
  const client = { listTables: () => Promise.reject(failure()), getSchema: () => Promise.reject(failure()) };
  const pool = { session: () => Promise.resolve({ client, namespaces: ['canvas'], signal: new AbortController().signal }) } as unknown as Pick<ClientPool, 'session'>;
  const store = {
    read: () => ({ connections: [connection], problems: [] }),
    credentialsState: () => Promise.resolve({ state: 'bound' }),
  } as unknown as Pick<ConnectionStore, 'read' | 'credentialsState'>;
  const clock = new FakeClock();
  const schemas = new SchemaModel(new MemoryStorage(), pool, clock);
  const index = new ExplorerNodeIndex();
  const loader = new ExplorerLoader({ store, pool, schemas, logger: nullLogger, index, tables: new TableListCache(() => undefined, clock), redraw: () => undefined });
  return { loader, index, schemas };
}

async function namespaceNode(loader: ExplorerLoader): Promise<NamespaceNode> {
  const [connectionNode] = await loader.children();
  const [namespace] = await loader.children(connectionNode);
  return namespace as NamespaceNode;
}

async function onlyError(children: Promise<ExplorerNode[]> | ExplorerNode[]): Promise<ErrorNode> {
  const nodes = await children;
  assert.equal(nodes.length, 1);
  assert.equal(nodes[0].kind, 'error');
  return nodes[0] as ErrorNode;
}

describe('Explorer error nodes', () => {
  it('says the service has no such namespace and opens the connections in the settings, since asking again cannot help', async () => {
    const { loader, schemas } = explorerFailingWith(() =>
      errorFromResponse({ status: 404, operation: 'listTables', bodyText: JSON.stringify({ error: { kind: 'namespace', id: 'canvas', message: 'Unknown namespace canvas' } }) }),
    );
    const error = await onlyError(loader.children(await namespaceNode(loader)));
    assert.equal(error.message, 'The service has no namespace "canvas": check its spelling under "namespaces" in the connection\'s settings.');
    assert.deepEqual(error.action, { title: 'Open Settings', command: 'workbench.action.openSettingsJson', arguments: [{ revealSetting: { key: 'dataQuery.connections' } }] });
    assert.match(error.detail, /^notFound, HTTP 404: Listing tables failed with HTTP 404: Unknown namespace canvas\./, 'the tooltip keeps the facts');
    schemas.dispose();
  });

  it('says a table that is gone no longer exists and offers Refresh of its namespace', async () => {
    const { loader, schemas } = explorerFailingWith(() => errorFromResponse({ status: 404, operation: 'getSchema', bodyText: JSON.stringify({ error: { kind: 'table', id: 'dropped' } }) }));
    const namespace = await namespaceNode(loader);
    const gone: TableNode = { kind: 'table', id: `${namespace.id}/t/dropped`, connection, namespace: 'canvas', table: 'dropped' };
    const error = await onlyError(loader.children(gone));
    assert.equal(error.message, 'canvas.dropped no longer exists: refresh canvas to list its tables again.');
    assert.deepEqual(error.action, { title: 'Refresh', command: 'dataQuery.refresh', arguments: [namespace] });
    schemas.dispose();
  });

  it('offers Set Credentials on the connection when the sign-in is refused, saying what to check', async () => {
    const { loader, index, schemas } = explorerFailingWith(() => errorFromResponse({ status: 401, operation: 'login', bodyText: '' }));
    const error = await onlyError(loader.children(await namespaceNode(loader)));
    assert.match(error.message, /^Sign-in failed with HTTP 401\. Check the client ID and secret/);
    assert.deepEqual(error.action, { title: 'Set Credentials', command: 'dataQuery.setCredentials', arguments: [index.get('c/Prod')] });
    schemas.dispose();
  });

  it('tells how to mend plain http to a remote host in the connection\'s settings, and opens them', async () => {
    const { loader, schemas } = explorerFailingWith(() => {
      try {
        checkBaseUrl('http://10.11.12.13:8080', false);
      } catch (err) {
        return err as DqError;
      }
      throw new Error('plain http to a remote host was let through');
    });
    const error = await onlyError(loader.children(await namespaceNode(loader)));
    assert.equal(
      error.message,
      'Refusing plain http to 10.11.12.13:8080: credentials and data would travel unencrypted. Use https:// in the connection\'s baseUrl, or set "allowInsecureHttp": true in its settings if you trust the network.',
    );
    assert.equal(error.action.title, 'Open Settings');
    schemas.dispose();
  });

  it('says any other failure as a notification would, with what to do and the uuid for support, and offers Retry', async () => {
    const { loader, schemas } = explorerFailingWith(() =>
      errorFromResponse({ status: 503, operation: 'listTables', bodyText: JSON.stringify({ error: { type: 'ServiceUnavailable', uuid: 'u-503', message: 'Try later' } }) }),
    );
    const namespace = await namespaceNode(loader);
    const error = await onlyError(loader.children(namespace));
    assert.match(error.message, /^Listing tables failed with HTTP 503: Try later\. .+ \(ServiceUnavailable, HTTP 503, uuid u-503\)$/);
    assert.deepEqual(error.action, { title: 'Retry', command: 'dataQuery.refresh', arguments: [namespace] });
    schemas.dispose();
  });
});

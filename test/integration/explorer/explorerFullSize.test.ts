// The Explorer's tree over the emulator at the service's real size, as the extension builds it
// (loader, schema model, table listing cache) without VS Code: the canvas namespace shows one
// node per table of the service's list, in order, within the one table listing the rate limit
// allows, and every table opens to its columns.

import * as assert from 'node:assert/strict';
import { systemClock } from '../../../src/core/clock';
import { nullLogger } from '../../../src/core/logger';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { CANVAS_SERVICE_TABLES } from '../../../src/emulator/sampleData/canvasServiceTables';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import type { ClientPool } from '../../../src/extension/connections/clientPool';
import type { Connection } from '../../../src/extension/connections/connectionConfig';
import { ExplorerLoader } from '../../../src/extension/explorer/explorerLoader';
import { ExplorerNodeIndex } from '../../../src/extension/explorer/explorerNodeIndex';
import type { ExplorerNode, TableNode } from '../../../src/extension/explorer/explorerNodes';
import { TableListCache } from '../../../src/extension/explorer/tableListCache';
import { SchemaModel } from '../../../src/extension/schema/schemaModel';
import { emulatorClientPool } from '../../support/emulatorClientPool';
import { MemoryStorage } from '../../unit/jobs/memoryStorage';

describe('the Explorer at the service\'s real size', function () {
  this.timeout(120_000);
  let emulator: RunningEmulator;
  let pool: ClientPool;
  let loader: ExplorerLoader;

  before(async () => {
    // the limits the service enforces (5 table listings a minute, 500 schemas), as in the embedded sample data
    emulator = await startEmulator();
    pool = emulatorClientPool(emulator, 'explorer-full-size-test');
    const connection: Connection = {
      kind: 'remote',
      name: 'Emulator',
      baseUrl: emulator.baseUrl,
      dataPrefix: emulator.dataPrefix,
      namespaces: ['canvas'],
      allowInsecureHttp: false,
    };
    const tables = new TableListCache(() => undefined, systemClock);
    loader = new ExplorerLoader({
      store: { read: () => ({ connections: [connection], problems: [] }), credentialsState: async () => ({ state: 'bound', credentials: { clientId: emulator.clientId, clientSecret: emulator.clientSecret } }) },
      pool,
      schemas: new SchemaModel(new MemoryStorage(), pool, systemClock),
      logger: nullLogger,
      index: new ExplorerNodeIndex(),
      tables,
      redraw: () => undefined,
    });
  });
  after(async () => {
    await pool?.dispose();
    await emulator?.close();
  });

  const children = async (node?: ExplorerNode): Promise<ExplorerNode[]> => loader.children(node);

  it('lists every table of canvas, sorted, from one listing, and opens each to its columns', async () => {
    const [connection] = await children();
    const [canvas] = await children(connection);
    assert.equal(canvas.kind, 'namespace');
    const nodes = await children(canvas);
    assert.ok(nodes.every((n) => n.kind === 'table'), nodes.map((n) => n.kind).join(', '));
    const names = (nodes as TableNode[]).map((n) => n.table);
    const expected = new SampleCatalog().tables('canvas')!;
    assert.equal(names.length, 90, 'the service lists about 90 canvas tables');
    assert.deepEqual([...names].sort(), expected, "the emulator's own list");
    assert.deepEqual(names, [...expected].sort((a, b) => a.localeCompare(b)), 'in the order the tree sorts them');
    for (const t of CANVAS_SERVICE_TABLES) assert.ok(names.includes(t.name), t.name);
    assert.equal(emulator.requestLog.entries().filter((e) => e.operation === 'listTables').length, 1);

    for (const table of nodes as TableNode[]) {
      const columns = await children(table);
      assert.ok(columns.length > 0 && columns.every((c) => c.kind === 'column'), `${table.table}: ${JSON.stringify(columns.map((c) => c.kind))}`);
      assert.equal(table.schema?.version, emulator.table('canvas', table.table)?.version, table.table);
    }
    const refused = emulator.requestLog.entries().filter((e) => e.status === 429);
    assert.deepEqual(refused, [], 'no call over the limits');
  });
});

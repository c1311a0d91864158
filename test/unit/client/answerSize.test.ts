import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataQueryClient } from '../../../src/client/dataQueryClient';
import { isDqError } from '../../../src/client/errors';
import { fakeJwt } from '../../support/mockGateway';

const MiB = 1024 * 1024;
/** What a misconfigured base URL might serve: far more than any answer of the service. */
const HUGE = 256 * MiB;

interface Sent {
  bytes: number;
  finished: boolean;
}

/** A gateway whose table list is a huge body, streamed with backpressure; records how much of it left. */
class HugeAnswerServer {
  readonly sent: Promise<Sent>;
  url = '';
  private readonly server: http.Server;
  private report!: (sent: Sent) => void;

  constructor(status: number, declareLength: boolean) {
    this.sent = new Promise((resolve) => (this.report = resolve));
    this.server = http.createServer((req, res) => {
      if (req.url === '/ids/auth/login') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: fakeJwt({ exp: Math.floor(Date.now() / 1000) + 3600 }) }));
        return;
      }
      if (req.url?.startsWith('/dap/query/canvas/table/accounts/schema')) {
        const schema = { version: 1, schema: { type: 'object', description: 'x'.repeat(3 * MiB) } };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(schema));
        return;
      }
      res.writeHead(status, { 'content-type': 'text/html', ...(declareLength ? { 'content-length': HUGE } : {}) });
      this.stream(res);
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private stream(res: http.ServerResponse): void {
    const chunk = Buffer.alloc(MiB, '<p>not the service</p>');
    let bytes = 0;
    res.on('close', () => this.report({ bytes, finished: res.writableFinished }));
    const pump = (): void => {
      while (bytes < HUGE) {
        bytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  }
}

async function listTablesFrom(server: HugeAnswerServer): Promise<unknown> {
  const client = new DataQueryClient({ baseUrl: server.url, credentials: async () => ({ clientId: 'a', clientSecret: 'b' }), maxRetries: 0 });
  try {
    return await client.listTables('canvas').catch((e: unknown) => e);
  } finally {
    await client.close();
  }
}

describe('answer size limits', () => {
  for (const declareLength of [false, true]) {
    it(`a huge answer${declareLength ? ' with its length declared' : ''} fails as invalidResponse pointing at the base URL, and is not read to its end`, async () => {
      const server = await new HugeAnswerServer(200, declareLength).start();
      try {
        const err = await listTablesFrom(server);
        assert.ok(isDqError(err), String(err));
        assert.equal(err.kind, 'invalidResponse');
        assert.match(err.message, /larger than 8 MiB/);
        assert.match(err.hint ?? '', /base URL/);
        const sent = await server.sent;
        assert.equal(sent.finished, false, 'the client hung up before the end');
        assert.ok(sent.bytes < 64 * MiB, `only a bounded part was sent (${sent.bytes / MiB} MiB)`);
      } finally {
        await server.close();
      }
    });
  }

  it('a huge error answer is cut to a short excerpt instead of being read whole', async () => {
    const server = await new HugeAnswerServer(500, false).start();
    try {
      const err = await listTablesFrom(server);
      assert.ok(isDqError(err), String(err));
      assert.equal(err.kind, 'server');
      assert.equal(err.status, 500);
      assert.match(err.message, /not the service/);
      assert.ok(err.message.length < 1000);
      const sent = await server.sent;
      assert.equal(sent.finished, false);
      assert.ok(sent.bytes < 64 * MiB, `only a bounded part was sent (${sent.bytes / MiB} MiB)`);
    } finally {
      await server.close();
    }
  });

  it('a large legitimate answer (a 3 MiB schema) still arrives', async () => {
    const server = await new HugeAnswerServer(200, false).start();
    const client = new DataQueryClient({ baseUrl: server.url, credentials: async () => ({ clientId: 'a', clientSecret: 'b' }) });
    try {
      const schema = await client.getSchema('canvas', 'accounts');
      assert.equal(String(schema.schema.description).length, 3 * MiB);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

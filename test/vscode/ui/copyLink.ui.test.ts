// Copy Result Link while the service keeps the link waiting (a dropped VPN, a slow gateway):
// a progress notification says what is going on, its Cancel drops the request at once, and
// nothing is copied. The service is an emulator in this process behind a small front that
// forwards every call, but can hold the requests for download links without answering.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { screenshot } from '../harness/browser';
import { contextMenu, jobRow, queryTableFromTree } from '../harness/jobSteps';
import { addConnection, workbenchSuite } from '../harness/uiSuite';
import { expandRow, notificationWith, openDataQueryView, treeRow } from '../harness/workbench';

const CONNECTION = 'Held service';
const JOB = 'canvas.accounts';

/** Forwards to the gateway; while `holding`, link requests get no answer until their caller hangs up. */
class HoldingFront {
  holding = false;
  /** one promise per held link request, settled when its caller dropped it */
  readonly dropped: Promise<void>[] = [];
  url = '';
  private readonly server = http.createServer((req, res) => this.handle(req, res));

  constructor(private readonly target: string) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.holding && req.method === 'POST' && /\/object\/url$/.test((req.url ?? '').split('?')[0])) {
      this.dropped.push(new Promise((resolve) => res.on('close', () => resolve())));
      req.resume();
      return;
    }
    const upstream = http.request(new URL(req.url ?? '/', this.target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('Copy Result Link while the service keeps the link waiting', function () {
  this.timeout(300_000);
  const workbench = workbenchSuite('copy-link-ui', {});
  let service: RunningEmulator;
  let front: HoldingFront;

  before(async () => {
    service = await startEmulator({ port: 0, jobDelayMs: 2_000, limits: false });
    front = await new HoldingFront(service.baseUrl).start();
  });

  after(async () => {
    await front?.close();
    await service?.close();
  });

  it('shows a progress notification whose Cancel drops the request, and copies nothing', async () => {
    const { page, served } = workbench();
    await openDataQueryView(page);
    await addConnection(page, CONNECTION, { ...service, baseUrl: front.url });
    await expandRow(page, CONNECTION);
    await expandRow(page, 'canvas');
    await queryTableFromTree(page, 'accounts');
    await jobRow(page, JOB, /snapshot · complete/);
    const folder = path.join(served.run.workspace, 'data-query-results', CONNECTION, 'canvas', 'accounts');
    const [jobId] = fs.readdirSync(folder);
    const [file] = fs.readdirSync(path.join(folder, jobId));
    await expandRow(page, JOB);

    front.holding = true;
    await contextMenu(page, treeRow(page, file), 'Copy Result Link');
    const progress = page.locator('.notifications-toasts .notification-list-item', { hasText: `Getting a download link for ${JOB}` }).first();
    await progress.waitFor();
    await screenshot(page, 'copy-link-ui-1-waiting-for-link');
    assert.equal(front.dropped.length, 1, 'the link request is waiting at the service');

    await progress.hover();
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await within(front.dropped[0], 30_000, 'the link request being dropped after Cancel');
    await progress.waitFor({ state: 'detached' });
    await screenshot(page, 'copy-link-ui-2-cancelled');
    const copied = page.locator('.notifications-toasts .notification-list-item-message', { hasText: 'Download link copied' });
    assert.equal(await copied.count(), 0, 'nothing was copied');

    // the same command copies a link once the service answers again
    front.holding = false;
    await contextMenu(page, treeRow(page, file), 'Copy Result Link');
    await notificationWith(page, 'Download link copied');
  });
});

// A service answering one table's schema with a few kilobytes of definitions that expand into
// millions of columns: expanding that table shows an error node naming it, promptly, and the
// extension host stays free: another table expands and a command answers right after.

import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { explodingSchema } from '../../support/hostileSchemas';
import { activateExtension, labelOf, labels, setConnections } from './vscodeHelpers';

describe('Explorer tree with a schema that expands without end', () => {
  let reference: RunningEmulator;
  let front: http.Server;

  before(async () => {
    reference = await startEmulator({ port: 0, namespaces: ['canvas'] });
    // in front of the emulator: the schema of canvas.courses is the hostile one
    const hostile = JSON.stringify(explodingSchema(8, 12));
    front = http.createServer((req, res) => {
      if (/\/query\/canvas\/table\/courses\/schema(\?|$)/.test(req.url ?? '')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(hostile) });
        res.end(hostile);
        return;
      }
      const upstream = http.request(new URL(req.url ?? '/', reference.baseUrl), { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    await setConnections(undefined);
    front.close();
    await reference.close();
  });

  it('shows an error node naming the table, and the tree and commands still answer', async () => {
    const { api } = await activateExtension();
    await setConnections([]);
    await vscode.commands.executeCommand('dataQuery.addConnection', {
      name: 'Hostile',
      baseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
      dataPrefix: reference.dataPrefix,
      clientId: reference.clientId,
      clientSecret: reference.clientSecret,
      namespaces: ['canvas'],
    });
    const [connection] = await api.explorer.getChildren();
    const [canvas] = await api.explorer.getChildren(connection);
    const tables = await api.explorer.getChildren(canvas);
    const courses = tables.find((t) => labelOf(api, t) === 'courses');
    const accounts = tables.find((t) => labelOf(api, t) === 'accounts');
    assert.ok(courses && accounts, labels(api, tables).join(', '));

    const shown = await api.explorer.getChildren(courses);
    assert.equal(shown.length, 1, labels(api, shown).join(', '));
    assert.equal(shown[0].kind, 'error');
    assert.match(labelOf(api, shown[0]), /^The schema of canvas\.courses expands into more than 10,000 columns/);

    // the host is free: another table's columns, and a command's answer
    const columns = await api.explorer.getChildren(accounts);
    assert.ok(columns.length > 0 && columns.every((c) => c.kind === 'column'), labels(api, columns).join(', '));
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('dataQuery.refresh'));
  });
});

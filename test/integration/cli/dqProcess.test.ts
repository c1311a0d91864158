// The dq program as a process: the emulator's first JSON line, then Ctrl-C stops it; a signal
// stops a waiting command with the exit code a shell or scheduler expects.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

const MAIN = path.resolve(__dirname, '../../../src/cli/main.js');

describe('dq as a process', function () {
  this.timeout(20_000);

  it('dq emulator --json prints its address and credentials first, serves them, and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [MAIN, 'emulator', '--json', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        const lines = createInterface({ input: child.stdout });
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`exited ${code} before printing`)));
      });
      const info = JSON.parse(first) as { baseUrl: string; dataPrefix: string; clientId: string; clientSecret: string };
      assert.match(info.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(info.dataPrefix, 'dap');
      const basic = Buffer.from(`${info.clientId}:${info.clientSecret}`).toString('base64');
      const login = await fetch(`${info.baseUrl}/ids/auth/login`, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      assert.equal(login.status, 200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('exits 2 with a one-line usage error and no stack trace', async () => {
    const child = spawn(process.execPath, [MAIN, 'query', 'canvas'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /^dq: usage: /);
    assert.equal(stderr.trim().split('\n').length, 1);
  });

  for (const [signal, expected] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`a command waiting on a silent service stops on ${signal} with exit ${expected}`, async () => {
      // accepts connections and never answers: dq sits in its sign-in request
      const sockets: net.Socket[] = [];
      let connected!: () => void;
      const reached = new Promise<void>((resolve) => (connected = resolve));
      const silent = net.createServer((socket) => {
        sockets.push(socket);
        connected();
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as net.AddressInfo).port;
      const child = spawn(process.execPath, [MAIN, 'tables', 'canvas'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, DQ_BASE_URL: `http://127.0.0.1:${port}`, DQ_CLIENT_ID: 'id', DQ_CLIENT_SECRET: 'secret' },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      try {
        await reached;
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        child.kill(signal);
        assert.equal(await exited, expected);
        assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        for (const socket of sockets) socket.destroy();
        silent.close();
      }
    });
  }
});

// dq with proxy values as people set them: `host:port` works like curl's, and anything
// unusable is a usage error (exit 2) naming the option or variable and the form it needs.

import * as assert from 'node:assert/strict';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { runDq } from '../../support/cliHarness';
import { LoopbackProxy } from '../../support/loopbackProxy';

describe('dq proxy values', function () {
  this.timeout(30_000);
  let emu: RunningEmulator;
  let proxy: LoopbackProxy;
  const env = (overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    DQ_BASE_URL: emu.baseUrl,
    DQ_DATA_PREFIX: emu.dataPrefix,
    DQ_CLIENT_ID: emu.clientId,
    DQ_CLIENT_SECRET: emu.clientSecret,
    ...overrides,
  });

  before(async () => {
    emu = await startEmulator({ limits: false });
    proxy = await new LoopbackProxy().start();
  });
  after(async () => {
    await proxy.close();
    await emu.close();
  });

  for (const [where, overrides, argv] of [
    ['HTTP_PROXY', (p: string) => ({ HTTP_PROXY: p }), [] as string[]],
    ['DQ_PROXY', (p: string) => ({ DQ_PROXY: p }), []],
    ['--proxy', () => ({}), ['--proxy']],
  ] as const) {
    it(`goes through a proxy given as host:port in ${where}`, async () => {
      const hostPort = new URL(proxy.url).host;
      // this machine's own addresses never go through a proxy: the emulator goes by a name the proxy routes
      const baseUrl = proxy.routed(emu.baseUrl, 'emulator.proxy-test.invalid');
      const before = proxy.tunnels.length;
      const run = await runDq(['tables', 'canvas', ...argv, ...(argv.length ? [hostPort] : [])], {
        env: env({ ...overrides(hostPort), DQ_BASE_URL: baseUrl, DQ_ALLOW_INSECURE_HTTP: '1' }),
      });
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.stdout.split('\n').includes('accounts'));
      assert.ok(proxy.tunnels.length > before, 'the requests went through the proxy');
      assert.ok(proxy.tunnels.slice(before).every((t) => t === new URL(baseUrl).host));
    });
  }

  const refused: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
    ['HTTPS_PROXY without a port', [], { HTTPS_PROXY: 'proxy.corp' }, /^dq: usage: HTTPS_PROXY "proxy\.corp" is not a usable proxy: it names no port\. Give the proxy as http:\/\/host:port or host:port/],
    ['a DQ_PROXY with a password', [], { DQ_PROXY: 'alice:s3cret@proxy corp:3128' }, /^dq: usage: DQ_PROXY "\*\*\*@proxy corp:3128" is not a usable proxy: it is not a URL\. Give the proxy as http:\/\/host:port/],
    ['--proxy that is not a URL', ['--proxy', 'not a url'], { DQ_PROXY: 'http://127.0.0.1:9' }, /^dq: usage: --proxy "not a url" is not a usable proxy: it is not a URL\. Give the proxy as http:\/\/host:port/],
    ['a SOCKS proxy', ['--proxy', 'socks5://127.0.0.1:1080'], {}, /^dq: usage: --proxy "socks5:\/\/127\.0\.0\.1:1080" is not a usable proxy: socks5:\/\/ proxies are not supported/],
  ];
  for (const [what, argv, overrides, message] of refused) {
    it(`refuses ${what} with exit 2 before any request`, async () => {
      const calls = emu.requestLog.entries().length;
      const run = await runDq(['tables', 'canvas', ...argv], { env: env(overrides) });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, /s3cret|DQ_DEBUG/);
      assert.equal(run.stderr.trim().split('\n').length, 1);
      assert.equal(emu.requestLog.entries().length, calls, 'nothing was sent');
    });
  }
});

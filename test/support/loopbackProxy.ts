// A tiny HTTP CONNECT proxy on loopback that records which host:port each tunnel was for,
// so tests can see whether a request went through the proxy or around it. It can also hold
// back the answers of one host after some bytes, so a test can act while a transfer is
// under way. Clients never send this machine's own addresses through a proxy, so a test
// names a service on loopback by a made-up host name that the proxy routes (`route`).

import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

interface Hold {
  target: string;
  bytesLeft: number;
  reached: () => void;
}

export class LoopbackProxy {
  readonly tunnels: string[] = [];
  readonly proxyAuth: string[] = [];
  url = '';
  private readonly server = http.createServer((_req, res) => {
    res.writeHead(501);
    res.end('only CONNECT');
  });
  private readonly sockets = new Set<net.Socket>();
  private readonly routes = new Map<string, string>();
  private hold?: Hold;

  /** Tunnels for `name` (any port) go to `to` (default 127.0.0.1) on the same port. */
  route(name: string, to = '127.0.0.1'): this {
    this.routes.set(name.toLowerCase(), to);
    return this;
  }

  /** `url` with its host replaced by `name`, which this proxy routes to the host `url` had. */
  routed(url: string, name: string): string {
    const u = new URL(url);
    this.route(name, u.hostname);
    u.hostname = name;
    return u.toString().replace(/\/$/, '');
  }

  /**
   * Passes on at most `bytes` bytes (headers included) of what `target` (host:port) answers,
   * over all its tunnels, then holds the rest back. Resolves when it starts holding.
   */
  holdAnswersFrom(target: string, bytes: number): Promise<void> {
    return new Promise((resolve) => (this.hold = { target, bytesLeft: bytes, reached: resolve }));
  }

  async start(): Promise<this> {
    this.server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      const target = req.url ?? '';
      this.tunnels.push(target);
      this.proxyAuth.push(String(req.headers['proxy-authorization'] ?? ''));
      const [name, port] = target.split(':');
      const host = this.routes.get(name.toLowerCase()) ?? name;
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        if (this.hold?.target === target) this.passHeld(upstream, client, this.hold);
        else upstream.pipe(client);
        client.pipe(upstream);
      });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private passHeld(upstream: net.Socket, client: net.Socket, hold: Hold): void {
    upstream.on('data', (chunk: Buffer) => {
      const passed = chunk.subarray(0, Math.max(0, hold.bytesLeft));
      hold.bytesLeft -= passed.length;
      if (passed.length > 0) client.write(passed);
      if (hold.bytesLeft <= 0) {
        upstream.pause();
        hold.reached();
      }
    });
    upstream.on('end', () => client.end());
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

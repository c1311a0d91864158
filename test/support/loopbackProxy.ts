// A tiny HTTP CONNECT proxy on loopback that records which host:port each tunnel was for,
// so tests can see whether a request went through the proxy or around it.

import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

export class LoopbackProxy {
  readonly tunnels: string[] = [];
  readonly proxyAuth: string[] = [];
  url = '';
  private readonly server = http.createServer((_req, res) => {
    res.writeHead(501);
    res.end('only CONNECT');
  });
  private readonly sockets = new Set<net.Socket>();

  async start(): Promise<this> {
    this.server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      const target = req.url ?? '';
      this.tunnels.push(target);
      this.proxyAuth.push(String(req.headers['proxy-authorization'] ?? ''));
      const [host, port] = target.split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
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

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// A stand-in for a PostgreSQL server that speaks only the first messages of the protocol, to
// see what a client sends before any query: an SSLRequest (8 bytes: length 8, code 80877103),
// answered 'N' (no TLS) or, when given a certificate, 'S' and a TLS handshake; then the
// StartupMessage (user, database) and the password it answers a cleartext-password request
// with, after which it refuses the login (SQLSTATE 28P01). It listens on the address it is
// given (a non-loopback one, so the client treats it as another machine) and on a free port.
// Also the first non-internal IPv4 address of this machine, and a self-signed certificate
// made with openssl for the TLS cases.

import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tls from 'node:tls';

const SSL_REQUEST_CODE = 80877103;
const PROTOCOL_3 = 196608;

export interface ProbeStartup {
  user?: string;
  database?: string;
  /** the message came over TLS */
  encrypted: boolean;
}

export interface ProbeLog {
  /** SSLRequests received */
  sslRequests: number;
  startups: ProbeStartup[];
  /** passwords received (cleartext answers to the password request) */
  passwords: string[];
}

export interface WireProbe extends ProbeLog {
  host: string;
  port: number;
  close(): Promise<void>;
}

export interface ProbeOptions {
  host: string;
  /** answer SSLRequest with 'S' and this key and certificate; without, answer 'N' */
  tls?: { key: string; cert: string };
}

/** The first non-internal IPv4 address of this machine, or undefined when it has none. */
export function nonLoopbackIPv4(): string | undefined {
  for (const addresses of Object.values(os.networkInterfaces())) {
    const found = addresses?.find((a) => a.family === 'IPv4' && !a.internal);
    if (found) return found.address;
  }
  return undefined;
}

export async function startWireProbe(options: ProbeOptions): Promise<WireProbe> {
  const log: ProbeLog = { sslRequests: 0, startups: [], passwords: [] };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    speak(socket, false);
  });

  /** Reads length-prefixed messages: the startup phase (no type byte) first, then typed ones. */
  function speak(stream: net.Socket | tls.TLSSocket, encrypted: boolean): void {
    let buffer = Buffer.alloc(0);
    let started = false;
    const onData = (chunk: Buffer): void => {
      buffer = Buffer.concat([buffer, chunk]);
      while (true) {
        if (!started) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) return;
          const code = buffer.readInt32BE(4);
          const body = buffer.subarray(8, length);
          buffer = buffer.subarray(length);
          if (code === SSL_REQUEST_CODE && !encrypted) {
            log.sslRequests++;
            if (!options.tls) {
              stream.end('N');
              return;
            }
            stream.off('data', onData);
            stream.write('S');
            upgrade(stream as net.Socket);
            return;
          }
          if (code !== PROTOCOL_3) {
            stream.destroy();
            return;
          }
          const fields = body.toString('utf8').split('\0');
          const params: Record<string, string> = {};
          for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i]) params[fields[i]] = fields[i + 1];
          log.startups.push({ user: params.user, database: params.database, encrypted });
          started = true;
          // AuthenticationCleartextPassword
          const ask = Buffer.alloc(9);
          ask.write('R', 0);
          ask.writeInt32BE(8, 1);
          ask.writeInt32BE(3, 5);
          stream.write(ask);
          continue;
        }
        if (buffer.length < 5) return;
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) return;
        const type = String.fromCharCode(buffer[0]);
        const body = buffer.subarray(5, 1 + length);
        buffer = buffer.subarray(1 + length);
        if (type === 'p') {
          log.passwords.push(body.toString('utf8').replace(/\0$/, ''));
          stream.end(errorResponse('28P01', 'password authentication failed for user'));
          return;
        }
      }
    };
    stream.on('data', onData);
  }

  function upgrade(socket: net.Socket): void {
    const secure = new tls.TLSSocket(socket, { isServer: true, key: options.tls!.key, cert: options.tls!.cert });
    // a client that does not accept the certificate breaks the handshake off
    secure.on('error', () => undefined);
    speak(secure, true);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return Object.assign(log, {
    host: options.host,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
}

function errorResponse(code: string, message: string): Buffer {
  const text = `SFATAL\0VFATAL\0C${code}\0M${message}\0\0`;
  const out = Buffer.alloc(5 + Buffer.byteLength(text));
  out.write('E', 0);
  out.writeInt32BE(4 + Buffer.byteLength(text), 1);
  out.write(text, 5, 'utf8');
  return out;
}

/** A self-signed certificate (and its key, files in `dir`) naming `altNames` (`DNS:host`, `IP:addr`); undefined without openssl. */
export async function selfSignedCertificate(dir: string, name: string, altNames: string[]): Promise<{ key: string; cert: string; certFile: string } | undefined> {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  const made = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${altNames.join(',')}`],
    { encoding: 'utf8' },
  );
  if (made.error || made.status !== 0) return undefined;
  return { key: await fs.readFile(keyFile, 'utf8'), cert: await fs.readFile(certFile, 'utf8'), certFile };
}

// How the MySQL target protects its connection, seen on the wire. A stand-in server on this
// machine's non-loopback address (so the target takes it for another machine) speaks the first
// messages of the MySQL protocol: its greeting (offering TLS or not), then it reads what the
// client sends: an SSLRequest, or the login (user name and password response). Without
// ssl-mode, the target asks another machine for TLS and, when it has none, stops with advice
// before the user name leaves; ssl-mode=DISABLED is the opt-in to plain text; a certificate that
// cannot be verified stops the same way, and ssl-mode=REQUIRED encrypts without checking it.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Duplex } from 'node:stream';
import * as tls from 'node:tls';
import { DqError } from '../../../src/client/errors';
import { createTarget, parseTargetSpec } from '../../../src/sync/targetSpec';
import { nonLoopbackIPv4, selfSignedCertificate } from './postgresWireProbe';
import { LogLines } from './syncFixture';

const PASSWORD = 'pw-9c2e-never-in-clear';
const CLIENT_SSL = 0x800;
const CAPABILITIES = 0x1 | 0x8 | 0x200 | 0x8000 | 0x80000; // long password, with db, 4.1, secure connection, plugin auth

interface Login {
  user: string;
  encrypted: boolean;
}

interface MysqlProbe {
  port: number;
  sslRequests: number;
  logins: Login[];
  close(): Promise<void>;
}

function packet(seq: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = seq;
  return Buffer.concat([head, payload]);
}

function greeting(offerTls: boolean): Buffer {
  const caps = CAPABILITIES | (offerTls ? CLIENT_SSL : 0);
  const salt = Buffer.from('abcdefghijklmnopqrst');
  const parts = [
    Buffer.from([10]),
    Buffer.from('10.11.0-probe\0'),
    Buffer.from([1, 0, 0, 0]),
    salt.subarray(0, 8),
    Buffer.from([0]),
    Buffer.from([caps & 0xff, (caps >> 8) & 0xff]),
    Buffer.from([45]),
    Buffer.from([2, 0]),
    Buffer.from([(caps >> 16) & 0xff, (caps >> 24) & 0xff]),
    Buffer.from([21]),
    Buffer.alloc(10),
    Buffer.concat([salt.subarray(8), Buffer.from([0])]),
    Buffer.from('mysql_native_password\0'),
  ];
  return packet(0, Buffer.concat(parts));
}

/** An ERR packet: access denied (1045). */
function accessDenied(seq: number): Buffer {
  const text = "Access denied for user (probe)";
  return packet(seq, Buffer.concat([Buffer.from([0xff, 0x15, 0x04]), Buffer.from('#28000'), Buffer.from(text)]));
}

/** Cuts a byte stream into packets: feed it chunks, it calls `each` per whole packet. */
function packets(each: (seq: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      const length = pending.readUIntLE(0, 3);
      if (pending.length < 4 + length) return;
      const seq = pending[3];
      const payload = pending.subarray(4, 4 + length);
      pending = pending.subarray(4 + length);
      each(seq, payload);
    }
  };
}

async function startProbe(host: string, certificate?: { key: string; cert: string }): Promise<MysqlProbe> {
  const probe = { port: 0, sslRequests: 0, logins: [] as Login[] };
  const sockets = new Set<net.Socket>();
  /** Reads the login (HandshakeResponse41: capabilities, max packet, charset, 23 bytes, the user name) and refuses it. */
  const login = (out: net.Socket | tls.TLSSocket, encrypted: boolean) =>
    packets((seq, payload) => {
      const end = payload.indexOf(0, 32);
      probe.logins.push({ user: payload.subarray(32, end).toString('utf8'), encrypted });
      out.write(accessDenied(seq + 1));
      out.end();
    });
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.write(greeting(certificate !== undefined));
    /** where the socket's bytes go once the first packet told what comes */
    let next: ((chunk: Buffer) => void) | undefined;
    socket.on('data', (chunk: Buffer) => {
      if (next) {
        next(chunk);
        return;
      }
      const length = chunk.readUIntLE(0, 3);
      const asksTls = length === 32 && (chunk.readUInt32LE(4) & CLIENT_SSL) !== 0;
      if (asksTls) probe.sslRequests++;
      if (!asksTls || !certificate) {
        next = login(socket, false);
        next(chunk);
        return;
      }
      // the TLS handshake follows at once, perhaps in the same chunk: the TLS layer reads what follows the SSLRequest
      const input = new Duplex({
        read() {},
        write(data: Buffer, _encoding, done) {
          socket.write(data, done);
        },
        final(done) {
          socket.end();
          done();
        },
      });
      next = (more) => input.push(more);
      socket.on('end', () => input.push(null));
      if (chunk.length > 36) input.push(chunk.subarray(36));
      const secure = new tls.TLSSocket(input as unknown as net.Socket, { isServer: true, key: certificate.key, cert: certificate.cert });
      secure.on('error', () => undefined);
      const feed = login(secure, true);
      secure.on('data', feed);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  probe.port = (server.address() as net.AddressInfo).port;
  return {
    port: probe.port,
    get sslRequests() {
      return probe.sslRequests;
    },
    get logins() {
      return probe.logins;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('sync: TLS to MySQL', function () {
  this.timeout(60_000);
  const address = nonLoopbackIPv4();
  let home: string;
  const probes: MysqlProbe[] = [];

  before(async () => {
    home = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-mysqltls-'));
  });
  after(async () => {
    await fs.rm(home, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const p of probes.splice(0)) await p.close();
  });

  async function probe(ctx: Mocha.Context, certificate?: { key: string; cert: string }): Promise<MysqlProbe> {
    if (!address) ctx.skip();
    const p = await startProbe(address!, certificate);
    probes.push(p);
    return p;
  }

  /** Opens the target a `--to` value names, as dq does, with the password in MYSQL_PWD; the failure it ends with. */
  async function open(to: string): Promise<DqError> {
    const target = createTarget(parseTargetSpec(to, { cwd: home, env: {} }), { logger: new LogLines(), env: { MYSQL_PWD: PASSWORD, HOME: home } });
    try {
      await target.open();
    } catch (err) {
      assert.ok(err instanceof DqError, `a DqError: ${String(err)}`);
      assert.ok(!err.describe().includes(PASSWORD) && !JSON.stringify(err).includes(PASSWORD), err.describe());
      return err;
    } finally {
      await target.close();
    }
    return assert.fail('opening should have failed');
  }

  it('without ssl-mode, wants TLS from a server on another machine and stops when it has none, before the user name leaves', async function () {
    const server = await probe(this);
    const err = await open(`mysql://etl@${address}:${server.port}/warehouse`);
    assert.deepEqual(server.logins, [], 'no login was sent');
    assert.equal(err.kind, 'network');
    assert.equal(
      err.message,
      `MySQL at mysql://etl@${address}:${server.port}/warehouse does not offer TLS (encrypted connections), and a server on another machine is reached only with TLS unless the URL says ssl-mode=DISABLED. Nothing was sent while connecting: not the user name, not the password.`,
    );
    assert.match(err.hint ?? '', /ssl-mode=DISABLED in the URL connects without encryption/);
  });

  it('ssl-mode=DISABLED is the opt-in to plain text: the login goes unencrypted, and a refusal reads as auth', async function () {
    const server = await probe(this);
    const err = await open(`mysql://etl@${address}:${server.port}/warehouse?ssl-mode=DISABLED`);
    assert.deepEqual(server.logins, [{ user: 'etl', encrypted: false }]);
    assert.equal(err.kind, 'auth', err.describe());
    assert.match(err.message, /using the password in MYSQL_PWD/);
  });

  it('checks the certificate by default: a self-signed one stops before the login, with the advice; ssl-mode=REQUIRED encrypts without checking it', async function () {
    const certificate = await selfSignedCertificate(home, 'probe', [`IP:${address ?? '127.0.0.1'}`]);
    if (!certificate) this.skip();
    const server = await probe(this, certificate);
    const checked = await open(`mysql://etl@${address}:${server.port}/warehouse`);
    assert.equal(server.sslRequests, 1, 'the client asked for TLS');
    assert.deepEqual(server.logins, [], 'no login over a connection whose certificate failed');
    assert.equal(checked.kind, 'network', checked.describe());
    assert.match(checked.message, /The TLS certificate of MySQL at .* could not be verified/);
    assert.match(checked.hint ?? '', /ssl-ca=\/path\/to\/ca\.pem/);

    const unchecked = await open(`mysql://etl@${address}:${server.port}/warehouse?ssl-mode=REQUIRED`);
    assert.deepEqual(server.logins, [{ user: 'etl', encrypted: true }], 'the login went encrypted');
    assert.equal(unchecked.kind, 'auth', unchecked.describe());
  });
});

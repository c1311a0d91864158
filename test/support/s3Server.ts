// An S3-compatible server on loopback for tests (s3rver in a process of its own, storing
// objects in a temporary folder; see s3ServerProcess.ts), with a bucket made, and a fault proxy that stands in front of it as the endpoint a
// test gives the store: it can drop the connection midway through an UploadPart, answer 403
// AccessDenied to every write (a bucket that refuses writes) and trickle the answers.

import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** The access key s3rver knows (any other is answered InvalidAccessKeyId). */
export const S3RVER_KEY = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export class S3TestServer {
  /** `http://127.0.0.1:<port>`: the server itself, with no faults in the way */
  url = '';
  readonly folder: string;
  private child?: ChildProcess;

  private constructor(readonly bucket: string) {
    this.folder = fs.mkdtempSync(path.join(os.tmpdir(), 'dq-s3rver-'));
  }

  static async start(bucket = 'dq-lake'): Promise<S3TestServer> {
    const s = new S3TestServer(bucket);
    const child = fork(path.join(__dirname, 's3ServerProcess.js'), [s.folder, bucket], { execArgv: ['--openssl-legacy-provider'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    s.child = child;
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (m: { port?: number; error?: string }) => (m.port ? resolve(m.port) : reject(new Error(`the S3 server did not start: ${m.error}`))));
      child.once('exit', (code) => reject(new Error(`the S3 server ended with ${code}`)));
    });
    s.url = `http://127.0.0.1:${port}`;
    return s;
  }

  /** An environment holding the server's credentials (and nothing of the machine's own AWS setup). */
  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return {
      HOME: this.folder,
      AWS_ACCESS_KEY_ID: S3RVER_KEY.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_KEY.secretAccessKey,
      AWS_REGION: 'us-east-1',
      AWS_EC2_METADATA_DISABLED: 'true',
      ...extra,
    };
  }

  /** The file s3rver keeps an object's bytes in (or undefined when there is no such object). */
  objectFile(key: string): string | undefined {
    const file = path.join(this.folder, this.bucket, `${key}._S3rver_object`);
    return fs.existsSync(file) ? file : undefined;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await ended;
    }
    fs.rmSync(this.folder, { recursive: true, force: true });
  }
}

export interface S3Faults {
  /** drop the connection midway through the body of UploadPart requests from this one on (1 = the first) */
  dropUploadPartFrom?: number;
  /** answer 403 AccessDenied to every PUT, POST and DELETE */
  refuseWrites?: boolean;
  /** answer 403 AccessDenied to the PUTs of the objects whose path (`/bucket/key`) this matches */
  refuseWritesTo?: RegExp;
  /** send answers in pieces of this many bytes ... */
  trickleBytes?: number;
  /** ... this many milliseconds apart */
  trickleMs?: number;
  /** cut the connection of an object's download after this many bytes of its body */
  cutDownloadsAfter?: number;
  /** answer 412 PreconditionFailed to a PUT or CompleteMultipartUpload whose If-None-Match or If-Match does not hold */
  enforceConditions?: boolean;
}

/** What the proxy saw: requests by kind, as S3 names the operations. */
export interface S3ProxyCounts {
  uploadParts: number;
  droppedParts: number;
  refusedWrites: number;
  requests: number;
  /** the keys of each DeleteObjects call */
  deleteCalls: number[];
  /** writes refused for a condition that did not hold */
  preconditionFailures: number;
}

/** An HTTP proxy (as an endpoint, not a forward proxy) in front of the S3 server, with faults. */
export class S3FaultProxy {
  url = '';
  faults: S3Faults = {};
  readonly counts: S3ProxyCounts = { uploadParts: 0, droppedParts: 0, refusedWrites: 0, requests: 0, deleteCalls: [], preconditionFailures: 0 };
  private readonly server: http.Server;
  private readonly upstream: URL;

  private constructor(upstream: string) {
    this.upstream = new URL(upstream);
    this.server = http.createServer((req, res) => this.handle(req, res));
  }

  static async start(upstream: string, faults: S3Faults = {}): Promise<S3FaultProxy> {
    const p = new S3FaultProxy(upstream);
    p.faults = faults;
    await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    p.url = `http://127.0.0.1:${(p.server.address() as AddressInfo).port}`;
    return p;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.counts.requests++;
    const url = new URL(req.url ?? '/', 'http://proxy');
    const write = req.method === 'PUT' || req.method === 'POST' || req.method === 'DELETE';
    if (write && (this.faults.refuseWrites || (req.method === 'PUT' && this.faults.refuseWritesTo?.test(decodeURIComponent(url.pathname))))) {
      this.counts.refusedWrites++;
      req.resume();
      const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>fault</RequestId></Error>';
      res.writeHead(403, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    if (req.method === 'POST' && url.searchParams.has('delete')) {
      this.deleteObjects(req, res);
      return;
    }
    const conditional = req.headers['if-none-match'] !== undefined || req.headers['if-match'] !== undefined;
    const wholeWrite = (req.method === 'PUT' && !url.searchParams.has('partNumber')) || (req.method === 'POST' && url.searchParams.has('uploadId'));
    if (this.faults.enforceConditions && conditional && wholeWrite) {
      void this.conditionally(req, res, url);
      return;
    }
    this.pass(req, res, url);
  }

  /** Holds the write's condition against the object as it is now: 412 when it does not hold, else passes it on. */
  private async conditionally(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    req.pause();
    const current = await new Promise<{ status: number; etag?: string }>((resolve) => {
      const head = http.request({ host: this.upstream.hostname, port: this.upstream.port, method: 'HEAD', path: url.pathname }, (answer) => {
        answer.resume();
        resolve({ status: answer.statusCode ?? 500, etag: answer.headers.etag });
      });
      head.on('error', () => resolve({ status: 500 }));
      head.end();
    });
    const noneMatch = req.headers['if-none-match'];
    const match = req.headers['if-match'];
    const holds = noneMatch === '*' ? current.status === 404 : match !== undefined ? current.status === 200 && current.etag === match : true;
    if (!holds) {
      this.counts.preconditionFailures++;
      req.resume();
      const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>';
      res.writeHead(412, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    req.resume();
    this.pass(req, res, url);
  }

  private pass(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    const isPart = req.method === 'PUT' && url.searchParams.has('partNumber') && url.searchParams.has('uploadId');
    if (isPart) this.counts.uploadParts++;
    const drop = isPart && this.faults.dropUploadPartFrom !== undefined && this.counts.uploadParts >= this.faults.dropUploadPartFrom;
    if (drop) {
      // read half of the part, then cut the connection: the client sees a reset midway
      this.counts.droppedParts++;
      const half = Number(req.headers['content-length'] ?? 0) / 2;
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen >= half) req.socket.destroy();
      });
      return;
    }
    const forward = http.request(
      { host: this.upstream.hostname, port: this.upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const cutAfter = this.faults.cutDownloadsAfter;
        if (req.method === 'GET' && cutAfter !== undefined && answer.statusCode === 200) {
          let sent = 0;
          answer.on('data', (chunk: Buffer) => {
            if (sent >= cutAfter) return;
            const room = cutAfter - sent;
            res.write(chunk.subarray(0, room));
            sent += Math.min(room, chunk.length);
            if (sent >= cutAfter) res.socket?.destroy();
          });
          return;
        }
        if (!this.faults.trickleBytes) {
          answer.pipe(res);
          return;
        }
        void this.trickle(answer, res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  }

  /** DeleteObjects as S3 takes it: at most 1000 keys, else 400 MalformedXML. */
  private deleteObjects(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const keys = (body.toString('utf8').match(/<Key>/g) ?? []).length;
      this.counts.deleteCalls.push(keys);
      if (keys > 1000) {
        const answer = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>MalformedXML</Code><Message>The XML you provided was not well-formed or did not validate against our published schema</Message></Error>';
        res.writeHead(400, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(answer) });
        res.end(answer);
        return;
      }
      const forward = http.request({ host: this.upstream.hostname, port: this.upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      forward.end(body);
    });
  }

  private async trickle(answer: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const size = this.faults.trickleBytes ?? 1;
    const pause = this.faults.trickleMs ?? 10;
    try {
      for await (const chunk of answer as AsyncIterable<Buffer>) {
        for (let at = 0; at < chunk.length; at += size) {
          if (res.destroyed) return;
          res.write(chunk.subarray(at, at + size));
          await new Promise((r) => setTimeout(r, pause));
        }
      }
      res.end();
    } catch {
      res.destroy();
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

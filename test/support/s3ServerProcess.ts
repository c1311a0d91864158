// The loopback S3 server's own process (started by s3Server.ts): s3rver over a folder, on
// 127.0.0.1 at a free port, with the bucket made. It runs with Node's legacy OpenSSL provider,
// because s3rver makes ListObjectsV2's continuation tokens with DES. Two calls s3rver lacks are
// answered here from its folder, as S3 answers them: AbortMultipartUpload (DELETE with
// uploadId) and ListMultipartUploads (GET ?uploads), so tests can see that nothing is left
// pending. The port goes to the parent over IPC; the process ends when the parent goes.

import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

interface S3rverApp {
  configureBuckets(): Promise<void>;
  callback(): http.RequestListener;
}

function xml(res: http.ServerResponse, status: number, body: string): void {
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Answers the two multipart calls s3rver lacks; false for every other request. */
function multipartShim(folder: string, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  const url = new URL(req.url ?? '/', 'http://s3');
  const [bucket, ...keyParts] = url.pathname.slice(1).split('/').filter((part) => part !== '');
  const uploads = path.join(folder, decodeURIComponent(bucket), '._S3rver_uploads');
  if (req.method === 'DELETE' && url.searchParams.has('uploadId') && keyParts.length > 0) {
    const dir = path.join(uploads, path.basename(url.searchParams.get('uploadId') ?? ''));
    req.resume();
    if (!fs.existsSync(dir)) {
      xml(res, 404, '<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>');
      return true;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    res.writeHead(204);
    res.end();
    return true;
  }
  if (req.method === 'GET' && keyParts.length === 0 && url.searchParams.has('uploads')) {
    const ids = fs.existsSync(uploads) ? fs.readdirSync(uploads) : [];
    const entries = ids
      .map((id) => {
        const keyFile = path.join(uploads, id, 'key');
        const key = fs.existsSync(keyFile) ? fs.readFileSync(keyFile, 'utf8') : '';
        return `<Upload><Key>${escape(key)}</Key><UploadId>${escape(id)}</UploadId></Upload>`;
      })
      .join('');
    xml(res, 200, `<ListMultipartUploadsResult><Bucket>${escape(bucket)}</Bucket><IsTruncated>false</IsTruncated>${entries}</ListMultipartUploadsResult>`);
    return true;
  }
  return false;
}

async function main(): Promise<void> {
  const [folder, bucket] = process.argv.slice(2);
  const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverApp;
  const app = new S3rver({ silent: true, directory: folder, configureBuckets: [{ name: bucket }], vhostBuckets: false });
  await app.configureBuckets();
  const handle = app.callback();
  const server = http.createServer((req, res) => {
    if (!multipartShim(folder, req, res)) handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.send?.({ port: (server.address() as AddressInfo).port });
  process.on('disconnect', () => process.exit(0));
}

main().catch((err) => {
  process.send?.({ error: String(err instanceof Error ? err.stack : err) });
  process.exit(1);
});

// The check a sync makes of a job's downloaded files before any target reads them: each gzip
// file is read to its end, so one cut short where its lines happen to be whole (which DuckDB's
// reader takes for a shorter file, without a word) or with a wrong checksum is refused, naming
// the file, instead of loading fewer or other rows.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { constants, gzipSync } from 'node:zlib';
import { checkGzipFiles } from '../../../src/sync/syncWorkFolder';

describe('the check of a sync\'s downloaded files', function () {
  this.timeout(30_000);
  let dir: string;
  /** about 6 MiB of JSONL: several of the check's steps */
  let text: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-gzip-check-'));
    text = Array.from({ length: 60_000 }, (_, i) => `${JSON.stringify({ key: { id: i }, value: { name: `name ${i}`, note: 'x'.repeat(60 + (i % 40)) } })}\n`).join('');
  });
  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function file(name: string, bytes: Buffer): Promise<{ path: string; gzip: boolean }> {
    const p = path.join(dir, name);
    await fs.writeFile(p, bytes);
    return { path: p, gzip: true };
  }

  it('passes whole gzip files, and leaves files that are not gzip to the target', async () => {
    const whole = await file('whole.jsonl.gz', gzipSync(text));
    const plain = { ...(await file('plain.jsonl', Buffer.from(text))), gzip: false };
    await checkGzipFiles([whole, plain, whole]);
  });

  it('refuses a file cut short where its lines are whole, and one whose checksum is wrong, naming each', async () => {
    const whole = await file('part-1.jsonl.gz', gzipSync(text));
    // every line whole, flushed, but the stream never ends: what a download stopped there leaves
    const cut = await file('part-2.jsonl.gz', gzipSync(text.slice(0, text.lastIndexOf('\n', text.length * 0.7) + 1), { finishFlush: constants.Z_FULL_FLUSH }));
    const crc = gzipSync(text);
    crc[crc.length - 8] ^= 0xff;
    const wrong = await file('part-3.jsonl.gz', crc);
    for (const [bad, name] of [
      [cut, 'part-2.jsonl.gz'],
      [wrong, 'part-3.jsonl.gz'],
    ] as const) {
      await assert.rejects(checkGzipFiles([whole, bad]), (err: Error & { kind?: string; hint?: string }) => {
        assert.equal(err.kind, 'invalidResponse');
        assert.ok(err.message.includes(name), err.message);
        assert.match(err.message, /is not whole gzip/);
        assert.match(err.hint ?? '', /Sync the table again/);
        return true;
      });
    }
  });

  it('stops when the sync is cancelled', async () => {
    const whole = await file('big.jsonl.gz', gzipSync(text.repeat(4)));
    await assert.rejects(checkGzipFiles([whole], AbortSignal.abort()), (err: Error & { kind?: string }) => err.kind === 'cancelled');
  });
});

// Restart points in gzip files (gzipIndex.ts): read from any of them, a file gives exactly the
// bytes and records it gives read from its start, whatever the compression level, the line
// shapes (blank, white space only, CRLF, long) or the bit inside a byte where a block begins.
// A window of records read from a restart point is the window read from the start. Files that
// cannot be indexed (several members, bytes after the member, damage) are counted as before and
// get no restart points. And through the engine's shared reads (fileEnds.ts): restart points come
// with a file read to its end, on a thread of its own, and go when the file changes.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { constants, createInflateRaw, gunzipSync, gzipSync } from 'node:zlib';
import { FileEnds } from '../../../src/engine/fileEnds';
import { recordSpan, type Restart } from '../../../src/engine/fileLines';
import { GzipDamage, indexGzipFile, restartHead, streamFrom, type GzipIndex } from '../../../src/engine/gzipIndex';

/** Lines of many shapes: JSON records of varied length, blank and white-space lines, CRLF ends. */
function sampleText(lines: number, seed: number): string {
  const out: string[] = [];
  let x = seed;
  const next = (): number => (x = (x * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < lines; i++) {
    const r = next() % 100;
    if (r < 3) out.push('');
    else if (r < 5) out.push(' \t ');
    else if (r < 7) out.push(`${JSON.stringify({ key: { id: i }, value: { note: 'crlf' } })}\r`);
    else out.push(JSON.stringify({ key: { id: i }, value: { name: `user ${next() % 1000}`, text: 'x'.repeat(next() % 400), n: next() } }));
  }
  return `${out.join('\n')}\n`;
}

/** Records (lines of more than white space) in `text` up to byte `end`. */
function recordsBefore(bytes: Buffer, end: number): number {
  return bytes
    .subarray(0, end)
    .toString('utf8')
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.trim() !== '').length;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('engine: restart points in gzip files', function () {
  this.timeout(120_000);
  let dir: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-gzip-index-'));
  });

  after(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('puts empty blocks in front of a block that starts at any bit of a byte, which decode to nothing', () => {
    for (let bits = 0; bits < 8; bits++) {
      // the bits left of the last byte begin the next block: zeros, a stored block's start
      const head = restartHead(0x00, bits);
      const inflate = createInflateRaw();
      inflate.on('error', () => undefined);
      const { _handle: handle, _writeState: state } = inflate as unknown as { _handle: { writeSync: (...a: unknown[]) => void }; _writeState: Uint32Array };
      const out = Buffer.alloc(16);
      handle.writeSync(constants.Z_SYNC_FLUSH, head, 0, head.length, out, 0, out.length);
      assert.equal(inflate.errored, null, `bits ${bits}: ${String(inflate.errored)}`);
      assert.equal(out.length - state[0], 0, `bits ${bits}: no output`);
      inflate.close();
    }
  });

  for (const level of [1, 6, 9]) {
    it(`gzip level ${level}: from every restart point, the same bytes and records as from the start`, async () => {
      const text = Buffer.from(sampleText(30_000, level));
      const file = path.join(dir, `level-${level}.jsonl.gz`);
      await fs.writeFile(file, gzipSync(text, { level }));
      const read = indexGzipFile(file, { windows: path.join(dir, `level-${level}.windows`), every: 64 * 1024 });
      assert.equal(read.records, recordsBefore(text, text.length), 'the records of the file');
      const index = read.index as GzipIndex;
      assert.ok(index && index.checkpoints.length >= 4, `${index?.checkpoints.length} restart points`);
      for (const checkpoint of index.checkpoints) {
        const rest = await readAll(await streamFrom(file, index, checkpoint));
        assert.ok(rest.equals(text.subarray(checkpoint.output)), `the bytes from ${checkpoint.output} (a block starting ${checkpoint.bits} bits before a byte's end)`);
        assert.equal(text[checkpoint.output + checkpoint.skip - 1], 0x0a, 'a line starts after the bytes skipped');
        assert.equal(checkpoint.records, recordsBefore(text, checkpoint.output + checkpoint.skip), 'the records before that line');
      }
    });
  }

  it('finds blocks that start at each of the eight bits of a byte', async () => {
    const seen = new Set<number>();
    for (const level of [1, 4, 6, 9]) {
      const file = path.join(dir, `bits-${level}.jsonl.gz`);
      await fs.writeFile(file, gzipSync(Buffer.from(sampleText(40_000, 7 + level)), { level }));
      for (const checkpoint of indexGzipFile(file, { windows: path.join(dir, `bits-${level}.windows`), every: 16 * 1024 }).index?.checkpoints ?? []) seen.add(checkpoint.bits);
    }
    assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('reads a window of records from a restart point as it reads it from the start, around it too', async () => {
    const text = Buffer.from(sampleText(20_000, 42));
    const file = path.join(dir, 'windows.jsonl.gz');
    await fs.writeFile(file, gzipSync(text));
    const index = indexGzipFile(file, { windows: path.join(dir, 'windows.windows'), every: 32 * 1024 }).index as GzipIndex;
    const restarts = async (record: number): Promise<Restart | undefined> => {
      const checkpoint = [...index.checkpoints].reverse().find((c) => c.records <= record);
      return checkpoint && { stream: await streamFrom(file, index, checkpoint), skip: checkpoint.skip, records: checkpoint.records, total: index.records };
    };
    let used = 0;
    const counting = async (record: number): Promise<Restart | undefined> => {
      const restart = await restarts(record);
      if (restart) used++;
      return restart;
    };
    const around = { before: 50, after: 120, bytes: 64 * 1024 };
    for (const from of [0, 10, 3_000, 9_999, 15_000, index.records - 5, index.records + 3]) {
      const plain = await recordSpan(file, { gzip: true, from, count: 20 }, around);
      assert.deepEqual(await recordSpan(file, { gzip: true, from, count: 20 }, around, counting), plain, `the window from record ${from}`);
    }
    assert.ok(used >= 4, `${used} windows were read from a restart point`);
  });

  it('reads a restart point of another version of the file again from its start, not wrong rows', async () => {
    const text = Buffer.from(sampleText(20_000, 5));
    const file = path.join(dir, 'changed.jsonl.gz');
    await fs.writeFile(file, gzipSync(text));
    const index = indexGzipFile(file, { windows: path.join(dir, 'changed.windows'), every: 32 * 1024 }).index as GzipIndex;
    const checkpoint = index.checkpoints[Math.floor(index.checkpoints.length / 2)];
    // a restart point that claims the wrong records: the read reaches the end with another count
    const wrong = async (): Promise<Restart> => ({ stream: await streamFrom(file, index, checkpoint), skip: checkpoint.skip, records: checkpoint.records + 1, total: index.records });
    const from = checkpoint.records + 10;
    const plain = await recordSpan(file, { gzip: true, from, count: 5 }, { before: 0, after: 1_000_000, bytes: 1024 * 1024 * 1024 });
    assert.deepEqual(await recordSpan(file, { gzip: true, from, count: 5 }, { before: 0, after: 1_000_000, bytes: 1024 * 1024 * 1024 }, wrong), plain);
  });

  it('counts files of several members, with bytes after their member, or damaged as before, and gives them no restart points', async () => {
    const text = Buffer.from(sampleText(10_000, 3));
    const half = text.indexOf(0x0a, text.length >> 1) + 1;
    const records = recordsBefore(text, text.length);
    const members = path.join(dir, 'members.jsonl.gz');
    await fs.writeFile(members, Buffer.concat([gzipSync(text.subarray(0, half)), gzipSync(text.subarray(half))]));
    const padded = path.join(dir, 'padded.jsonl.gz');
    await fs.writeFile(padded, Buffer.concat([gzipSync(text), Buffer.alloc(512)]));
    for (const file of [members, padded]) {
      const read = indexGzipFile(file, { windows: `${file}.windows`, every: 16 * 1024 });
      assert.equal(read.records, records, path.basename(file));
      assert.equal(read.index, undefined, `${path.basename(file)}: no restart points`);
    }
    const whole = gzipSync(text);
    const cut = path.join(dir, 'cut.jsonl.gz');
    await fs.writeFile(cut, whole.subarray(0, whole.length - 3000));
    const cutAt = gunzipSync(whole.subarray(0, whole.length - 3000), { finishFlush: constants.Z_SYNC_FLUSH });
    assert.throws(
      () => indexGzipFile(cut, { windows: `${cut}.windows` }),
      (err: unknown) => err instanceof GzipDamage && err.code === 'Z_BUF_ERROR' && err.records === recordsBefore(cutAt, cutAt.lastIndexOf(0x0a) + 1),
    );
    const garbled = Buffer.from(whole);
    garbled[garbled.length >> 1] ^= 0x5a;
    const bad = path.join(dir, 'garbled.jsonl.gz');
    await fs.writeFile(bad, garbled);
    assert.throws(() => indexGzipFile(bad, { windows: `${bad}.windows` }), (err: unknown) => err instanceof GzipDamage && err.code === 'Z_DATA_ERROR');
  });

  it('through the engine\'s reads: restart points come with a whole file, on a thread of its own, and go when the file changes', async () => {
    const text = Buffer.from(sampleText(60_000, 9));
    const file = path.join(dir, 'ends.jsonl.gz');
    await fs.writeFile(file, gzipSync(text));
    const indexDir = path.join(dir, 'index');
    await fs.mkdir(indexDir);
    const ends = new FileEnds(indexDir);
    assert.equal(await ends.restartAt(file, 50_000), undefined, 'none before the file is read');
    assert.equal(await ends.records(file, () => false), recordsBefore(text, text.length));
    assert.equal(await ends.isWhole(file), true);
    // 8 MiB of text: one restart point past 4 MiB
    const restart = await ends.restartAt(file, recordsBefore(text, text.length) - 10);
    assert.ok(restart, 'a restart point near the end');
    const rest = await readAll(restart.stream);
    assert.ok(rest.length < text.length, 'the read starts past the file\'s start');
    assert.ok(text.subarray(text.length - rest.length).equals(rest), 'and gives the file\'s last bytes');
    assert.equal((await fs.readdir(indexDir)).length, 1, 'its windows in the folder given');

    // the same name, other content (downloaded again): not whole until read, no restart point from the old one
    await fs.writeFile(file, gzipSync(Buffer.from(sampleText(60_000, 10))));
    const later = new Date(Date.now() + 5_000);
    await fs.utimes(file, later, later);
    assert.equal(await ends.isWhole(file), false, 'another version of the file is not known to be whole');
    assert.equal(await ends.restartAt(file, 50_000), undefined, 'nor read from the old restart points');
    await ends.records(file, () => false);
    assert.equal(await ends.isWhole(file), true);
    assert.equal((await fs.readdir(indexDir)).length, 1, 'the old windows are gone');
  });

  it('reads on threads that take none of the engine\'s own options: a module preloaded into the engine is not run there', async () => {
    // the engine's IPC channel is its file descriptor 3: a preloaded module that writes there at
    // exit (as the bench's memory probe does) would garble it from every thread that ran it
    const text = Buffer.from(sampleText(20_000, 13));
    const file = path.join(dir, 'preloaded.jsonl.gz');
    await fs.writeFile(file, gzipSync(text));
    const preload = path.join(dir, 'preload.js');
    await fs.writeFile(preload, "const { threadId } = require('node:worker_threads'); process.on('exit', () => { try { require('node:fs').writeSync(3, `thread ${threadId}\\n`); } catch {} });\n");
    const fileEnds = require.resolve('../../../src/engine/fileEnds');
    const script = `new (require(${JSON.stringify(fileEnds)}).FileEnds)(${JSON.stringify(dir)}).records(${JSON.stringify(file)}, () => false).then((n) => console.log(n))`;
    const child = spawn(process.execPath, ['--require', preload, '-e', script], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'] });
    let out = '';
    let fd3 = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => (fd3 += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    assert.equal(Number(out.trim()), recordsBefore(text, text.length), 'the records, read on a thread');
    assert.deepEqual(fd3.trim().split('\n'), ['thread 0'], 'only the engine\'s own thread ran the preloaded module');
  });

  it('reads many files asked for at once, a few at a time, and keeps no windows of a file it could not index', async () => {
    const indexDir = path.join(dir, 'many');
    await fs.mkdir(indexDir);
    const ends = new FileEnds(indexDir);
    const texts = Array.from({ length: 5 }, (_, i) => Buffer.from(sampleText(20_000, 100 + i)));
    const files = await Promise.all(
      texts.map(async (text, i) => {
        const file = path.join(dir, `many-${i}.jsonl.gz`);
        // the last one of two members: read, counted, not indexed
        const half = text.indexOf(0x0a, text.length >> 1) + 1;
        await fs.writeFile(file, i < 4 ? gzipSync(text) : Buffer.concat([gzipSync(text.subarray(0, half)), gzipSync(text.subarray(half))]));
        return file;
      }),
    );
    // one caller gives up while it waits for its turn: the others still get theirs
    let gaveUp = false;
    const leaving = ends.records(files[0], () => gaveUp).catch(() => undefined);
    gaveUp = true;
    const counts = await Promise.all(files.map((file) => ends.records(file, () => false)));
    assert.deepEqual(counts, texts.map((text) => recordsBefore(text, text.length)));
    await leaving;
    const windows = await fs.readdir(indexDir);
    assert.equal(windows.length, 4, `the windows of the four files indexed: ${windows.join(', ')}`);
    assert.equal(await ends.restartAt(files[4], 15_000), undefined, 'none for the file of two members');
  });

  it('a read its caller left does not fail the next caller, who gets the records', async () => {
    const text = Buffer.from(sampleText(60_000, 11));
    const file = path.join(dir, 'left.jsonl.gz');
    await fs.writeFile(file, gzipSync(text));
    const ends = new FileEnds(path.join(dir, 'index'));
    const records = recordsBefore(text, text.length);
    // left at once: cancelled, unless the read was done before the cancel was looked at
    const first = await ends.records(file, () => true).then(
      (n) => n,
      (err: unknown) => err,
    );
    assert.ok(first === records || (first as { kind?: string }).kind === 'cancelled', String(first));
    assert.equal(await ends.records(file, () => false), records);
  });
});

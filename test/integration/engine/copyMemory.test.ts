// The engine's memory once it has copied a result several times larger than its memory limit.
// DuckDB's allocator keeps what a statement freed for about a second before it hands it back to
// the system, so whatever ran next (a profile or a chart waiting for the copy) came on top of it;
// the engine hands it back between the copy's statements and as soon as the copy is complete. A
// user sees the engine's process back near its idle size the moment the copy is done, rather than
// some hundreds of MiB above it. Linux only: the process's size is read from /proc.

import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EngineClient } from '../../../src/engine/engineClient';
import type { ResultSource } from '../../../src/engine/engineProtocol';
import { HOST_SCRIPT, keyedSchema } from './sampleResults';

const LIMIT_MB = 128;
const FILES = 4;
/** rows of each file, of about 330 bytes of JSON each: about 400 MB in all, three times the limit */
const FILE_ROWS = 300_000;

/** The process's resident memory now and at its peak, in MiB. */
async function memoryOf(pid: number): Promise<{ now: number; peak: number }> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]) / 1024;
  return { now: mib('VmRSS'), peak: mib('VmHWM') };
}

/** Gzip JSONL result files of distinct rows (a key, a number, a text of about 250 characters), written by DuckDB. */
async function writeResult(dir: string): Promise<ResultSource> {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const paths: string[] = [];
  try {
    for (let f = 0; f < FILES; f++) {
      const file = path.join(dir, `part-${f}.jsonl.gz`);
      const first = f * FILE_ROWS;
      await conn.run(
        `COPY (SELECT {'action': 'U', 'ts': '2026-01-01T00:00:00Z'} AS meta, {'id': i} AS key, {'n': i % 1000, 'text': 'row ' || i || ' ' || repeat(chr(97 + (i % 26)::INTEGER), 240)} AS value
          FROM range(${first}, ${first + FILE_ROWS}) t(i)) TO '${file}' (FORMAT json, COMPRESSION gzip)`,
      );
      paths.push(file);
    }
  } finally {
    conn.closeSync();
    db.closeSync();
  }
  return { paths, schema: keyedSchema({ n: { type: 'integer', format: 'int64' }, text: { type: 'string' } }) };
}

describe('engine: memory handed back after a result\'s copy', function () {
  this.timeout(180_000);
  let dir: string;
  let source: ResultSource;

  before(async function () {
    if (!existsSync('/proc/self/status')) this.skip();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-copy-memory-'));
    await fs.mkdir(path.join(dir, 'result'));
    source = await writeResult(path.join(dir, 'result'));
  });

  after(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('is back near its idle size as soon as a copy of three times its memory limit is complete', async () => {
    const engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine'), memoryLimitMb: LIMIT_MB, keptCopiesMb: 0, readableFolders: async () => [path.join(dir, 'result')] });
    try {
      await engine.sql('SELECT 1', 0, 1);
      const pid = engine.processId!;
      const idle = (await memoryOf(pid)).now;
      // opens the result, waits until its copy is complete, and closes it
      const { rows } = await engine.prepare(source);
      const copied = await memoryOf(pid);
      assert.equal(engine.processId, pid, 'the same process throughout');
      assert.equal(rows, FILES * FILE_ROWS, 'the whole result copied');
      const took = copied.peak - idle;
      assert.ok(took > LIMIT_MB / 2, `the copy took memory: ${Math.round(idle)} MiB idle, ${Math.round(copied.peak)} MiB at its peak`);
      assert.ok(copied.now - idle < took / 3, `back near its idle size of ${Math.round(idle)} MiB once copied: ${Math.round(copied.now)} MiB (${Math.round(copied.peak)} MiB at the peak)`);
    } finally {
      await engine.dispose();
    }
  });
});

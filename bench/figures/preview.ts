// Preview and SQL: what a person waits for in the preview of a 2 GB gzip JSONL result, driven
// through the engine client exactly as the preview drives it (open, first window of rows, the
// row count asked at once, then a sort and a window far down, each asked twice: at once, while
// the engine still converts the result to Parquet in the background, and once that file is
// complete), and the engine process's peak memory at two result sizes. Baseline: a bare
// DuckDB in a fresh process, one statement per question, as a person would ask a DuckDB shell.

import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SchemaEnvelope } from '../../src/core/contract';
import { EngineClient } from '../../src/engine/engineClient';
import type { ResultSource, View } from '../../src/engine/engineProtocol';
import { quoteString } from '../../src/engine/sqlText';
import { WINDOW_ROWS } from '../../src/webview/previewProtocol';
import { compared, median, valueAtMost, type BenchContext, type Figure, type Row } from '../figure';
import { prepareResult, RESULT_FORMAT, RESULT_TABLE } from '../support/preparedResult';
import { peakRssMiBOf } from '../support/processMemory';
import { succeeded, timedNode } from '../support/processes';

interface Size {
  mib: number;
  objects: number;
}

const FULL = { large: { mib: 2048, objects: 16 }, small: { mib: 256, objects: 2 }, repeats: 3 };
const QUICK = { large: { mib: 128, objects: 4 }, small: { mib: 32, objects: 1 }, repeats: 1 };

/** issue 16: the first rows within 300 ms, any later window within 150 ms */
const FIRST_ROWS_MS = 300;
const LATER_WINDOW_MS = 150;
const SORT: View = { sort: [{ column: 'value.duration_ms', descending: true }] };
/** the longest wait for the engine's Parquet copy of a result */
const CONVERSION_TIMEOUT_MS = 10 * 60_000;

interface Downloaded {
  source: ResultSource;
  bytes: number;
}

interface Session {
  firstRowsMs: number;
  countMs: number;
  rows: number;
  sortMs: number;
  farMs: number;
  sortAgainMs: number;
  farAgainMs: number;
  /** from open until the engine's Parquet copy of the result was complete */
  convertedAfterMs: number;
  farOffset: number;
  peakRssMiB?: number;
}

interface Bare {
  /** from the process's start to the last row */
  ms: number;
  /** the statement alone */
  statementMs: number;
  peakRssMiB?: number;
  first: unknown[] | null;
}

export const previewFigure: Figure = {
  name: 'preview',
  title: 'Preview and SQL on 2 GB of JSONL: first rows, count, sort, far page, memory',
  async run(ctx) {
    const plan = ctx.quick ? QUICK : FULL;
    const small = await download(ctx, 'small', plan.small);
    const smallSession = await session(ctx, small.source);
    const large = await download(ctx, 'large', plan.large);
    const label = `${mib(large.bytes)} MiB gzip JSONL in ${large.source.paths.length} files`;

    const cold: number[] = [];
    const warm: number[] = [];
    const bareFirst: Bare[] = [];
    for (let i = 0; i < plan.repeats; i++) {
      const first = await firstRowsOnly(ctx, large.source);
      cold.push(first.coldMs);
      warm.push(first.warmMs);
      bareFirst.push(await bare(ctx, `SELECT * FROM ${reader(large.source)} LIMIT ${WINDOW_ROWS}`));
      ctx.log(`preview: first rows ${first.coldMs.toFixed(0)} ms (engine running: ${first.warmMs.toFixed(0)} ms), bare DuckDB ${bareFirst[i].ms.toFixed(0)} ms (statement ${bareFirst[i].statementMs.toFixed(0)} ms)`);
    }
    const ours = await session(ctx, large.source);
    const bareCount = await bare(ctx, `SELECT count(*) FROM ${reader(large.source)}`);
    const bareSort = await bare(ctx, `SELECT * FROM ${reader(large.source)} ORDER BY value.duration_ms DESC NULLS LAST LIMIT ${WINDOW_ROWS}`);
    const bareFar = await bare(ctx, `SELECT * FROM ${reader(large.source)} LIMIT ${WINDOW_ROWS} OFFSET ${ours.farOffset}`);
    if (Number(bareCount.first?.[0]) !== ours.rows) throw new Error(`the engine counted ${ours.rows} rows, DuckDB ${String(bareCount.first?.[0])}`);
    const duck = (value: number): Row['baseline'] => ({ label: 'bare DuckDB, fresh process', value });

    const statement = (value: number): Row['baseline'] => ({ label: 'bare DuckDB, the statement alone', value });
    return [
      compared(`first ${WINDOW_ROWS} rows, engine not yet started, ${label}`, median(cold), 'ms', duck(median(bareFirst.map((b) => b.ms))), valueAtMost(FIRST_ROWS_MS, 'ms')),
      compared(`first ${WINDOW_ROWS} rows, engine already running`, median(warm), 'ms', statement(median(bareFirst.map((b) => b.statementMs))), valueAtMost(FIRST_ROWS_MS, 'ms')),
      compared(`row count (${ours.rows} rows), asked with the first rows`, ours.countMs, 'ms', duck(bareCount.ms)),
      compared(`sorted by a column, first ${WINDOW_ROWS} rows, asked at once`, ours.sortMs, 'ms', duck(bareSort.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`${WINDOW_ROWS} rows from row ${ours.farOffset}, asked at once`, ours.farMs, 'ms', duck(bareFar.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`the same sort once converted (${(ours.convertedAfterMs / 1000).toFixed(0)} s after opening)`, ours.sortAgainMs, 'ms', duck(bareSort.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared('the same far window once converted', ours.farAgainMs, 'ms', duck(bareFar.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`engine peak RSS, ${mib(large.bytes)} MiB result`, ours.peakRssMiB ?? NaN, 'MiB', { label: `engine at ${mib(small.bytes)} MiB`, value: smallSession.peakRssMiB }, {
        text: 'ratio >= 0.9 (flat in the size of the result)',
        met: (r) => (r.ratio ?? 0) >= 0.9,
      }),
      compared(`bare DuckDB peak RSS, row count of ${mib(large.bytes)} MiB`, bareCount.peakRssMiB ?? NaN, 'MiB', { label: 'engine', value: ours.peakRssMiB }),
    ];
  },
};

/**
 * Time from open to the first window of rows: in a fresh engine, as the first preview of a
 * session has it (the engine process starts), then again in the running engine.
 */
async function firstRowsOnly(ctx: BenchContext, source: ResultSource): Promise<{ coldMs: number; warmMs: number }> {
  const engine = newEngine(ctx);
  const firstWindow = async (): Promise<number> => {
    const started = performance.now();
    const { handle } = await engine.open(source);
    await engine.page(handle, {}, 0, WINDOW_ROWS);
    const ms = performance.now() - started;
    await engine.closeHandle(handle);
    return ms;
  };
  try {
    const coldMs = await firstWindow();
    return { coldMs, warmMs: await firstWindow() };
  } finally {
    await engine.dispose();
  }
}

/** One preview session from open to a far window, then the engine process's peak memory. */
async function session(ctx: BenchContext, source: ResultSource): Promise<Session> {
  const engine = newEngine(ctx);
  try {
    const started = performance.now();
    const { handle } = await engine.open(source);
    const first = await engine.page(handle, {}, 0, WINDOW_ROWS);
    const firstRowsMs = performance.now() - started;
    if (first.rows.length !== WINDOW_ROWS) throw new Error(`the first window had ${first.rows.length} rows`);
    const rows = await engine.count(handle, {});
    const countMs = performance.now() - started;
    const sortMs = await timedMs(() => engine.page(handle, SORT, 0, WINDOW_ROWS));
    const farOffset = Math.floor(rows * 0.9);
    const farMs = await timedMs(() => engine.page(handle, {}, farOffset, WINDOW_ROWS));
    await converted(join(tempDir(ctx), `engine-${engine.processId}`), handle);
    const convertedAfterMs = performance.now() - started;
    const sortAgainMs = await timedMs(() => engine.page(handle, SORT, 0, WINDOW_ROWS));
    const farAgainMs = await timedMs(() => engine.page(handle, {}, farOffset, WINDOW_ROWS));
    const peakRssMiB = await peakRssMiBOf(engine.processId);
    ctx.log(
      `preview: ${rows} rows: first rows ${firstRowsMs.toFixed(0)} ms, count ${countMs.toFixed(0)} ms, sort ${sortMs.toFixed(0)} ms, far ${farMs.toFixed(0)} ms; ` +
        `converted after ${convertedAfterMs.toFixed(0)} ms: sort ${sortAgainMs.toFixed(0)} ms, far ${farAgainMs.toFixed(0)} ms; engine peak ${peakRssMiB?.toFixed(0)} MiB`,
    );
    return { firstRowsMs, countMs, rows, sortMs, farMs, sortAgainMs, farAgainMs, convertedAfterMs, farOffset, peakRssMiB };
  } finally {
    await engine.dispose();
  }
}

function newEngine(ctx: BenchContext): EngineClient {
  return new EngineClient({ hostScript: join(ctx.root, 'dist', 'engineHost.js'), tempDir: tempDir(ctx) });
}

const tempDir = (ctx: BenchContext): string => join(ctx.scratch, 'engine');

/**
 * Waits until the engine's Parquet copy of a result is complete: its file (result-<handle>.parquet
 * in the engine's work folder) ends with Parquet's closing magic once DuckDB has written it
 * whole, and the engine points the result's view at it right after.
 */
async function converted(workDir: string, handle: string): Promise<void> {
  const file = join(workDir, `result-${handle}.parquet`);
  const deadline = performance.now() + CONVERSION_TIMEOUT_MS;
  while (!(await endsWithParquetMagic(file))) {
    if (performance.now() > deadline) throw new Error(`the engine did not convert the result within ${CONVERSION_TIMEOUT_MS / 60_000} minutes (${(await readdir(workDir)).join(', ')})`);
    await sleep(250);
  }
  await sleep(250); // the view is replaced right after the file is closed
}

async function endsWithParquetMagic(file: string): Promise<boolean> {
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      if (size < 8) return false;
      const tail = Buffer.alloc(4);
      await handle.read(tail, 0, 4, size - 4);
      return tail.toString('latin1') === 'PAR1';
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

async function timedMs(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Generates a result in the emulator and downloads it as a user would; the emulator is gone afterwards. */
async function download(ctx: BenchContext, name: string, size: Size): Promise<Downloaded> {
  ctx.log(`preview: generating and downloading the ${name} result (${size.mib} MiB in ${size.objects} objects)`);
  const result = await prepareResult({ ...size, cacheDir: join(ctx.scratch, `preview-emulator-${name}`) });
  const dir = join(ctx.scratch, `preview-${name}`);
  try {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const files = await result.client.downloadJob(result.job, { dir, format: RESULT_FORMAT });
    const schema: SchemaEnvelope = await result.client.getSchema(RESULT_TABLE[0], RESULT_TABLE[1]);
    return {
      source: { paths: files.map((f) => f.path), format: RESULT_FORMAT, schema, name: RESULT_TABLE.join('.') },
      bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    };
  } finally {
    await result.close();
  }
}

/** DuckDB's own reader over the files, types inferred, as a person would write it. */
function reader(source: ResultSource): string {
  return `read_json([${source.paths.map(quoteString).join(', ')}], format = 'newline_delimited', compression = 'gzip')`;
}

async function bare(ctx: BenchContext, sql: string): Promise<Bare> {
  const probe = join(__dirname, '..', 'support', 'duckdbProbe.js');
  const temp = join(ctx.scratch, 'duckdb-probe');
  await mkdir(temp, { recursive: true });
  const run = succeeded('bare DuckDB', await timedNode(probe, [temp, sql], { cwd: ctx.root }));
  const printed = JSON.parse(run.stdout) as { ms: number; statementMs: number; first: unknown[] | null };
  return { ms: printed.ms, statementMs: printed.statementMs, peakRssMiB: run.peakRssMiB, first: printed.first };
}

const mib = (bytes: number): number => Math.round(bytes / (1024 * 1024));

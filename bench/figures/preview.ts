// Preview and SQL: what a person waits for in the preview of a 2 GB JSONL result in gzip files
// (level 6, the emulator's default), driven through the engine client exactly as the preview
// drives it (open, first window of rows, the row count asked at once, then a sort and a window
// far down, each asked twice: at once, while the engine still copies the result into its own
// table in the background (with the window after the far one), and once that copy is complete;
// then two windows deep into the sort), the same questions on a result copied for its preview
// right after its download (prepared), the engine process's peak memory at three result sizes,
// and the extension host side's (the engine client reading windows over the whole result)
// against a bare Node process. Baseline: a bare DuckDB in a fresh process, one statement per
// question, as a person would ask a DuckDB shell.

import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SchemaEnvelope } from '../../src/core/contract';
import type { Logger } from '../../src/core/logger';
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

// `small` is no larger than the engine's memory limit (256 MiB), `middle` four times that: the
// engine's peak memory at `middle` against `large` shows whether it still grows with the result
const FULL = { large: { mib: 2048, objects: 16 }, middle: { mib: 1024, objects: 8 }, small: { mib: 256, objects: 2 }, repeats: 3 };
const QUICK = { large: { mib: 128, objects: 4 }, middle: { mib: 64, objects: 2 }, small: { mib: 32, objects: 1 }, repeats: 1 };

/** issue 16: the first rows within 300 ms, any later window within 150 ms */
const FIRST_ROWS_MS = 300;
const LATER_WINDOW_MS = 150;
const SORT: View = { sort: [{ column: 'value.duration_ms', descending: true }] };
/** the longest wait for the engine's copy of a result */
const CONVERSION_TIMEOUT_MS = 10 * 60_000;
/** where the windows deep into the sort start, as a share of the rows */
const DEEP = 0.4;
/** where the far window starts, as a share of the rows (40% into the 15th of 16 files) */
const FAR = 0.9;
/** the last window of this file, as a share of the files (the 13th of 16), and of the files before it, is read at once */
const EDGE_FILE = 0.8;
/** far windows asked at once: each kind in this many files */
const FAR_SAMPLES = 3;

interface Downloaded {
  source: ResultSource;
  /** the JSONL's size, uncompressed */
  mib: number;
  /** the gzip files' size */
  bytes: number;
}

interface Session {
  firstRowsMs: number;
  countMs: number;
  rows: number;
  sortMs: number;
  /** the far window at `farOffset`, then at the same place in the files before it */
  farMs: number[];
  /** the window after the one at `farOffset`, asked right after it (as scrolling on does) */
  farNextMs: number;
  /** the windows that end files `edgeFiles` (0-based), asked at once: the most of one file to decompress */
  edgeMs: number[];
  edgeFiles: number[];
  sortAgainMs: number;
  farAgainMs: number;
  /** from open until the engine's copy of the result was complete */
  convertedAfterMs: number;
  farOffset: number;
  /** the first sorted window from row `deepOffset` once copied, and the window after it */
  deepMs: number;
  deepNextMs: number;
  deepOffset: number;
  /** after the far window once copied (the steps measured before the deep windows existed) */
  peakRssMiB?: number;
  /** after the deep windows too: a sort of every row, whose memory grows with the rows up to the engine's limit */
  deepPeakRssMiB?: number;
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
    const middle = await download(ctx, 'middle', plan.middle);
    const middleSession = await session(ctx, middle.source);
    await rm(join(ctx.scratch, 'preview-middle'), { recursive: true, force: true });
    const large = await download(ctx, 'large', plan.large);
    const label = `${large.mib} MiB of JSONL in ${large.source.paths.length} gzip files (${mib(large.bytes)} MiB)`;

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
    const ready = await preparedSession(ctx, large.source, ours.farOffset, ours.deepOffset);
    const bareCount = await bare(ctx, `SELECT count(*) FROM ${reader(large.source)}`);
    const bareSort = await bare(ctx, `SELECT * FROM ${reader(large.source)} ORDER BY value.duration_ms DESC NULLS LAST LIMIT ${WINDOW_ROWS}`);
    const bareFar = await bare(ctx, `SELECT * FROM ${reader(large.source)} LIMIT ${WINDOW_ROWS} OFFSET ${ours.farOffset}`);
    const bareEdge = await bare(ctx, `SELECT * FROM ${reader(large.source)} LIMIT ${WINDOW_ROWS} OFFSET ${edgeOffset(ours.rows, large.source, ours.edgeFiles[0])}`);
    // a top-N that deep keeps millions of whole rows: at the engine's 256 MiB DuckDB runs out of memory
    const bareDeep = await bare(ctx, `SELECT * FROM ${reader(large.source)} ORDER BY value.duration_ms DESC NULLS LAST LIMIT ${WINDOW_ROWS} OFFSET ${ours.deepOffset}`, BARE_DEEP_MEMORY);
    const hostSmall = await hostSide(ctx, small.source);
    const hostLarge = await hostSide(ctx, large.source);
    const bareNode = succeeded('node', await timedNode('-e', [''])).peakRssMiB ?? NaN;
    if (Number(bareCount.first?.[0]) !== ours.rows) throw new Error(`the engine counted ${ours.rows} rows, DuckDB ${String(bareCount.first?.[0])}`);
    const duck = (value: number): Row['baseline'] => ({ label: 'bare DuckDB, fresh process', value });
    const duckDeep = (value: number): Row['baseline'] => ({ label: `bare DuckDB, fresh process, memory limit ${BARE_DEEP_MEMORY}`, value });

    const statement = (value: number): Row['baseline'] => ({ label: 'bare DuckDB, the statement alone', value });
    return [
      compared(`first ${WINDOW_ROWS} rows, engine not yet started, ${label}`, median(cold), 'ms', duck(median(bareFirst.map((b) => b.ms))), valueAtMost(FIRST_ROWS_MS, 'ms')),
      compared(`first ${WINDOW_ROWS} rows, engine already running`, median(warm), 'ms', statement(median(bareFirst.map((b) => b.statementMs))), valueAtMost(FIRST_ROWS_MS, 'ms')),
      compared(`row count (${ours.rows} rows), asked with the first rows`, ours.countMs, 'ms', duck(bareCount.ms)),
      compared(`sorted by a column, first ${WINDOW_ROWS} rows, asked at once`, ours.sortMs, 'ms', duck(bareSort.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`${WINDOW_ROWS} rows from row ${ours.farOffset}, asked at once (median of it and the same place in the ${FAR_SAMPLES - 1} files before)`, median(ours.farMs), 'ms', duck(bareFar.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`the ${WINDOW_ROWS} rows after the first of those, asked right after it`, ours.farNextMs, 'ms', duck(bareFar.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`${WINDOW_ROWS} rows ending a file, asked at once after the count (from the file's last restart point); median of files ${ours.edgeFiles.map((f) => f + 1).join(', ')}`, median(ours.edgeMs), 'ms', {
        label: `bare DuckDB, fresh process, the end of file ${ours.edgeFiles[0] + 1}`,
        value: bareEdge.ms,
      }, valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`the same sort once copied (${(ours.convertedAfterMs / 1000).toFixed(0)} s after opening)`, ours.sortAgainMs, 'ms', duck(bareSort.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared('the same far window once copied', ours.farAgainMs, 'ms', duck(bareFar.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`the same sort, rows from ${ours.deepOffset}, once copied`, ours.deepMs, 'ms', duckDeep(bareDeep.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared('the same sort, the window after that one', ours.deepNextMs, 'ms', duckDeep(bareDeep.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`copied in the background after its download (prepare), ${ready.copyMiB.toFixed(0)} MiB kept on disk`, ready.prepareMs, 'ms', duck(bareCount.ms)),
      compared('prepared: first rows', ready.firstRowsMs, 'ms', duck(median(bareFirst.map((b) => b.ms))), valueAtMost(FIRST_ROWS_MS, 'ms')),
      compared('prepared: row count', ready.countMs, 'ms', duck(bareCount.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared('prepared: sorted by a column, asked at once', ready.sortMs, 'ms', duck(bareSort.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`prepared: ${WINDOW_ROWS} rows from row ${ours.farOffset}, asked at once`, ready.farMs, 'ms', duck(bareFar.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared(`prepared: the same sort, rows from ${ours.deepOffset}`, ready.deepMs, 'ms', duckDeep(bareDeep.ms), valueAtMost(LATER_WINDOW_MS, 'ms')),
      compared('prepared: engine peak RSS, preparing and previewing', ready.peakRssMiB ?? NaN, 'MiB', { label: 'engine, files never opened before', value: ours.peakRssMiB }),
      compared(`engine peak RSS, ${large.mib} MiB result`, ours.peakRssMiB ?? NaN, 'MiB', { label: `engine at ${small.mib} MiB`, value: smallSession.peakRssMiB }, {
        text: 'ratio >= 0.9 (flat in the size of the result)',
        met: (r) => (r.ratio ?? 0) >= 0.9,
      }),
      compared(`engine peak RSS, ${large.mib} MiB result, against a result past the engine's memory limit`, ours.peakRssMiB ?? NaN, 'MiB', {
        label: `engine at ${middle.mib} MiB`,
        value: middleSession.peakRssMiB,
      }),
      compared(`engine peak RSS, ${large.mib} MiB result, after the deep windows too`, ours.deepPeakRssMiB ?? NaN, 'MiB', {
        label: `engine at ${small.mib} MiB`,
        value: smallSession.deepPeakRssMiB,
      }),
      compared(`extension host side (engine client, ${hostLarge.windows} windows), peak RSS, ${large.mib} MiB result`, hostLarge.peakRssMiB, 'MiB',
        { label: `the same at ${small.mib} MiB`, value: hostSmall.peakRssMiB }, {
          text: 'ratio >= 0.9 (flat in the size of the result)',
          met: (r) => (r.ratio ?? 0) >= 0.9,
        }),
      compared(`extension host side, ${large.mib} MiB result, against a bare Node process`, hostLarge.peakRssMiB, 'MiB', { label: 'bare node', value: bareNode }),
      compared(`bare DuckDB peak RSS, row count of ${large.mib} MiB`, bareCount.peakRssMiB ?? NaN, 'MiB', { label: 'engine', value: ours.peakRssMiB }),
    ];
  },
};

/**
 * Time from open to the first window of rows: in a fresh engine, as the first preview of a
 * session has it (the engine process starts), then again in the running engine.
 */
async function firstRowsOnly(ctx: BenchContext, source: ResultSource): Promise<{ coldMs: number; warmMs: number }> {
  const { engine } = newEngine(ctx);
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
  const { engine, copied } = newEngine(ctx);
  try {
    const started = performance.now();
    const { handle } = await engine.open(source);
    const first = await engine.page(handle, {}, 0, WINDOW_ROWS);
    const firstRowsMs = performance.now() - started;
    if (first.rows.length !== WINDOW_ROWS) throw new Error(`the first window had ${first.rows.length} rows`);
    const rows = await engine.count(handle, {});
    const countMs = performance.now() - started;
    const sortMs = await timedMs(() => engine.page(handle, SORT, 0, WINDOW_ROWS));
    // each asked in a file not copied yet: at the same place in the files before, and at the end of files
    const farOffset = Math.floor(rows * FAR);
    const filesBefore = Array.from({ length: FAR_SAMPLES }, (_, k) => Math.max(0, farOffset - k * rowsPerFile(rows, source)));
    const farMs: number[] = [];
    let farNextMs = NaN;
    for (const [k, offset] of filesBefore.entries()) {
      farMs.push(await timedMs(() => engine.page(handle, {}, offset, WINDOW_ROWS)));
      if (k === 0) farNextMs = await timedMs(() => engine.page(handle, {}, offset + WINDOW_ROWS, WINDOW_ROWS));
    }
    const edgeFiles = Array.from({ length: FAR_SAMPLES }, (_, k) => Math.max(0, Math.floor(source.paths.length * EDGE_FILE) - k));
    const edgeMs: number[] = [];
    for (const file of edgeFiles) edgeMs.push(await timedMs(() => engine.page(handle, {}, edgeOffset(rows, source, file), WINDOW_ROWS)));
    await copied(handle);
    const convertedAfterMs = performance.now() - started;
    const sortAgainMs = await timedMs(() => engine.page(handle, SORT, 0, WINDOW_ROWS));
    const farAgainMs = await timedMs(() => engine.page(handle, {}, farOffset, WINDOW_ROWS));
    const peakRssMiB = await peakRssMiBOf(engine.processId);
    const deepOffset = Math.floor(rows * DEEP);
    const deepMs = await timedMs(() => engine.page(handle, SORT, deepOffset, WINDOW_ROWS));
    const deepNextMs = await timedMs(() => engine.page(handle, SORT, deepOffset + WINDOW_ROWS, WINDOW_ROWS));
    const deepPeakRssMiB = await peakRssMiBOf(engine.processId);
    ctx.log(
      `preview: ${rows} rows: first rows ${firstRowsMs.toFixed(0)} ms, count ${countMs.toFixed(0)} ms, sort ${sortMs.toFixed(0)} ms, far ${farMs.map((ms) => ms.toFixed(0)).join(', ')} ms (the window after the first ${farNextMs.toFixed(0)} ms), ends of files ${edgeMs.map((ms) => ms.toFixed(0)).join(', ')} ms; ` +
        `converted after ${convertedAfterMs.toFixed(0)} ms: sort ${sortAgainMs.toFixed(0)} ms, far ${farAgainMs.toFixed(0)} ms, ` +
        `sorted from row ${deepOffset} ${deepMs.toFixed(0)} ms then ${deepNextMs.toFixed(0)} ms; engine peak ${peakRssMiB?.toFixed(0)} MiB, ` +
        `${deepPeakRssMiB?.toFixed(0)} MiB after the deep windows`,
    );
    return { firstRowsMs, countMs, rows, sortMs, farMs, farNextMs, edgeMs, edgeFiles, sortAgainMs, farAgainMs, convertedAfterMs, farOffset, deepMs, deepNextMs, deepOffset, peakRssMiB, deepPeakRssMiB };
  } finally {
    await engine.dispose();
  }
}

interface PreparedSession {
  prepareMs: number;
  copyMiB: number;
  firstRowsMs: number;
  countMs: number;
  sortMs: number;
  farMs: number;
  deepMs: number;
  peakRssMiB?: number;
}

/**
 * A result copied for its preview right after its download (as the extension does when
 * `dataQuery.preview.prepareAfterDownload` is on), then previewed: every question asked at once.
 */
async function preparedSession(ctx: BenchContext, source: ResultSource, farOffset: number, deepOffset: number): Promise<PreparedSession> {
  const folder = join(ctx.scratch, 'engine-kept');
  await rm(folder, { recursive: true, force: true });
  const { engine } = newEngine(ctx, { tempDir: folder, keptCopiesMb: 8192 });
  try {
    const prepareMs = await timedMs(() => engine.prepare(source));
    const copies = join(folder, 'copies');
    const copyMiB = (await Promise.all((await readdir(copies)).map(async (f) => (await stat(join(copies, f))).size))).reduce((a, b) => a + b, 0) / 2 ** 20;
    const started = performance.now();
    const { handle } = await engine.open(source);
    await engine.page(handle, {}, 0, WINDOW_ROWS);
    const firstRowsMs = performance.now() - started;
    const countMs = await timedMs(() => engine.count(handle, {}));
    const sortMs = await timedMs(() => engine.page(handle, SORT, 0, WINDOW_ROWS));
    const farMs = await timedMs(() => engine.page(handle, {}, farOffset, WINDOW_ROWS));
    const deepMs = await timedMs(() => engine.page(handle, SORT, deepOffset, WINDOW_ROWS));
    const peakRssMiB = await peakRssMiBOf(engine.processId);
    ctx.log(
      `preview: prepared in ${prepareMs.toFixed(0)} ms (${copyMiB.toFixed(0)} MiB kept), then first rows ${firstRowsMs.toFixed(0)} ms, count ${countMs.toFixed(0)} ms, ` +
        `sort ${sortMs.toFixed(0)} ms, far ${farMs.toFixed(0)} ms, deep ${deepMs.toFixed(0)} ms; engine peak ${peakRssMiB?.toFixed(0)} MiB`,
    );
    return { prepareMs, copyMiB, firstRowsMs, countMs, sortMs, farMs, deepMs, peakRssMiB };
  } finally {
    await engine.dispose();
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * The extension host's side of a preview in a process of its own (previewHostProbe.ts): the
 * engine client opening the result and reading windows over all of it, unsorted and sorted.
 */
async function hostSide(ctx: BenchContext, source: ResultSource): Promise<{ peakRssMiB: number; windows: number }> {
  const probe = join(__dirname, '..', 'support', 'previewHostProbe.js');
  const run = succeeded('preview host probe', await timedNode(probe, [join(ctx.root, 'dist', 'engineHost.js'), tempDir(ctx), JSON.stringify(source)], { cwd: ctx.root }));
  const printed = JSON.parse(run.stdout) as { rows: number; windows: number };
  ctx.log(`preview: extension host side read ${printed.windows} windows of ${printed.rows} rows, peak ${run.peakRssMiB?.toFixed(0)} MiB`);
  return { peakRssMiB: run.peakRssMiB ?? NaN, windows: printed.windows };
}

/** An engine, and a wait for its log line that says a result's copy is complete. */
function newEngine(ctx: BenchContext, o: { tempDir?: string; keptCopiesMb?: number } = {}): { engine: EngineClient; copied(handle: string): Promise<void> } {
  const lines: string[] = [];
  const note = (line: string): void => void lines.push(line);
  const logger: Logger = { trace: note, debug: note, info: note, warn: note, error: note };
  // copies are not kept unless asked: these sessions open files the engine has never seen
  const engine = new EngineClient({ hostScript: join(ctx.root, 'dist', 'engineHost.js'), tempDir: o.tempDir ?? tempDir(ctx), keptCopiesMb: o.keptCopiesMb ?? 0, logger });
  const copied = async (handle: string): Promise<void> => {
    const done = new RegExp(`result ${handle}: \\d+ rows copied`);
    const deadline = performance.now() + CONVERSION_TIMEOUT_MS;
    while (!lines.some((l) => done.test(l))) {
      const failed = lines.find((l) => l.includes(`result ${handle} stays read from its files`));
      if (failed) throw new Error(`the engine did not copy the result: ${failed}`);
      if (performance.now() > deadline) throw new Error(`the engine did not copy the result within ${CONVERSION_TIMEOUT_MS / 60_000} minutes`);
      await sleep(50);
    }
  };
  return { engine, copied };
}

const tempDir = (ctx: BenchContext): string => join(ctx.scratch, 'engine');

async function timedMs(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/**
 * Generates a result in the emulator and downloads it as a user would; the emulator is gone
 * afterwards. Its files are deflated (gzip level 6, the emulator's default): the engine
 * decompresses whatever it reads.
 */
export async function download(ctx: BenchContext, name: string, size: Size): Promise<Downloaded> {
  ctx.log(`preview: generating and downloading the ${name} result (${size.mib} MiB in ${size.objects} objects)`);
  const result = await prepareResult({ ...size, gzipLevel: 6, cacheDir: join(ctx.scratch, `preview-emulator-${name}`) });
  const dir = join(ctx.scratch, `preview-${name}`);
  try {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const files = await result.client.downloadJob(result.job, { dir, format: RESULT_FORMAT });
    const schema: SchemaEnvelope = await result.client.getSchema(RESULT_TABLE[0], RESULT_TABLE[1]);
    return {
      source: { paths: files.map((f) => f.path), format: RESULT_FORMAT, schema, name: RESULT_TABLE.join('.') },
      mib: size.mib,
      bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    };
  } finally {
    await result.close();
  }
}

/** DuckDB's own reader over the files, types inferred, as a person would write it. */
export function reader(source: ResultSource): string {
  return `read_json([${source.paths.map(quoteString).join(', ')}], format = 'newline_delimited', compression = 'gzip')`;
}

export async function bare(ctx: BenchContext, sql: string, memoryLimit?: string): Promise<Bare> {
  const probe = join(__dirname, '..', 'support', 'duckdbProbe.js');
  const temp = join(ctx.scratch, 'duckdb-probe');
  await mkdir(temp, { recursive: true });
  const run = succeeded('bare DuckDB', await timedNode(probe, [temp, sql, ...(memoryLimit ? [memoryLimit] : [])], { cwd: ctx.root }));
  const printed = JSON.parse(run.stdout) as { ms: number; statementMs: number; first: unknown[] | null };
  return { ms: printed.ms, statementMs: printed.statementMs, peakRssMiB: run.peakRssMiB, first: printed.first };
}

/** The bare deep sort's memory limit: a top-N that deep keeps millions of whole rows. */
const BARE_DEEP_MEMORY = '2GB';

/** The emulator puts the same number of rows in each object but the last. */
const rowsPerFile = (rows: number, source: ResultSource): number => Math.ceil(rows / source.paths.length);
/** Where the last window of `file` (0-based) starts. */
const edgeOffset = (rows: number, source: ResultSource, file: number): number => Math.min(rows, rowsPerFile(rows, source) * (file + 1)) - WINDOW_ROWS;

const mib = (bytes: number): number => Math.round(bytes / (1024 * 1024));

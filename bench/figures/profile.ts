// Column profiles: the profile of every column of the preview figure's 2 GB JSONL result
// (gzip files, read with the table's schema as a preview reads them), through the engine
// client as dataQuery.profileResult asks it, beside the row count of the same files asked the
// same way, beside bare DuckDB's SUMMARIZE of them in a fresh process, and beside bare DuckDB
// reading every column of them as the engine reads them (the least any profile of them does);
// and the engine process's peak memory for the profile at three result sizes: `small` is no
// larger than the engine's memory limit (256 MiB), `middle` four times that, so `middle`
// against `large` shows whether the peak still grows with the result once it fills the limit.

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../src/core/logger';
import { EngineClient } from '../../src/engine/engineClient';
import type { ResultSource } from '../../src/engine/engineProtocol';
import { planSource, readerCall } from '../../src/engine/sourcePlan';
import { quoteIdent } from '../../src/engine/sqlText';
import { compared, ratioAtLeast, type BenchContext, type Figure } from '../figure';
import { peakRssMiBOf } from '../support/processMemory';
import { bare, download, reader } from './preview';

const FULL = { large: { mib: 2048, objects: 16 }, middle: { mib: 1024, objects: 8 }, small: { mib: 256, objects: 2 } };
const QUICK = { large: { mib: 128, objects: 4 }, middle: { mib: 64, objects: 2 }, small: { mib: 32, objects: 1 } };

interface Measured {
  rows: number;
  columns: number;
  countMs: number;
  profileMs: number;
  /** from the profile's start to its first column (the profile reads the result's copy, which it waits for) */
  firstColumnMs: number;
  /** the same profile asked again, the copy complete: the profile's own work */
  againMs: number;
  peakRssMiB: number;
}

export const profileFigure: Figure = {
  name: 'profile',
  title: 'Column profiles of 2 GB of JSONL: beside the row count and DuckDB SUMMARIZE; engine memory',
  async run(ctx) {
    const plan = ctx.quick ? QUICK : FULL;
    const small = await download(ctx, 'small', plan.small);
    const atSmall = await measure(ctx, small.source);
    await rm(join(ctx.scratch, 'preview-small'), { recursive: true, force: true });
    const middle = await download(ctx, 'middle', plan.middle);
    const atMiddle = await measure(ctx, middle.source);
    await rm(join(ctx.scratch, 'preview-middle'), { recursive: true, force: true });
    const large = await download(ctx, 'large', plan.large);
    const atLarge = await measure(ctx, large.source);
    const ready = await prepared(ctx, large.source);
    const summarize = await bare(ctx, `SUMMARIZE SELECT * FROM ${reader(large.source)}`);
    ctx.log(`profile: bare DuckDB SUMMARIZE ${summarize.ms.toFixed(0)} ms, peak ${summarize.peakRssMiB?.toFixed(0)} MiB`);
    const scan = await bare(ctx, everyColumnRead(large.source));
    ctx.log(`profile: bare DuckDB reading every column ${scan.ms.toFixed(0)} ms, peak ${scan.peakRssMiB?.toFixed(0)} MiB`);
    const what = `${large.mib} MiB of JSONL, ${atLarge.rows} rows, ${atLarge.columns} columns`;
    return [
      // issue 37: the profile of 2 GiB takes no longer than about twice its row count
      compared(`profile of every column, ${what}, from open`, atLarge.profileMs, 'ms', { label: 'row count of the same files, from open', value: atLarge.countMs }, ratioAtLeast(0.5)),
      compared(`profile of every column, ${what}, from open`, atLarge.profileMs, 'ms', { label: 'bare DuckDB SUMMARIZE, fresh process', value: summarize.ms }),
      compared(`bare DuckDB reading every column of the same files (typed as the engine reads them), fresh process`, scan.ms, 'ms', { label: 'row count of the same files, from open', value: atLarge.countMs }),
      compared(`profile: the first column's, ${what}, from open (after the result's copy)`, atLarge.firstColumnMs, 'ms', { label: 'the whole profile', value: atLarge.profileMs }),
      compared(`profile of every column, ${what}, asked again (the copy complete)`, atLarge.againMs, 'ms', { label: 'row count of the same files, from open', value: atLarge.countMs }),
      compared(`profile of every column, ${what}, prepared after its download (its copy kept), from open`, ready.profileMs, 'ms', { label: 'row count of the same files, from open', value: atLarge.countMs }, ratioAtLeast(0.5)),
      compared(`engine peak RSS, profile of ${large.mib} MiB`, atLarge.peakRssMiB, 'MiB', { label: `engine at ${small.mib} MiB`, value: atSmall.peakRssMiB }, ratioAtLeast(0.8)),
      compared(`engine peak RSS, profile of ${large.mib} MiB`, atLarge.peakRssMiB, 'MiB', { label: `engine at ${middle.mib} MiB`, value: atMiddle.peakRssMiB }, ratioAtLeast(0.8)),
      compared(`engine peak RSS, profile of ${large.mib} MiB, against bare DuckDB`, atLarge.peakRssMiB, 'MiB', { label: 'bare DuckDB SUMMARIZE', value: summarize.peakRssMiB }),
    ];
  },
};

/** The row count in one fresh engine, then the profile in another (each from open), and the second engine's peak memory. */
async function measure(ctx: BenchContext, source: ResultSource): Promise<Measured> {
  const counting = newEngine(ctx);
  let countMs: number;
  let rows: number;
  try {
    const started = performance.now();
    const { handle } = await counting.open(source);
    rows = await counting.count(handle, {});
    countMs = performance.now() - started;
  } finally {
    await counting.dispose();
  }
  const profiling = newEngine(ctx);
  try {
    const started = performance.now();
    const { handle } = await profiling.open(source);
    let firstColumnAt = NaN;
    const profile = await profiling.profile(handle, {}, { onColumn: () => (firstColumnAt = Number.isNaN(firstColumnAt) ? performance.now() : firstColumnAt) });
    const profileMs = performance.now() - started;
    if (profile.rows !== rows) throw new Error(`the profile counted ${profile.rows} rows, the count ${rows}`);
    const peakRssMiB = (await peakRssMiBOf(profiling.processId)) ?? NaN;
    const firstColumnMs = firstColumnAt - started;
    const again = performance.now();
    await profiling.profile(handle, {});
    const againMs = performance.now() - again;
    ctx.log(
      `profile: ${rows} rows, ${profile.columns.length} columns: count ${countMs.toFixed(0)} ms, profile ${profileMs.toFixed(0)} ms (first column after ${firstColumnMs.toFixed(0)} ms), ` +
        `again ${againMs.toFixed(0)} ms; engine peak ${peakRssMiB.toFixed(0)} MiB`,
    );
    return { rows, columns: profile.columns.length, countMs, profileMs, firstColumnMs, againMs, peakRssMiB };
  } finally {
    await profiling.dispose();
  }
}

/** The profile of a result whose copy was made and kept after its download (dataQuery.preview.prepareAfterDownload), from open. */
async function prepared(ctx: BenchContext, source: ResultSource): Promise<{ prepareMs: number; profileMs: number }> {
  const engine = newEngine(ctx, { tempDir: join(ctx.scratch, 'engine-kept'), keptCopiesMb: 16_384 });
  try {
    const before = performance.now();
    await engine.prepare(source);
    const prepareMs = performance.now() - before;
    const started = performance.now();
    const { handle } = await engine.open(source);
    await engine.profile(handle, {});
    const profileMs = performance.now() - started;
    ctx.log(`profile: prepared in ${prepareMs.toFixed(0)} ms, then profiled in ${profileMs.toFixed(0)} ms from open`);
    return { prepareMs, profileMs };
  } finally {
    await engine.dispose();
    await rm(join(ctx.scratch, 'engine-kept'), { recursive: true, force: true });
  }
}

/** Every column of the files, read as the engine reads them (with the table's schema), and counted: nothing else computed. */
function everyColumnRead(source: ResultSource): string {
  const plan = planSource('jsonl', readerCall('jsonl', source.paths, { gzip: true, schema: source.schema }), [], source.schema);
  return `SELECT ${plan.columns.map((c) => `count(${quoteIdent(c.name)})`).join(', ')} FROM (${plan.sql})`;
}

function newEngine(ctx: BenchContext, o: { tempDir?: string; keptCopiesMb?: number } = {}): EngineClient {
  const quiet = (): void => undefined;
  const logger: Logger = { trace: quiet, debug: quiet, info: quiet, warn: (m) => ctx.log(`engine: ${m}`), error: (m) => ctx.log(`engine: ${m}`) };
  return new EngineClient({ hostScript: join(ctx.root, 'dist', 'engineHost.js'), tempDir: o.tempDir ?? join(ctx.scratch, 'engine'), keptCopiesMb: o.keptCopiesMb ?? 0, logger });
}

// Download: `dq query` of a large gzip JSONL result against the same objects fetched by four
// curl processes, paced like an object store and unpaced on loopback (there also with the optional
// --sha256, to show what hashing costs); and dq's peak memory
// at three result sizes against a bare Node process.

import { join } from 'node:path';
import { compared, median, ratioAtLeast, valueAtMost, type BenchContext, type Figure, type Row } from '../figure';
import { summarizeCpuProfile } from '../support/cpuProfile';
import { CURL_PROCESSES, DownloadRuns, type DownloadRun } from '../support/downloadRuns';
import { prepareResult, type PreparedResult } from '../support/preparedResult';
import { succeeded, timedNode } from '../support/processes';

/** about what one connection to an object store delivers */
const OBJECT_STORE_BYTES_PER_SECOND = 50_000_000;
const MAX_RSS_MIB = 100;

interface Size {
  mib: number;
  objects: number;
}

const FULL = { small: { mib: 100, objects: 4 }, main: { mib: 512, objects: 8 }, large: { mib: 2048, objects: 16 }, repeats: 3 };
const QUICK = { small: { mib: 16, objects: 2 }, main: { mib: 64, objects: 4 }, large: { mib: 128, objects: 4 }, repeats: 1 };

export const downloadFigure: Figure = {
  name: 'download',
  title: 'Download: dq query against parallel curl',
  async run(ctx) {
    const plan = ctx.quick ? QUICK : FULL;
    const runs = new DownloadRuns(join(ctx.root, 'dist', 'cli.js'), ctx.scratch);
    const bareNode = succeeded('node', await timedNode('-e', [''])).peakRssMiB ?? 0;

    const small = await withResult(ctx, 'small', plan.small, (r) => runs.dq(r));
    const main = await withResult(ctx, 'main', plan.main, async (r) => {
      const paced = await contest(ctx, runs, r, OBJECT_STORE_BYTES_PER_SECOND, plan.repeats);
      const unpaced = await contest(ctx, runs, r, undefined, plan.repeats, ['--sha256']);
      if (ctx.profile) await profile(ctx, runs, r);
      return { paced, unpaced, label: `${mib(r.bytes)} MiB in ${r.objectIds.length} objects` };
    });
    const large = await withResult(ctx, 'large', plan.large, (r) => runs.dq(r));

    const curl = `dq urls + ${CURL_PROCESSES} curl`;
    const bare = { label: 'bare node', value: bareNode };
    const mainPeak = Math.max(...[...main.paced.dq, ...main.unpaced.dq].map(peak));
    const smallPeak = peak(small);
    return [
      compared(`paced ${OBJECT_STORE_BYTES_PER_SECOND / 1e6} MB/s per connection: dq query, ${main.label}`, median(main.paced.dq.map(secs)), 's',
        { label: curl, value: median(main.paced.curl.map(secs)) }, ratioAtLeast(0.95)),
      compared(`unpaced loopback: dq query, ${main.label}`, median(main.unpaced.dq.map(secs)), 's',
        { label: curl, value: median(main.unpaced.curl.map(secs)) }, ratioAtLeast(0.85)),
      // what the optional SHA-256 of every file costs where CPU decides the speed
      compared(`unpaced loopback: dq query --sha256, ${main.label}`, median(main.unpaced.other.map(secs)), 's',
        { label: curl, value: median(main.unpaced.curl.map(secs)) }),
      compared(`dq peak RSS, ${plan.small.mib} MiB result`, smallPeak, 'MiB', bare, valueAtMost(MAX_RSS_MIB, 'MiB')),
      compared(`dq peak RSS, ${plan.main.mib} MiB result`, mainPeak, 'MiB', bare, valueAtMost(MAX_RSS_MIB, 'MiB')),
      compared(`dq peak RSS, ${plan.large.mib} MiB result`, peak(large), 'MiB', { label: `dq at ${plan.small.mib} MiB`, value: smallPeak }, {
        text: `<= ${MAX_RSS_MIB} MiB, ratio >= 0.9 (flat)`,
        met: (r: Row) => r.value <= MAX_RSS_MIB && (r.ratio ?? 0) >= 0.9,
      }),
    ];
  },
};

async function withResult<T>(ctx: BenchContext, name: string, size: Size, use: (r: PreparedResult) => Promise<T>): Promise<T> {
  ctx.log(`download: generating the ${name} result (${size.mib} MiB in ${size.objects} objects)`);
  const result = await prepareResult({ ...size, cacheDir: join(ctx.scratch, `emulator-${name}`) });
  try {
    return await use(result);
  } finally {
    await result.close();
  }
}

/** dq and curl in turn (and dq with `otherOptions`, when given), `repeats` times each, at one pace. */
async function contest(ctx: BenchContext, runs: DownloadRuns, result: PreparedResult, pace: number | undefined, repeats: number, otherOptions?: string[]) {
  result.emulator.setObjectBytesPerSecond(pace);
  const dq: DownloadRun[] = [];
  const curl: DownloadRun[] = [];
  const other: DownloadRun[] = [];
  for (let i = 0; i < repeats; i++) {
    dq.push(await runs.dq(result));
    curl.push(await runs.curl(result));
    if (otherOptions) other.push(await runs.dq(result, [], otherOptions));
    const also = otherOptions ? `, dq ${otherOptions.join(' ')} ${secs(other[i]).toFixed(2)} s` : '';
    ctx.log(`download: ${pace ? 'paced' : 'unpaced'} run ${i + 1}/${repeats}: dq ${secs(dq[i]).toFixed(2)} s, curl ${secs(curl[i]).toFixed(2)} s${also}`);
  }
  return { dq, curl, other };
}

/** One more unpaced dq run under the V8 profiler; prints where its CPU time went. */
async function profile(ctx: BenchContext, runs: DownloadRuns, result: PreparedResult): Promise<void> {
  result.emulator.setObjectBytesPerSecond(undefined);
  const dir = join(ctx.root, 'bench', 'out', 'profiles');
  await runs.dq(result, ['--cpu-prof', '--cpu-prof-dir', dir]);
  ctx.log(`download: CPU profile of an unpaced dq query in ${dir}\n${await summarizeCpuProfile(dir)}`);
}

const secs = (run: DownloadRun): number => run.seconds;
const peak = (run: DownloadRun): number => run.peakRssMiB ?? NaN;
const mib = (bytes: number): number => Math.round(bytes / (1024 * 1024));

// npm run bench: measures every figure next to its baseline, prints the table and writes
// bench/results.json.
//   --only=download,limiter   run some figures
//   --quick                   small sizes and one repetition
//   (results.json is written only by a complete run in which every figure was measured)
//   --profile                 also profile what is measured (the download figure profiles dq)
//   --markdown                print the table of bench/results.json for docs/benchmarks.md, run nothing

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchContext, Figure, Row } from './figure';
import { downloadFigure } from './figures/download';
import { extensionFigure } from './figures/extension';
import { lakeFigure } from './figures/lake';
import { limiterFigure } from './figures/limiter';
import { pollingFigure } from './figures/polling';
import { previewFigure } from './figures/preview';
import { profileFigure } from './figures/profile';
import { schemasFigure } from './figures/schemas';
import { syncFigure } from './figures/sync';
import { syncAllFigure } from './figures/syncAll';
import { markdownTable, textTable, type FigureResult, type Results } from './report';

const FIGURES: Figure[] = [downloadFigure, limiterFigure, pollingFigure, extensionFigure, previewFigure, profileFigure, schemasFigure, syncFigure, syncAllFigure, lakeFigure];

/** Figures of features that do not exist yet: each becomes a module in FIGURES when it lands. */
const NOT_BUILT_YET: { name: string; title: string }[] = [
];

const ROOT = resolve(__dirname, '..', '..', '..');
const RESULTS_FILE = join(ROOT, 'bench', 'results.json');

async function main(argv: string[]): Promise<number> {
  const flag = (name: string): boolean => argv.includes(`--${name}`);
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
  const previous = await readResults();
  if (flag('markdown')) {
    if (!previous) throw new Error(`${RESULTS_FILE} does not exist yet: run npm run bench first`);
    process.stdout.write(`${markdownTable(previous)}\n`);
    return 0;
  }
  const unknown = only?.filter((name) => !FIGURES.some((f) => f.name === name));
  if (unknown?.length) throw new Error(`unknown figure ${unknown.join(', ')}; the figures are ${FIGURES.map((f) => f.name).join(', ')}`);

  const scratch = await mkdtemp(join(tmpdir(), 'dq-bench-'));
  const ctx: BenchContext = {
    root: ROOT,
    scratch,
    quick: flag('quick'),
    profile: flag('profile'),
    previous: (figure, measure) => previous?.figures.find((f) => f.name === figure)?.rows.find((r) => r.measure === measure),
    log: (message) => process.stderr.write(`bench: ${message}\n`),
  };
  const started = performance.now();
  const figures: FigureResult[] = [];
  try {
    for (const figure of FIGURES.filter((f) => !only || only.includes(f.name))) {
      figures.push(await measure(figure, ctx));
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  if (!only) figures.push(...NOT_BUILT_YET.map((f): FigureResult => ({ ...f, status: 'not built yet', rows: [] })));
  const results: Results = {
    generatedAt: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    seconds: Math.round((performance.now() - started) / 1000),
    figures,
  };
  process.stdout.write(`\n${textTable(results)}\n\n${results.seconds} s in all.\n`);
  const failed = figures.some((f) => f.status === 'failed');
  if (!only && !ctx.quick && !failed) {
    await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`Wrote ${RESULTS_FILE}; node bench/out/bench/run.js --markdown prints the table for docs/benchmarks.md.\n`);
  } else if (failed) {
    process.stdout.write(`A figure failed: ${RESULTS_FILE} keeps the last complete run.\n`);
  }
  return failed ? 1 : 0;
}

async function measure(figure: Figure, ctx: BenchContext): Promise<FigureResult> {
  ctx.log(`${figure.name}: ${figure.title}`);
  const started = performance.now();
  const seconds = (): number => Math.round((performance.now() - started) / 100) / 10;
  try {
    const rows: Row[] = await figure.run(ctx);
    return { name: figure.name, title: figure.title, status: 'measured', seconds: seconds(), rows };
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    ctx.log(`${figure.name} failed: ${error}`);
    return { name: figure.name, title: figure.title, status: 'failed', seconds: seconds(), rows: [], error };
  }
}

async function readResults(): Promise<Results | undefined> {
  try {
    return JSON.parse(await readFile(RESULTS_FILE, 'utf8')) as Results;
  } catch {
    return undefined;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);

// Extension: what installing and starting it costs. Bundle and VSIX sizes against the
// previous results.json; the time to load the bundle and run activate() against an empty
// extension in the same stub host; and in real VS Code (code-server), the time from opening
// the workbench to the first row of the Explorer tree, and the extension host's memory then,
// against an empty extension whose tree shows one row at once.

import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compared, median, type BenchContext, type Figure, type Row } from '../figure';
import { succeeded, timed, timedNode } from '../support/processes';
import { emptyExtension, loadHarness, timeWorkbench, type Probed, type WorkbenchTimes } from '../support/workbenchProbe';

const ACTIVATION_REPEATS = 7;
/** the sample connection the tree shows as its first row */
const SAMPLE = { name: 'Sample data', sample: true };

export const extensionFigure: Figure = {
  name: 'extension',
  title: 'Extension: bundle and VSIX sizes, activate() time, first paint of the tree in code-server',
  async run(ctx) {
    const vsix = join(ctx.scratch, 'extension.vsix');
    ctx.log('extension: packaging the VSIX (production build)');
    succeeded('npm run package', await timed('npm', ['run', 'package', '--', '--out', vsix], { cwd: ctx.root }));
    const sizes: [string, string][] = [
      ['dist/extension.js (production)', join(ctx.root, 'dist', 'extension.js')],
      ['dist/cli.js (production)', join(ctx.root, 'dist', 'cli.js')],
      ['VSIX', vsix],
    ];
    const rows: Row[] = [];
    for (const [measure, file] of sizes) {
      const kib = (await stat(file)).size / 1024;
      const before = ctx.previous('extension', measure);
      rows.push(compared(measure, kib, 'KiB', before ? { label: 'previous run', value: before.value } : { label: 'no previous run' }));
    }
    const activation = await activationTimes(ctx);
    rows.push(
      compared('load + activate() in Node with a stub vscode API', median(activation.ours), 'ms', {
        label: 'empty extension',
        value: median(activation.empty),
      }),
    );
    const workbench = await workbenchTimes(ctx, vsix);
    const empty = (pick: (t: WorkbenchTimes) => number | undefined): Row['baseline'] => ({ label: 'empty extension', value: median(workbench.empty.map(pick).map(Number)) });
    const ours = (pick: (t: WorkbenchTimes) => number | undefined): number => median(workbench.ours.map(pick).map(Number));
    rows.push(
      compared('code-server: opening the workbench to the Explorer tree\'s first row', ours((t) => t.firstRowMs), 'ms', empty((t) => t.firstRowMs)),
      compared('code-server: click on the activity-bar item to that row', ours((t) => t.afterClickMs), 'ms', empty((t) => t.afterClickMs)),
      compared('code-server: opening the workbench to the workbench ready', ours((t) => t.readyMs), 'ms', empty((t) => t.readyMs)),
      compared('code-server: extension host peak RSS at that first row', ours((t) => t.extensionHostPeakMiB), 'MiB', empty((t) => t.extensionHostPeakMiB)),
    );
    return rows;
  },
};

/** Fresh code-servers with the extension or the empty one, in turn. */
async function workbenchTimes(ctx: BenchContext, vsix: string): Promise<{ ours: WorkbenchTimes[]; empty: WorkbenchTimes[] }> {
  const repeats = ctx.quick ? 1 : 3;
  ctx.log('extension: building the VS Code test harness and an empty extension');
  const harness = await loadHarness(ctx.root);
  const probes: Record<'ours' | 'empty', Probed> = {
    ours: { vsix, activityTitle: 'Data Query', firstRow: SAMPLE.name, settings: { 'dataQuery.connections': [SAMPLE] } },
    empty: await emptyExtension(ctx.root, join(ctx.scratch, 'bench-empty')),
  };
  const times = { ours: [] as WorkbenchTimes[], empty: [] as WorkbenchTimes[] };
  for (let i = 0; i < repeats; i++) {
    for (const who of ['ours', 'empty'] as const) {
      const t = await timeWorkbench(harness, probes[who]);
      times[who].push(t);
      ctx.log(`extension: code-server, ${who}: ready ${t.readyMs.toFixed(0)} ms, first row ${t.firstRowMs.toFixed(0)} ms (${t.afterClickMs.toFixed(0)} ms after the click), extension host ${t.extensionHostPeakMiB?.toFixed(0) ?? '?'} MiB`);
    }
  }
  return times;
}

/** Alternates the extension and an empty one, each in a fresh process. */
async function activationTimes(ctx: BenchContext): Promise<{ ours: number[]; empty: number[] }> {
  const probe = join(__dirname, '..', 'support', 'activationProbe.js');
  const packageJson = join(ctx.root, 'package.json');
  const typings = join(ctx.root, 'node_modules', '@types', 'vscode', 'index.d.ts');
  const emptyDir = join(ctx.scratch, 'empty-extension');
  const storage = join(ctx.scratch, 'extension-storage');
  await mkdir(emptyDir, { recursive: true });
  await mkdir(storage, { recursive: true });
  const empty = join(emptyDir, 'extension.js');
  await writeFile(empty, 'exports.activate = function () { return {}; };\n');
  const once = async (main: string): Promise<number> =>
    (JSON.parse(succeeded('activation probe', await timedNode(probe, [main, packageJson, typings, storage])).stdout) as { ms: number }).ms;
  const times = { ours: [] as number[], empty: [] as number[] };
  for (let i = 0; i < ACTIVATION_REPEATS; i++) {
    times.ours.push(await once(join(ctx.root, 'dist', 'extension.js')));
    times.empty.push(await once(empty));
  }
  return times;
}

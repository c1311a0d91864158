// Extension: what installing and starting it costs. Bundle and VSIX sizes against the
// previous results.json, and the time to load the bundle and run activate() against an empty
// extension in the same stub host.

import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compared, median, type BenchContext, type Figure, type Row } from '../figure';
import { succeeded, timed, timedNode } from '../support/processes';

const ACTIVATION_REPEATS = 7;

export const extensionFigure: Figure = {
  name: 'extension',
  title: 'Extension: bundle and VSIX sizes, activate() time',
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
    return rows;
  },
};

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

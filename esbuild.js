// Bundles the extension and the dq command-line tool. Types are checked by `tsc --noEmit`
// (npm run typecheck); esbuild only strips them.
const fs = require('node:fs');
const esbuild = require('esbuild');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'info',
  legalComments: 'none',
};

/**
 * dist/cli.js is package.json's "bin": `npx dq` and a linked `dq` run it as a program (through
 * its `#!/usr/bin/env node` line), which needs the execute bit that esbuild does not set.
 */
const executable = {
  name: 'executable',
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length === 0) fs.chmodSync(build.initialOptions.outfile, 0o755);
    });
  },
};

/** DuckDB is a native library per platform: never bundled, packaged as node_modules. */
const duckdb = ['@duckdb/*'];

/**
 * Drivers of one kind of sync target, each bundled on its own and required by the other bundles
 * only when such a target is opened, so they are never parsed otherwise (inside dist/cli.js they
 * made every dq run start some 50 ms later): the AWS SDK (src/sync/awsSdk.ts, for s3:// targets,
 * required by s3Store.ts when a store opens) and mysql2 (src/sync/mysqlDriver.ts, required when
 * a mysql:// target connects). They ship without node_modules.
 */
const driversApart = {
  name: 'drivers-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/(awsSdk|mysqlDriver)$/ }, (args) => ({ path: `${args.path}.js`, external: true }));
  },
};

const builds = [
  { ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode', ...duckdb], plugins: [driversApart] },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, external: duckdb, plugins: [executable, driversApart] },
  // the SQL engine's child process; DuckDB's native binding ships beside it (scripts/packageVsix.js).
  // DuckDB's JavaScript API is bundled into it: loading its hundred modules one by one took 55
  // to 70 ms of the engine's start, which the first rows of a preview wait for.
  { ...common, entryPoints: ['src/engine/engineHost.ts'], outfile: 'dist/engineHost.js', external: ['@duckdb/node-bindings'] },
  // the engine's thread that reads a gzip file to its end and leaves restart points in it
  { ...common, entryPoints: ['src/engine/gzipIndexWorker.ts'], outfile: 'dist/gzipIndexWorker.js' },
  // the sync's child process (one per run): DuckDB and the PostgreSQL driver stay out of the extension host
  { ...common, entryPoints: ['src/sync/syncHost.ts'], outfile: 'dist/syncHost.js', external: duckdb, plugins: [driversApart] },
  // the drivers of one kind of target, required by the bundles above only when one is opened
  { ...common, entryPoints: ['src/sync/awsSdk.ts', 'src/sync/mysqlDriver.ts'], outdir: 'dist' },
  // the preview grid, for the webview (a browser page): its script and its style sheet
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    entryPoints: ['src/webview/previewMain.ts', 'src/webview/preview.css'],
    outdir: 'dist/webview',
  },
  // the chart panel's page (ECharts with only the parts it uses) and its style sheet
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    entryPoints: ['src/webview/chart/chartMain.ts', 'src/webview/chart/chart.css'],
    outdir: 'dist/webview',
  },
];

async function main() {
  if (watch) {
    const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
    await Promise.all(contexts.map((c) => c.watch()));
    return;
  }
  await Promise.all(builds.map((b) => esbuild.build(b)));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

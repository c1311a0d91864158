// Builds the .vsix for one platform: `npm run package` for this machine, or
// `npm run package -- --target <vsce target>` for another (win32-x64, win32-arm64, darwin-x64,
// darwin-arm64, linux-x64, linux-arm64, alpine-x64, alpine-arm64). The bundles carry no
// node_modules except DuckDB, whose native binding differs per platform: it is staged in
// dist/node_modules (where dist/engineHost.js finds it) for the package and removed after.
// Extra arguments go to `vsce package`.

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const staging = path.join(root, 'dist', 'node_modules');

/** The vsce target of each DuckDB binding package. */
const BINDINGS = {
  'win32-x64': 'win32-x64',
  'win32-arm64': 'win32-arm64',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'alpine-x64': 'linux-x64-musl',
  'alpine-arm64': 'linux-arm64-musl',
};

function hostTarget() {
  const musl = process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime;
  return `${musl ? 'alpine' : process.platform}-${process.arch}`;
}

function parseArgs(argv) {
  const rest = [...argv];
  const at = rest.indexOf('--target');
  const target = at === -1 ? hostTarget() : rest.splice(at, 2)[1];
  if (!BINDINGS[target]) throw new Error(`No DuckDB binding for target "${target}"; choose one of ${Object.keys(BINDINGS).join(', ')}.`);
  return { target, vsceArgs: rest };
}

function copyPackage(from, name) {
  fs.cpSync(from, path.join(staging, name), { recursive: true, dereference: true });
}

function version(name) {
  return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** The binding package for the target: from node_modules when installed, else fetched with `npm pack`. */
function stageBinding(target) {
  const name = `@duckdb/node-bindings-${BINDINGS[target]}`;
  const wanted = version('@duckdb/node-bindings');
  const installed = path.join(root, 'node_modules', name);
  if (fs.existsSync(installed) && version(name) === wanted) return copyPackage(installed, name);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dq-binding-'));
  try {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const tarball = execFileSync(npm, ['pack', `${name}@${wanted}`, '--pack-destination', tmp], { cwd: tmp, encoding: 'utf8', shell: process.platform === 'win32' })
      .trim()
      .split('\n')
      .pop();
    execFileSync('tar', ['-xzf', path.join(tmp, tarball), '-C', tmp]);
    copyPackage(path.join(tmp, 'package'), name);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function main() {
  const { target, vsceArgs } = parseArgs(process.argv.slice(2));
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    for (const name of ['@duckdb/node-api', '@duckdb/node-bindings', 'detect-libc']) copyPackage(path.join(root, 'node_modules', name), name);
    stageBinding(target);
    const vsce = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
    const args = ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--no-rewrite-relative-links', '--target', target, ...vsceArgs];
    execFileSync(vsce, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

try {
  main();
} catch (err) {
  console.error(`package: ${err.message}`);
  process.exit(1);
}

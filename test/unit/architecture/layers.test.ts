// The layers of design.md, held by the imports themselves: an import may only point down the
// list, only src/extension imports vscode, and no module reaches itself through its imports.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '../../../../src');

// top to bottom, as design.md lists them
const LAYERS = ['extension', 'cli', 'webview', 'jobs', 'sync', 'engine', 'emulator', 'client', 'core'];
// pairs allowed to skip the list's order in neither direction: the emulator is a server, not a client user
const FORBIDDEN: Array<[string, string]> = [['emulator', 'client']];

interface SourceImport {
  from: string;
  to: string;
  specifier: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function resolveModule(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function importsOf(file: string): { local: SourceImport[]; packages: string[] } {
  const text = withoutComments(fs.readFileSync(file, 'utf8'));
  const local: SourceImport[] = [];
  const packages: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = match[1];
    if (!specifier.startsWith('.')) {
      packages.push(specifier);
      continue;
    }
    const target = resolveModule(file, specifier);
    if (target) local.push({ from: file, to: target, specifier });
  }
  return { local, packages };
}

function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0];
}

const rel = (file: string) => path.relative(SRC, file);

describe('layers of src/', () => {
  const files = sourceFiles(SRC);
  const graph = new Map(files.map((file) => [file, importsOf(file)]));

  it('knows every folder of src/ as a layer of design.md', () => {
    const folders = fs
      .readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    assert.deepEqual(
      folders.filter((name) => !LAYERS.includes(name)),
      [],
      'a new folder under src/ needs its place in the layer list of design.md and of this test',
    );
  });

  it('has no import that points up the list of layers', () => {
    const upward: string[] = [];
    for (const [file, { local }] of graph) {
      const from = layerOf(file);
      for (const edge of local) {
        const to = layerOf(edge.to);
        const goesUp = LAYERS.indexOf(to) < LAYERS.indexOf(from);
        const forbidden = FORBIDDEN.some(([a, b]) => a === from && b === to);
        if (goesUp || forbidden) upward.push(`${rel(file)} imports ${edge.specifier} (${from} -> ${to})`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it('imports vscode only in src/extension', () => {
    const offenders = [...graph]
      .filter(([file, { packages }]) => layerOf(file) !== 'extension' && packages.includes('vscode'))
      .map(([file]) => rel(file));
    assert.deepEqual(offenders, []);
  });

  it('loads the AWS SDK only through awsSdk.ts (a bundle of its own), for the S3 store and its credential chain, which only an s3:// sync opens', () => {
    const owners = new Set(['sync/awsSdk.ts', 'sync/s3Store.ts', 'sync/s3Credentials.ts']);
    const offenders = files.filter((f) => !owners.has(rel(f)) && graph.get(f)!.packages.some((p) => /^@(aws-sdk|smithy)\//.test(p))).map(rel);
    assert.deepEqual(offenders, []);
  });

  it('gives the DOM\'s types to the webview only', () => {
    const offenders = files
      .filter((file) => layerOf(file) !== 'webview' && /<reference\s+lib=["']dom/i.test(fs.readFileSync(file, 'utf8')))
      .map(rel);
    assert.deepEqual(offenders, []);
  });

  it('has no circle of imports', () => {
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const trail: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      trail.push(file);
      for (const edge of graph.get(file)?.local ?? []) {
        const seen = state.get(edge.to);
        if (seen === 'open') {
          circles.push(trail.slice(trail.indexOf(edge.to)).concat(edge.to).map(rel).join(' -> '));
        } else if (!seen) {
          visit(edge.to);
        }
      }
      trail.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    assert.deepEqual(circles, []);
  });
});

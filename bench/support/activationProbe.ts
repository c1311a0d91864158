// Run as a child process: loads an extension's main file in plain Node with a stub `vscode`
// module (every API exists and returns another stub), calls activate(), and prints the time
// from require to activate's return in ms. The same host serves an empty extension as the
// baseline, so the stub's own cost cancels out.
//   node activationProbe.js <extension main> <package.json> <@types/vscode index.d.ts> <storage folder>

import Module = require('node:module');
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** A callable, constructible object whose every property is another stub, unless it was set. */
function stub(): unknown {
  const set = new Map<PropertyKey, unknown>();
  const target = function () {
    /* stub */
  };
  return new Proxy(target, {
    get: (_t, prop) => {
      if (set.has(prop)) return set.get(prop);
      if (prop === 'then') return undefined; // not a promise
      if (prop === Symbol.toPrimitive) return () => '';
      if (prop === Symbol.iterator) return function* () {};
      if (prop === 'prototype') return target.prototype;
      return stub();
    },
    set: (_t, prop, value) => set.set(prop, value) !== undefined,
    apply: () => stub(),
    construct: () => stub() as object,
  });
}

/** The names the real module exports (a bundle copies them from it one by one). */
function apiNames(typings: string): string[] {
  return [...readFileSync(typings, 'utf8').matchAll(/^\texport (?:namespace|class|enum|const|function|let) (\w+)/gm)].map((m) => m[1]);
}

const [main, packageJsonPath, typings, storage] = process.argv.slice(2);
const vscode = Object.fromEntries(apiNames(typings).map((name) => [name, stub()]));
const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
const load = loader._load;
loader._load = function (request: string, parent: unknown, isMain: boolean) {
  return request === 'vscode' ? vscode : load.call(this, request, parent, isMain);
};
const root = dirname(packageJsonPath);
const folder = (fsPath: string) => ({ fsPath, path: fsPath, scheme: 'file' });
const context = new Proxy(
  {
    subscriptions: [] as unknown[],
    extension: { packageJSON: JSON.parse(readFileSync(packageJsonPath, 'utf8')) as unknown },
    extensionPath: root,
    extensionUri: folder(root),
    asAbsolutePath: (relative: string) => join(root, relative),
    globalStorageUri: folder(storage),
    storageUri: folder(storage),
    logUri: folder(storage),
  },
  { get: (t, prop) => (prop in t ? Reflect.get(t, prop) : stub()) },
);

const started = performance.now();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const extension = require(main) as { activate(ctx: unknown): unknown; deactivate?(): unknown };
extension.activate(context);
const ms = performance.now() - started;
Promise.resolve(extension.deactivate?.()).finally(() => {
  process.stdout.write(`${JSON.stringify({ ms })}\n`);
  process.exit(0);
});

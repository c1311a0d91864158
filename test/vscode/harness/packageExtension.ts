// Packages the extension into a .vsix with vsce, exactly as for publishing (vsce runs the
// vscode:prepublish script, which type-checks and bundles with esbuild).

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './toolchain';

export const VSCE_ARGS = ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--no-rewrite-relative-links'];

export function packageExtension(outFile: string): string {
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  const vsce = path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const result = spawnSync(process.execPath, [vsce, ...VSCE_ARGS, '--out', outFile], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  if (result.status !== 0 || !fs.existsSync(outFile)) {
    throw new Error(`vsce package failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return outFile;
}

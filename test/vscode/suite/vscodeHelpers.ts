// Shared steps of the extension-host tests: the activated extension's API, settings and
// connections to emulators.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunningEmulator } from '../../../src/emulator/emulator';
import type { DataQueryExtensionApi } from '../../../src/extension/extension';

export const EXTENSION_ID = 'data-query-explorer.data-query-explorer';

export async function activateExtension(): Promise<{ extension: vscode.Extension<DataQueryExtensionApi>; api: DataQueryExtensionApi }> {
  const extension = vscode.extensions.getExtension<DataQueryExtensionApi>(EXTENSION_ID);
  if (!extension) throw new Error(`${EXTENSION_ID} is not installed in this VS Code.`);
  const api = await extension.activate();
  return { extension, api };
}

export async function setConnections(value: unknown[] | undefined): Promise<void> {
  await vscode.workspace.getConfiguration('dataQuery').update('connections', value, vscode.ConfigurationTarget.Global);
}

export function connectionsSetting(): unknown {
  return vscode.workspace.getConfiguration('dataQuery').inspect('connections')?.globalValue;
}

/** Labels of tree items, as the explorer renders them. */
export function labels(api: DataQueryExtensionApi, nodes: Parameters<DataQueryExtensionApi['explorer']['getTreeItem']>[0][]): string[] {
  return nodes.map((n) => {
    const label = api.explorer.getTreeItem(n).label;
    return typeof label === 'string' ? label : (label?.label ?? '');
  });
}

type Node = Parameters<DataQueryExtensionApi['explorer']['getTreeItem']>[0];

export function labelOf(api: DataQueryExtensionApi, node: Node): string {
  return labels(api, [node])[0];
}

/** Adds a connection to an emulator through dataQuery.addConnection's argument object. */
export function addEmulatorConnection(emulator: RunningEmulator, name: string, extra: Record<string, unknown> = {}): Thenable<unknown> {
  return vscode.commands.executeCommand('dataQuery.addConnection', {
    name,
    baseUrl: emulator.baseUrl,
    dataPrefix: emulator.dataPrefix,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    ...extra,
  });
}

/** Resolves when the explorer next redraws `node` (or the whole tree). */
export function nextRedraw(api: DataQueryExtensionApi, node: Node): Promise<void> {
  return new Promise((resolve) => {
    const listener = api.explorer.onDidChangeTreeData((changed) => {
      if (changed !== undefined && changed !== node) return;
      listener.dispose();
      resolve();
    });
  });
}

/** How many requests of one operation (or sign-ins: `token`) an emulator answered. */
export { requestsOf } from '../../support/requestCounts';

/** The extension's "Data Query" log of this run, as written so far ('' before the first line). */
export function extensionLog(): string {
  const runDir = process.env.DQ_RUN_DIR;
  if (!runDir) throw new Error('DQ_RUN_DIR is not set: run the suite through the test harness.');
  const logsDir = path.join(runDir, 'user-data', 'logs');
  const logs = (fs.readdirSync(logsDir, { recursive: true }) as string[])
    .filter((f) => path.basename(f) === 'Data Query.log')
    .map((f) => path.join(logsDir, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return logs.length > 0 ? fs.readFileSync(logs[0], 'utf8') : '';
}

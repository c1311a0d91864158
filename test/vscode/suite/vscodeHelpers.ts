// Shared steps of the extension-host tests: the activated extension's API and settings.

import * as vscode from 'vscode';
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

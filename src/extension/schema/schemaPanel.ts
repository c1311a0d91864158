// The schema page of a table: one webview panel per table, shown again when asked twice and
// redrawn when a newer schema is read.

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { SchemaEnvelope } from '../../core/contract';
import type { Cached } from '../../core/schemaCache';
import { formatAge } from '../../core/durationText';
import { schemaPageHtml } from './schemaPageHtml';
import { ViewTypes } from '../ui/ids';

export interface TableRef {
  connection: string;
  namespace: string;
  table: string;
}

export class SchemaPanels implements vscode.Disposable {
  private readonly panels = new Map<string, { panel: vscode.WebviewPanel; version: number }>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly now: () => number,
  ) {}

  show(ref: TableRef, held: Cached<SchemaEnvelope>): void {
    const key = keyOf(ref);
    let open = this.panels.get(key);
    if (!open) {
      const panel = vscode.window.createWebviewPanel(ViewTypes.schema, `Schema: ${ref.namespace}.${ref.table}`, vscode.ViewColumn.Active, {
        enableScripts: true,
        enableFindWidget: true,
        localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'media')],
      });
      panel.onDidDispose(() => this.panels.delete(key));
      open = { panel, version: held.value.version };
      this.panels.set(key, open);
    } else {
      open.version = held.value.version;
      open.panel.reveal();
    }
    this.render(ref, open.panel, held);
  }

  /** Tables whose page is open. */
  open(): TableRef[] {
    return [...this.panels.keys()].map((key) => JSON.parse(key) as TableRef);
  }

  /** Redraws an open page with a schema read again; true when its version changed. */
  update(ref: TableRef, held: Cached<SchemaEnvelope>): boolean {
    const open = this.panels.get(keyOf(ref));
    if (!open || open.version === held.value.version) return false;
    open.version = held.value.version;
    this.render(ref, open.panel, held);
    return true;
  }

  /** The version an open page shows, if it is open. */
  versionShown(ref: TableRef): number | undefined {
    return this.panels.get(keyOf(ref))?.version;
  }

  /** The HTML an open page shows, if it is open. */
  pageHtml(ref: TableRef): string | undefined {
    return this.panels.get(keyOf(ref))?.panel.webview.html;
  }

  dispose(): void {
    for (const { panel } of [...this.panels.values()]) panel.dispose();
  }

  private render(ref: TableRef, panel: vscode.WebviewPanel, held: Cached<SchemaEnvelope>): void {
    const webview = panel.webview;
    const media = (name: string): string => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', name)).toString();
    panel.webview.html = schemaPageHtml(
      { namespace: ref.namespace, table: ref.table, envelope: held.value, readText: `${ref.connection}, read ${formatAge(held.readAt, this.now())}` },
      { cspSource: webview.cspSource, script: media('schemaPage.js'), style: media('schemaPage.css'), nonce: randomBytes(16).toString('base64') },
    );
  }
}

function keyOf(ref: TableRef): string {
  return JSON.stringify({ connection: ref.connection, namespace: ref.namespace, table: ref.table });
}

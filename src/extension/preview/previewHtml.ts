// The preview webview's page: the grid's script and style from dist/webview, under a content
// security policy that allows nothing else (no inline code, only the script with this nonce).

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { webviewDocument } from '../ui/webviewDocument';

export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

export function previewHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const root = webviewRoot(extensionUri);
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'previewMain.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, 'preview.css'));
  const nonce = randomBytes(16).toString('base64');
  return webviewDocument({ cspSource: webview.cspSource, nonce, style: style.toString(), script: script.toString(), title: 'Data Query Preview', body: '', fonts: true });
}

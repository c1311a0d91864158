// The preview webview's page: the grid's script and style from dist/webview, under a content
// security policy that allows nothing else (no inline code, only the script with this nonce).

import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
}

export function previewHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const root = webviewRoot(extensionUri);
  const script = webview.asWebviewUri(vscode.Uri.joinPath(root, 'previewMain.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(root, 'preview.css'));
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Data Query Preview</title>
</head>
<body>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

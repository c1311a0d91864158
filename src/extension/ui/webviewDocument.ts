// The frame of every webview page of the extension: a content security policy that allows
// the webview's own style sheets (and fonts) and one script with this page's nonce, nothing
// else; the style sheet, the title, the page's body and that script.

export interface WebviewDocument {
  /** the webview's CSP source */
  cspSource: string;
  nonce: string;
  style: string;
  script: string;
  title: string;
  /** HTML, already escaped where it holds text from elsewhere */
  body: string;
  /** allow fonts from the webview's own resources (the codicons) */
  fonts?: boolean;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function webviewDocument(page: WebviewDocument): string {
  const csp = ["default-src 'none'", `style-src ${page.cspSource}`, `script-src 'nonce-${page.nonce}'`, ...(page.fonts ? [`font-src ${page.cspSource}`] : [])].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(page.style)}">
<title>${escapeHtml(page.title)}</title>
</head>
<body>
${page.body}
<script nonce="${page.nonce}" src="${escapeHtml(page.script)}"></script>
</body>
</html>`;
}

// Read-only editor documents of result files, decompressed on the fly: the document's name
// drops `.gz`, so CSV, TSV and JSONL get their usual highlighting, and the real path
// travels in the query.

import * as vscode from 'vscode';
import { readResultText } from '../../jobs/resultText';

export const RESULT_SCHEME = 'dataquery-result';

export function resultDocumentUri(file: string): vscode.Uri {
  const shown = vscode.Uri.file(file.replace(/\.gz$/i, ''));
  return shown.with({ scheme: RESULT_SCHEME, query: encodeURIComponent(file) });
}

export class ResultDocumentProvider implements vscode.TextDocumentContentProvider {
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const text = await readResultText(decodeURIComponent(uri.query));
    return text ?? 'This result is binary or too large to show as text. Use "Reveal Results" to find the file.';
  }
}

// SQL consoles: untitled `sql` documents whose statements run on the engine (a "Run" CodeLens
// above each one, Ctrl+Enter for the one at the cursor), each console showing its results in
// its own preview grid. Every downloaded job is a view; completion offers the views and their
// columns. A console opened on a database file (the synced database) runs its statements there.

import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/engineClient';
import type { AttachedDatabase } from '../../engine/engineProtocol';
import { isRecord } from '../../core/isRecord';
import type { Logger } from '../../core/logger';
import { WINDOW_ROWS } from '../../webview/previewProtocol';
import { isCancellation } from '../ui/cancellation';
import { ConsoleViews } from './consoleViews';
import type { DownloadedJobsProvider } from './downloadedJobs';
import type { PreviewPanel } from './previewPanel';
import type { PreviewPanels } from './previewPanels';
import { runSqlStatement, type PreviewEngine } from './rowSource';
import { suggestSql, type SqlSuggestion } from './sqlCompletion';
import { splitStatements, statementAt, statementTitle } from './sqlStatements';
import { Commands, ContextKeys } from '../ui/ids';

export const OPEN_SQL_CONSOLE_COMMAND = Commands.openSqlConsole;
export const RUN_SQL_COMMAND = Commands.runSqlStatement;
/** True while the active editor is a Data Query SQL console (Ctrl+Enter runs its statement). */
export const SQL_CONSOLE_CONTEXT = ContextKeys.sqlConsole;

export type ConsoleEngine = PreviewEngine & Pick<EngineClient, 'registerView' | 'listViews' | 'hold'>;

export interface RunSqlArgs {
  /** the console's document URI (the active editor's when absent) */
  uri?: string;
  /** run the statement at this offset (the cursor's, or the selection, when absent) */
  offset?: number;
  /** run this text instead */
  text?: string;
}

/** `dataQuery.openSqlConsole`'s argument for a console on a database file instead of the downloaded jobs. */
export interface DatabaseConsoleArgs {
  database: AttachedDatabase;
  /** what the database is, for the console's first line, e.g. `the synced database /path/sync.duckdb` */
  label?: string;
  /** a table of the database for a first statement, e.g. `canvas.users` */
  example?: string;
}

/** How a console (not one on a database file) begins: a restored one is known by it. */
const CONSOLE_FIRST_LINE = '-- Data Query SQL console: ';
const CONSOLE_TEMPLATE = `${CONSOLE_FIRST_LINE}every downloaded job is a view, e.g. <namespace>.<table>
-- (its newest download) and <namespace>.<table>__<job id prefix>. Ctrl+Enter runs the
-- statement at the cursor.
`;

function databaseTemplate(args: DatabaseConsoleArgs): string {
  const lines = [
    `-- Data Query SQL console on ${(args.label ?? args.database.path).replace(/[\r\n]+/g, ' ')} (read only).`,
    '-- Each table is <namespace>.<table>; the views of downloaded jobs are memory.<namespace>.<table>.',
    '-- Ctrl+Enter runs the statement at the cursor.',
  ];
  if (args.example) lines.push(`SELECT count(*) FROM ${args.example};`);
  return `${lines.join('\n')}\n`;
}

function databaseConsoleArgs(arg: unknown): DatabaseConsoleArgs | undefined {
  if (!isRecord(arg) || !isRecord(arg.database)) return undefined;
  const { path, alias } = arg.database;
  if (typeof path !== 'string' || typeof alias !== 'string') return undefined;
  return {
    database: { path, alias },
    label: typeof arg.label === 'string' ? arg.label : undefined,
    example: typeof arg.example === 'string' ? arg.example : undefined,
  };
}

/** How long a statement runs before a notification offers to cancel it. */
const CANCEL_OFFER_MS = 1_000;

function offerCancel(running: Promise<unknown>, run: AbortController, text: string): void {
  let settled = false;
  const done = running.then(
    () => (settled = true),
    () => (settled = true),
  );
  setTimeout(() => {
    if (settled || run.signal.aborted) return;
    const title = `Running ${oneLine(text)}`;
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_progress, token) => {
      token.onCancellationRequested(() => run.abort());
      return done;
    });
  }, CANCEL_OFFER_MS);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}

const SUGGESTION_KIND: Record<SqlSuggestion['kind'], vscode.CompletionItemKind> = {
  namespace: vscode.CompletionItemKind.Module,
  view: vscode.CompletionItemKind.Class,
  column: vscode.CompletionItemKind.Field,
};

export class SqlConsoles implements vscode.CodeLensProvider, vscode.CompletionItemProvider {
  /** console document URI -> its results grid */
  private readonly consoles = new Map<string, PreviewPanel | undefined>();
  /** console document URI -> the database file its statements run on, for consoles opened on one */
  private readonly databases = new Map<string, AttachedDatabase>();
  /** console document URI -> its statement under way: a newer run, Cancel or closing the console stops it */
  private readonly running = new Map<string, AbortController>();
  /** console document URI -> its hold on the engine: tables a console made live as long as it does */
  private readonly holds = new Map<string, () => void>();
  /** the downloaded jobs as views, made before a statement runs */
  private readonly views: ConsoleViews;

  constructor(
    private readonly engine: ConsoleEngine,
    jobs: DownloadedJobsProvider,
    private readonly panels: PreviewPanels,
    logger: Logger,
  ) {
    this.views = new ConsoleViews(engine, jobs, logger);
  }

  register(): vscode.Disposable[] {
    const selector: vscode.DocumentSelector = { language: 'sql' };
    // a console restored after a reload may be the active editor already
    this.updateContext(vscode.window.activeTextEditor);
    return [
      vscode.commands.registerCommand(OPEN_SQL_CONSOLE_COMMAND, (arg?: unknown) => this.open(databaseConsoleArgs(arg))),
      vscode.commands.registerCommand(RUN_SQL_COMMAND, (args?: RunSqlArgs) => this.run(args ?? {})),
      vscode.languages.registerCodeLensProvider(selector, this),
      vscode.languages.registerCompletionItemProvider(selector, this, '.'),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.updateContext(editor)),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        const key = doc.uri.toString();
        this.stop(key);
        this.consoles.delete(key);
        this.databases.delete(key);
        this.holds.get(key)?.();
        this.holds.delete(key);
      }),
      {
        dispose: () => {
          [...this.running.keys()].forEach((key) => this.stop(key));
          for (const release of this.holds.values()) release();
          this.holds.clear();
        },
      },
    ];
  }

  async open(onDatabase?: DatabaseConsoleArgs): Promise<vscode.TextEditor> {
    const content = onDatabase ? databaseTemplate(onDatabase) : CONSOLE_TEMPLATE;
    const document = await vscode.workspace.openTextDocument({ language: 'sql', content });
    this.consoles.set(document.uri.toString(), undefined);
    this.holds.set(document.uri.toString(), this.engine.hold());
    if (onDatabase) this.databases.set(document.uri.toString(), onDatabase.database);
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(document.lineAt(document.lineCount - 1).range.end, document.lineAt(document.lineCount - 1).range.end);
    this.updateContext(editor);
    return editor;
  }

  /**
   * Runs a statement and shows its rows in the console's grid; settles when they are on screen
   * (or its error is). A statement still running when the next one starts is stopped, so the grid
   * always shows the newest; one that runs long offers Cancel.
   */
  async run(args: RunSqlArgs): Promise<PreviewPanel> {
    const document = args.uri ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === args.uri) : vscode.window.activeTextEditor?.document;
    const text = args.text ?? (document && this.statementOf(document, args.offset));
    if (!text) throw new Error('Put the cursor in a SQL statement of a Data Query SQL console, then run it again.');
    const key = document?.uri.toString() ?? '';
    let panel = this.consoles.get(key);
    if (!panel) {
      panel = this.panels.create('SQL result', vscode.ViewColumn.Beside);
      this.consoles.set(key, panel);
      panel.onDidClose(() => {
        if (this.consoles.get(key) !== panel) return;
        this.stop(key);
        this.consoles.set(key, undefined);
      });
    }
    panel.webviewPanel.reveal(undefined, true);
    const database = this.databases.get(key);
    this.stop(key);
    const run = new AbortController();
    this.running.set(key, run);
    // Cancel stops the wait for the views too (a new job's schema may take seconds)
    const running = this.views.sync(run.signal).then(() => runSqlStatement(this.engine, text, WINDOW_ROWS, run.signal, database));
    offerCancel(running, run, text);
    try {
      await panel.show(running, () => this.running.get(key) === run, statementTitle(text));
    } finally {
      if (this.running.get(key) === run) this.running.delete(key);
    }
    return panel;
  }

  private stop(key: string): void {
    const run = this.running.get(key);
    this.running.delete(key);
    run?.abort();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (!this.isConsole(document)) return [];
    return splitStatements(document.getText()).map(
      (s) =>
        new vscode.CodeLens(new vscode.Range(document.positionAt(s.start), document.positionAt(s.start)), {
          title: '$(play) Run',
          tooltip: 'Run this statement (Ctrl+Enter)',
          command: RUN_SQL_COMMAND,
          arguments: [{ uri: document.uri.toString(), offset: s.start } satisfies RunSqlArgs],
        }),
    );
  }

  async provideCompletionItems(document: vscode.TextDocument, position: vscode.Position, token?: vscode.CancellationToken): Promise<vscode.CompletionItem[]> {
    // the downloaded jobs' names are not the names of a database console's tables
    if (!this.isConsole(document) || this.databases.has(document.uri.toString())) return [];
    const offset = document.offsetAt(position);
    const statement = statementAt(document.getText(), offset);
    const start = statement && statement.start <= offset ? statement.start : offset;
    const before = document.getText().slice(start, offset);
    // completion that is no longer wanted stops waiting for the views
    const stop = new AbortController();
    const cancelling = token?.onCancellationRequested(() => stop.abort());
    const views = await this.views
      .list(stop.signal)
      .catch((err: unknown) => {
        if (isCancellation(err)) return undefined;
        throw err;
      })
      .finally(() => cancelling?.dispose());
    if (!views) return [];
    return suggestSql(before, statement?.text ?? before, views).map((s) => {
      const item = new vscode.CompletionItem(s.label, SUGGESTION_KIND[s.kind]);
      item.insertText = s.insertText;
      item.detail = s.detail;
      if (s.documentation) item.documentation = new vscode.MarkdownString().appendText(s.documentation);
      return item;
    });
  }

  private statementOf(document: vscode.TextDocument, offset: number | undefined): string | undefined {
    const editor = vscode.window.activeTextEditor;
    if (offset === undefined && editor?.document === document && !editor.selection.isEmpty) return document.getText(editor.selection).trim();
    const at = offset ?? (editor?.document === document ? document.offsetAt(editor.selection.active) : 0);
    return statementAt(document.getText(), at)?.text;
  }

  /**
   * Whether a document is a console: one this window opened, or one VS Code restored after a
   * reload (its first line is the console's), which is taken on again. A console on a database
   * file is not: which file it ran on is not known any more.
   */
  private isConsole(document: vscode.TextDocument): boolean {
    const key = document.uri.toString();
    if (this.consoles.has(key)) return true;
    if (document.languageId !== 'sql' || document.lineCount === 0 || !document.lineAt(0).text.startsWith(CONSOLE_FIRST_LINE)) return false;
    this.consoles.set(key, undefined);
    this.holds.set(key, this.engine.hold());
    return true;
  }

  private updateContext(editor: vscode.TextEditor | undefined): void {
    const isConsole = editor !== undefined && this.isConsole(editor.document);
    void vscode.commands.executeCommand('setContext', SQL_CONSOLE_CONTEXT, isConsole);
  }
}

// The preview grid and the SQL console in VS Code: a job of the sample connection is run and
// downloaded, previewed (first rows painted by the webview, row count, a far page, sort,
// filters and WHERE over the whole result), exported, and queried from a SQL console. A preview
// closed while its result still opens leaves nothing open in the engine. The downloaded files
// themselves, read here without the engine, are the reference.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as vscode from 'vscode';
import type { PreviewPanel } from '../../../src/extension/preview/previewPanel';
import type { PreviewState } from '../../../src/extension/preview/previewSession';
import { EMPTY_VIEW, type ViewState } from '../../../src/webview/previewProtocol';
import { activateExtension, extensionLog, setConnections } from './vscodeHelpers';

interface WebLog {
  key: { id: string };
  value: { http_status: number; user_id?: number | null; duration_ms?: number | null };
}

const SAMPLE = 'Sample data';

async function readJsonl(paths: string[]): Promise<WebLog[]> {
  const records: WebLog[] = [];
  for (const p of paths) {
    for (const line of gunzipSync(await fs.readFile(p)).toString('utf8').split('\n')) if (line) records.push(JSON.parse(line) as WebLog);
  }
  return records;
}

/** Applies a view as the grid's header, filter row and WHERE box do, and waits for the grid to paint it. */
async function show(panel: PreviewPanel, view: Partial<ViewState>): Promise<PreviewState> {
  const version = panel.setView({ ...EMPTY_VIEW, ...view });
  return panel.whenShown(version);
}

function counted(panel: PreviewPanel): Promise<PreviewState> {
  return panel.until((s) => s.total !== undefined || s.error !== undefined);
}

function column(panel: PreviewPanel, name: string): number {
  const index = panel.state().columns.findIndex((c) => c.name === name);
  assert.ok(index >= 0, `the grid has a column ${name}`);
  return index;
}

/** The SQL engine's process: the one child of this extension host that runs the engine host script. */
function enginePid(): number {
  const pids = execFileSync('pgrep', ['-P', String(process.pid), '-f', 'engineHost'], { encoding: 'utf8' }).trim().split('\n').map(Number);
  assert.equal(pids.length, 1, `one engine process: ${pids.join(', ')}`);
  return pids[0];
}

/** Resolves with the next preview panel's tab once the workbench shows it. */
function nextPreviewTab(): Promise<vscode.Tab> {
  return new Promise((resolve) => {
    const listener = vscode.window.tabGroups.onDidChangeTabs((e) => {
      const tab = e.opened.find((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('dataQuery.preview'));
      if (!tab) return;
      listener.dispose();
      resolve(tab);
    });
  });
}

describe('Result preview and SQL console', function () {
  this.timeout(180_000);
  let jobId: string;
  let files: string[];
  let records: WebLog[];
  let tmp: string;

  before(async () => {
    await activateExtension();
    await setConnections([{ name: SAMPLE, sample: true }]);
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-preview-'));
    const result = (await vscode.commands.executeCommand('dataQuery.queryTable', {
      connection: SAMPLE,
      namespace: 'canvas_logs',
      table: 'web_logs',
      format: 'jsonl',
    })) as { job: { id: string }; files: { path: string }[] };
    jobId = result.job.id;
    files = result.files.map((f) => f.path);
    records = await readJsonl(files);
    assert.ok(records.length > 1_000, 'a result of several windows');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await setConnections(undefined);
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('copies a downloaded job for its preview in the background, with all its rows', async () => {
    const copied = new RegExp(`canvas_logs\\.web_logs \\(job ${jobId}\\) is copied for its preview: ${records.length.toLocaleString('en-US')} rows`);
    const deadline = Date.now() + 60_000;
    while (!copied.test(extensionLog())) {
      assert.ok(Date.now() < deadline, `the log says the result was copied:\n${extensionLog()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });

  it('previews a downloaded job: typed columns, first rows on screen, the row count and a far page', async () => {
    const panel = (await vscode.commands.executeCommand('dataQuery.previewResult', { connection: SAMPLE, jobId })) as PreviewPanel;
    const first = panel.state();
    assert.equal(first.error, undefined);
    assert.equal(first.title, 'canvas_logs.web_logs');
    assert.ok(first.shown && first.shown.rows > 0, 'the command settles once the webview painted rows');
    const status = first.columns.find((c) => c.name === 'value.http_status');
    assert.equal(status?.type, 'int32', 'types come from the table schema');
    assert.ok(first.columns.find((c) => c.name === 'key.id')?.key, 'key columns are marked');

    assert.equal((await counted(panel)).total, records.length);

    await show(panel, { sort: [{ column: 'key.id', descending: false }] });
    const ids = records.map((r) => r.key.id).sort();
    const far = records.length - 7;
    const page = await panel.rows(far, 5);
    assert.deepEqual(page.map((row) => row[column(panel, 'key.id')]), ids.slice(far, far + 5));
    panel.dispose();
  });

  it('closes the result of a preview closed while it was still opening: nothing of it stays open in the engine', async () => {
    const { api } = await activateExtension();
    const before = api.openResults();
    const shown = (await vscode.commands.executeCommand('dataQuery.previewResult', { connection: SAMPLE, jobId })) as PreviewPanel;
    assert.equal(api.openResults(), before + 1, `an open preview holds its result: ${JSON.stringify(shown.state().error)}\n${extensionLog().split('\n').slice(-30).join('\n')}`);
    shown.dispose();
    assert.equal(api.openResults(), before, 'and closes it with the panel');

    // the engine is held still while the next preview opens, so its panel is closed first
    const engine = enginePid();
    let opening: Thenable<unknown> | undefined;
    process.kill(engine, 'SIGSTOP');
    try {
      const tab = nextPreviewTab();
      opening = vscode.commands.executeCommand('dataQuery.previewResult', { connection: SAMPLE, jobId });
      assert.ok(await vscode.window.tabGroups.close(await tab), 'the preview\'s tab closed');
    } finally {
      process.kill(engine, 'SIGCONT');
    }
    await opening;
    assert.equal(api.openResults(), before, 'the result opened for the closed preview is closed');
  });

  it('sorts, filters and applies a WHERE over the whole result, and keeps a WHERE it cannot run', async () => {
    const panel = (await vscode.commands.executeCommand('dataQuery.previewResult', { connection: SAMPLE, jobId })) as PreviewPanel;
    const duration = column(panel, 'value.duration_ms');

    await show(panel, { sort: [{ column: 'value.duration_ms', descending: true }] });
    const longest = records.map((r) => r.value.duration_ms).filter((d): d is number => typeof d === 'number').sort((a, b) => b - a);
    assert.deepEqual((await panel.rows(0, 3)).map((row) => Number(row[duration])), longest.slice(0, 3));

    await show(panel, { filters: { 'value.http_status': '= 404' }, where: '"value.user_id" IS NULL' });
    const expected = records.filter((r) => r.value.http_status === 404 && (r.value.user_id ?? null) === null).length;
    assert.equal((await counted(panel)).total, expected);

    const broken = await show(panel, { where: '"value.user_id" IS NUL' });
    assert.ok(broken.error, 'the error is shown in the grid');
    assert.equal(panel.state().view.where, '"value.user_id" IS NUL', 'what the user typed stays');
    const fixed = await show(panel, { where: '"value.http_status" = 200' });
    assert.equal(fixed.error, undefined);
    assert.equal((await counted(panel)).total, records.filter((r) => r.value.http_status === 200).length);

    const out = path.join(tmp, 'ok.csv');
    const exported = (await vscode.commands.executeCommand('dataQuery.exportResult', { panel, format: 'csv', path: out })) as { rows: number; path: string };
    assert.equal(exported.rows, panel.state().total, 'the export holds the rows of the view shown');
    const lines = (await fs.readFile(out, 'utf8')).trim().split(/\r?\n/);
    assert.equal(lines.length, exported.rows + 1, 'a header and one line per row');
    panel.dispose();
  });

  it('runs a console statement over the job\'s view with Ctrl+Enter\'s command, and completes view and column names', async () => {
    const editor = (await vscode.commands.executeCommand('dataQuery.openSqlConsole')) as vscode.TextEditor;
    const statement = 'SELECT count(*) AS requests FROM canvas_logs.web_logs WHERE "value.http_status" = 404';
    await editor.edit((e) => e.insert(editor.document.lineAt(editor.document.lineCount - 1).range.end, `${statement};\nSELECT canvas_logs.`));
    const doc = editor.document;

    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    assert.ok(lenses.some((l) => l.command?.command === 'dataQuery.runSqlStatement'), 'a Run lens above the statement');

    const end = doc.lineAt(doc.lineCount - 1).range.end;
    const completions = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, end, '.');
    const views = completions.items.filter((i) => i.kind === vscode.CompletionItemKind.Class);
    const labels = views.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.includes('web_logs'), `the namespace's views are offered: ${labels.slice(0, 10).join(', ')}`);
    assert.ok(labels.includes(`web_logs__${jobId.slice(0, 8).toLowerCase().replace(/[^a-z0-9_]/g, '_')}`), 'and each job\'s own view');

    const inStatement = doc.positionAt(doc.getText().indexOf('count(*)'));
    editor.selection = new vscode.Selection(inStatement, inStatement);
    const panel = (await vscode.commands.executeCommand('dataQuery.runSqlStatement')) as PreviewPanel;
    assert.equal(panel.state().error, undefined);
    assert.deepEqual(panel.state().columns.map((c) => c.name), ['requests']);
    const [[requests]] = await panel.rows(0, 1);
    assert.equal(Number(requests), records.filter((r) => r.value.http_status === 404).length);

    const failed = (await vscode.commands.executeCommand('dataQuery.runSqlStatement', { text: 'SELEC 1' })) as PreviewPanel;
    assert.match(String(failed.state().error), /syntax/i, 'a statement that cannot run says why, in the grid');
  });

  it('keeps the newest console statement in the grid: a slower one run before it is stopped, not shown over it', async () => {
    const editor = (await vscode.commands.executeCommand('dataQuery.openSqlConsole')) as vscode.TextEditor;
    const uri = editor.document.uri.toString();
    // seconds of work for the engine, were it not stopped
    const slow = vscode.commands.executeCommand<PreviewPanel>('dataQuery.runSqlStatement', { uri, text: 'SELECT sum(hash(i)) AS slow FROM range(1500000000) t(i)' });
    const fast = (await vscode.commands.executeCommand('dataQuery.runSqlStatement', { uri, text: 'SELECT 42 AS fast' })) as PreviewPanel;
    assert.deepEqual(fast.state().columns.map((c) => c.name), ['fast'], JSON.stringify(fast.state()));
    const panel = await slow;
    assert.equal(panel, fast, 'one grid per console');
    assert.deepEqual(panel.state().columns.map((c) => c.name), ['fast'], 'the earlier statement did not replace the newer one');
    assert.equal(panel.state().error, undefined);
    assert.deepEqual(await panel.rows(0, 1), [[42]]);
  });

  it('opens result files from VS Code\'s explorer with "Open With... Data Query Preview", JSONL (gzip or not) and Parquet alike', async () => {
    const parquet = (await vscode.commands.executeCommand('dataQuery.queryTable', {
      connection: SAMPLE,
      namespace: 'canvas_logs',
      table: 'web_logs',
      format: 'parquet',
    })) as { files: { path: string }[] };
    // a result downloaded decompressed is plain JSONL
    const plain = path.join(tmp, path.basename(files[0]).replace(/\.gz$/, ''));
    await fs.writeFile(plain, gunzipSync(await fs.readFile(files[0])));
    const opened = [
      { file: files[0], rows: (await readJsonl([files[0]])).length },
      { file: parquet.files[0].path, rows: records.length },
      { file: plain, rows: (await readJsonl([files[0]])).length },
    ];
    for (const { file, rows } of opened) {
      assert.ok(rows > 0, `${path.basename(file)} holds rows`);
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'dataQuery.resultPreview');
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      assert.ok(tab?.input instanceof vscode.TabInputCustom && tab.input.viewType === 'dataQuery.resultPreview', `${path.basename(file)} is open in the preview`);
      assert.equal(tab.label, path.basename(file));

      // "Export Result" given no panel exports the preview looked at last: this one, once it has opened the file
      const out = path.join(tmp, `${path.basename(file)}.csv`);
      const deadline = Date.now() + 60_000;
      let exported: { rows: number } | undefined;
      while (!exported) {
        exported = await Promise.resolve(vscode.commands.executeCommand<{ rows: number }>('dataQuery.exportResult', { format: 'csv', path: out })).catch((err: unknown) => {
          assert.ok(Date.now() < deadline, `the preview opened ${path.basename(file)}: ${String(err)}`);
          return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200));
        });
      }
      assert.equal(exported.rows, rows, `the preview reads every row of ${path.basename(file)}`);
      const header = (await fs.readFile(out, 'utf8')).split(/\r?\n/, 1)[0];
      assert.match(header, /key\.id/, 'with the records flattened into columns');
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('takes on a console VS Code restored after a reload: its Run lens and statements work again', async () => {
    // a restored console is an untitled SQL document this window did not open as a console
    const restored = await vscode.workspace.openTextDocument({
      language: 'sql',
      content: '-- Data Query SQL console: every downloaded job is a view, e.g. <namespace>.<table>\nSELECT count(*) AS n FROM canvas_logs.web_logs;\n',
    });
    await vscode.window.showTextDocument(restored);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', restored.uri);
    assert.ok(lenses.some((l) => l.command?.command === 'dataQuery.runSqlStatement'), 'the Run lens is back');
    const panel = (await vscode.commands.executeCommand('dataQuery.runSqlStatement', lenses[0].command!.arguments![0])) as PreviewPanel;
    assert.equal(panel.state().error, undefined);
    assert.equal(Number((await panel.rows(0, 1))[0][0]), records.length);
    const plain = await vscode.workspace.openTextDocument({ language: 'sql', content: 'SELECT 1;\n' });
    assert.deepEqual(await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', plain.uri), [], 'other SQL files get no lens');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('keeps the console working when a downloaded job\'s files are gone: other views and plain statements run, the log says which view is missing', async () => {
    const gone = (await vscode.commands.executeCommand('dataQuery.queryTable', { connection: SAMPLE, namespace: 'canvas', table: 'courses', format: 'jsonl' })) as {
      job: { id: string };
      files: { path: string }[];
    };
    for (const f of gone.files) await fs.rm(f.path);
    const offset = extensionLog().length;
    const editor = (await vscode.commands.executeCommand('dataQuery.openSqlConsole')) as vscode.TextEditor;
    const uri = editor.document.uri.toString();

    const plain = (await vscode.commands.executeCommand('dataQuery.runSqlStatement', { uri, text: 'SELECT 42 AS answer' })) as PreviewPanel;
    assert.equal(plain.state().error, undefined, 'a statement that names no job runs');
    assert.deepEqual(await plain.rows(0, 1), [[42]]);
    const other = (await vscode.commands.executeCommand('dataQuery.runSqlStatement', { uri, text: 'SELECT count(*) AS n FROM canvas_logs.web_logs' })) as PreviewPanel;
    assert.equal(other.state().error, undefined, 'nor does one over another job');
    assert.equal(Number((await other.rows(0, 1))[0][0]), records.length);
    const deadline = Date.now() + 30_000;
    while (!/SQL console: no view canvas\.courses/.test(extensionLog().slice(offset))) {
      assert.ok(Date.now() < deadline, `the log names the view it could not make:\n${extensionLog().slice(offset)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

// Query jobs in VS Code through the commands' argument objects, against emulators started
// here: queries and their files, incremental queries from the remembered point, downloads,
// opening results, pre-signed links, removal, a failed job, and the sixth query of a minute
// queuing instead of failing. The Jobs view's items are read through its renderer.

import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as vscode from 'vscode';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import type { DataQueryExtensionApi } from '../../../src/extension/extension';
import { jobNode } from '../../../src/extension/jobs/jobsNodes';
import { jobTreeItem } from '../../../src/extension/jobs/jobsTreeItems';
import type { JobEntry } from '../../../src/jobs/jobEntry';
import { activateExtension, addEmulatorConnection, setConnections } from './vscodeHelpers';

interface CommandFile {
  path: string;
  bytes: number;
  sha256: string;
}

interface QueryOutcome {
  job: { id: string; status: string; at?: string; since?: string; until?: string; objects?: { id: string }[] };
  files: CommandFile[];
}

const SERVICE = 'Jobs emulator';

function run<T>(command: string, args: Record<string, unknown>): Thenable<T> {
  return vscode.commands.executeCommand<T>(command, args);
}

function query(args: Record<string, unknown>): Thenable<QueryOutcome> {
  return run<QueryOutcome>('dataQuery.queryTable', { connection: SERVICE, namespace: 'canvas', ...args });
}

async function sha256(file: string): Promise<string> {
  return createHash('sha256').update(await fs.readFile(file)).digest('hex');
}

async function firstLine(file: string): Promise<string> {
  const bytes = await fs.readFile(file);
  const text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8');
  return text.split('\n')[0];
}

async function assertOnDisk(files: CommandFile[]): Promise<void> {
  assert.ok(files.length > 0, 'the job has files');
  for (const f of files) {
    assert.equal((await fs.stat(f.path)).size, f.bytes, `${path.basename(f.path)}: size as reported`);
    assert.equal(await sha256(f.path), f.sha256, `${path.basename(f.path)}: sha256 as reported`);
  }
}

/** A command's rejection message (argument-object calls reject with an Error). */
async function rejection(pending: Thenable<unknown>): Promise<string> {
  try {
    await pending;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  assert.fail('the command resolved');
}

/** The Jobs view's entry of a service job on a connection. */
function entryOf(api: DataQueryExtensionApi, connection: string, jobId: string): JobEntry {
  const entry = api.jobs.find(connection, jobId);
  assert.ok(entry, `job ${jobId} is in the Jobs list`);
  return entry;
}

/** The tree item the Jobs view shows for an entry. */
function shown(entry: JobEntry): vscode.TreeItem & { description: string; tooltip: vscode.MarkdownString } {
  return jobTreeItem(jobNode(entry.key), entry, Date.now()) as vscode.TreeItem & { description: string; tooltip: vscode.MarkdownString };
}

/** Resolves with the first entry that fits, now or after a change of the Jobs list. */
function whenEntry(api: DataQueryExtensionApi, fits: (e: JobEntry) => boolean): Promise<JobEntry> {
  return new Promise((resolve) => {
    const found = (): boolean => {
      const entry = api.jobs.list().find(fits);
      if (entry) resolve(entry);
      return entry !== undefined;
    };
    if (found()) return;
    const listener = api.jobs.onDidChange(() => {
      if (found()) listener.dispose();
    });
  });
}

describe('Query jobs through command arguments', function () {
  this.timeout(120_000);
  let api: DataQueryExtensionApi;
  let service: RunningEmulator;
  let failing: RunningEmulator;

  before(async () => {
    ({ api } = await activateExtension());
    await vscode.workspace.getConfiguration('dataQuery').update('rateLimits', { createJob: 100 }, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('dataQuery').update('download.sha256', true, vscode.ConfigurationTarget.Global);
    service = await startEmulator({ port: 0, jobDelayMs: 300, limits: false, namespaces: ['canvas'] });
    failing = await startEmulator({ port: 0, jobDelayMs: 300, limits: false, namespaces: ['canvas'], faults: 'jobFail=1' });
    await setConnections([]);
    await addEmulatorConnection(service, SERVICE);
    await addEmulatorConnection(failing, 'Failing emulator');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('dataQuery').update('rateLimits', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('dataQuery').update('download.sha256', undefined, vscode.ConfigurationTarget.Global);
    await setConnections(undefined);
    await service?.close();
    await failing?.close();
  });

  it('queries a table: the job completes, its files are on disk as reported, and the Jobs view lists it', async () => {
    const result = await query({ table: 'accounts', format: 'csv' });
    assert.equal(result.job.status, 'complete');
    assert.ok(result.job.at, 'a snapshot reports the point its data reflects');
    await assertOnDisk(result.files);
    assert.match(await firstLine(result.files[0].path), /^key\.id,/, 'a CSV result starts with its header');

    const entry = entryOf(api, SERVICE, result.job.id);
    assert.equal(entry, api.jobs.list()[0], 'newest first');
    const item = shown(entry);
    assert.equal(item.label, 'canvas.accounts');
    assert.match(item.description, /^csv · snapshot · complete · /);
    assert.equal(item.contextValue, 'dataQuery.job.complete.files.point', 'Open, Download and Query Changes Since are offered');
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
    const folder = path.join(workspace, 'data-query-results', SERVICE, 'canvas', 'accounts', result.job.id);
    assert.deepEqual(result.files.map((f) => path.dirname(f.path)), result.files.map(() => folder), 'files land in <connection>/<namespace>/<table>/<job id>/');
    assert.equal(await fs.readFile(path.join(workspace, 'data-query-results', '.gitignore'), 'utf8'), '*\n', 'results never reach git');
  });

  it('continues from the last point with since "last", and from a job with Query Changes Since', async () => {
    const snapshot = await query({ table: 'users', download: false });
    assert.deepEqual(snapshot.files, [], 'download: false leaves the files on the service');

    const changes = await query({ table: 'users', since: 'last', download: false });
    assert.equal(changes.job.since, snapshot.job.at, 'the incremental starts where the snapshot\'s data ends');
    const incremental = entryOf(api, SERVICE, changes.job.id);
    assert.match(shown(incremental).description, /^jsonl · incremental · complete/);
    assert.ok(shown(incremental).tooltip.value.includes('changes since'), 'the tooltip tells the range');

    const next = await run<QueryOutcome>('dataQuery.queryChangesSince', { connection: SERVICE, jobId: changes.job.id, download: false });
    assert.equal(next.job.since, changes.job.until, 'an incremental continues from the previous incremental\'s until');
  });

  it('runs a job again with the same request', async () => {
    const first = await query({ table: 'courses', format: 'tsv', download: false });
    const again = await run<QueryOutcome>('dataQuery.rerunJob', { connection: SERVICE, jobId: first.job.id, download: false });
    assert.equal(again.job.status, 'complete');
    const entry = entryOf(api, SERVICE, again.job.id);
    assert.deepEqual(entry.request, { format: 'tsv' });
    assert.equal(api.jobs.list().filter((e) => e.connection === SERVICE && e.jobId === first.job.id).length, 1, 'the service\'s same job is listed once');
  });

  it('rejects bad arguments with a message that says what to do', async () => {
    const before = api.jobs.list().length;
    assert.match(await rejection(query({ table: 'no_such_table' })), /no_such_table[\s\S]*(check|list|refresh|choose|pick|exist)/i);
    assert.match(await rejection(query({ table: 'accounts', format: 'xlsx' })), /"format" must be one of jsonl, csv, tsv, parquet/);
    assert.match(await rejection(query({ table: 'enrollments', since: 'last' })), /no last point[\s\S]*Run a snapshot first/);
    assert.match(await rejection(query({ table: 'accounts', since: 'yesterday' })), /"since" must be a date-time/);
    assert.match(await rejection(run('dataQuery.queryTable', { connection: 'Nowhere', namespace: 'canvas', table: 'accounts' })), /no connection named "Nowhere"[\s\S]*Jobs emulator/);
    assert.match(await rejection(run('dataQuery.downloadJob', { connection: SERVICE })), /Pass \{connection, jobId/);
    assert.match(await rejection(run('dataQuery.openResult', {})), /Pass \{path\}/);
    const added = api.jobs.list().slice(0, api.jobs.list().length - before);
    assert.deepEqual(added.map((e) => [e.table, e.state]), [['no_such_table', 'failed']], 'only the unknown table reached the service, and it shows failed');
  });

  it('downloads a job again (decompressed), opens a result in an editor and reveals its folder', async () => {
    const result = await query({ table: 'assignments', download: false });
    const downloaded = await run<QueryOutcome>('dataQuery.downloadJob', { connection: SERVICE, jobId: result.job.id, decompress: true });
    assert.equal(downloaded.job.id, result.job.id);
    await assertOnDisk(downloaded.files);
    const [file] = downloaded.files;
    const head = await fs.readFile(file.path);
    assert.notDeepEqual([...head.subarray(0, 2)], [0x1f, 0x8b], 'decompressed on disk');
    assert.equal(entryOf(api, SERVICE, result.job.id).files.length, downloaded.files.length, 'the Jobs view lists the files');

    const opened = await run<{ path: string; opened: string }>('dataQuery.openResult', { path: file.path });
    assert.deepEqual(opened, { path: file.path, opened: 'editor' });
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor, 'an editor is open');
    assert.equal(editor.document.lineAt(0).text, await firstLine(file.path), 'the editor shows the first rows');

    const revealed = await run<{ folder: string }>('dataQuery.revealResults', { connection: SERVICE, jobId: result.job.id });
    assert.equal(revealed.folder, path.dirname(file.path));

    // a binary file outside the workspace is revealed, not opened: in a browser window there is
    // no file manager, so its path is shown instead
    const outside = path.join(os.tmpdir(), `dq-reveal-${process.pid}.parquet`);
    await fs.writeFile(outside, Buffer.from([0x50, 0x41, 0x52, 0x31, 0, 0, 0, 0xff, 0xfe, 0x50, 0x41, 0x52, 0x31]));
    try {
      assert.deepEqual(await run('dataQuery.openResult', { path: outside }), { path: outside, opened: 'revealed' });
    } finally {
      await fs.rm(outside, { force: true });
    }
  });

  it('copies a pre-signed link and opens a pasted link without credentials into links/', async () => {
    const result = await query({ table: 'submissions' });
    const objectId = result.job.objects?.[0]?.id as string;
    const copied = await run<{ objectId: string }>('dataQuery.copyResultLink', { connection: SERVICE, jobId: result.job.id });
    assert.equal(copied.objectId, objectId);
    const url = await vscode.env.clipboard.readText();
    assert.ok(url.startsWith(service.objectBaseUrl), 'the clipboard holds a link to the object host');

    const objectCalls = service.requestLog.entries().filter((e) => e.host === 'object').length;
    const linked = await run<CommandFile & { opened: string }>('dataQuery.openResultLink', { url });
    const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath as string;
    assert.equal(path.dirname(linked.path), path.join(workspace, 'data-query-results', 'links'));
    assert.equal(linked.sha256, await sha256(linked.path));
    assert.equal(linked.sha256, result.files[0].sha256, 'the same bytes as the job\'s own download');
    assert.equal(linked.opened, 'editor');
    assert.equal(vscode.window.activeTextEditor?.document.lineAt(0).text, await firstLine(linked.path), 'gunzipped on the fly, first rows shown');
    const linkCalls = service.requestLog.entries().filter((e) => e.host === 'object').slice(objectCalls);
    assert.ok(linkCalls.length > 0 && linkCalls.every((e) => !e.credentialOnObjectUrl && e.auth === 'none'), 'no credential went to the link\'s host');
    assert.doesNotMatch(linked.path, /X-Amz|Signature|sig=/i, 'the signature is not in the file name');
  });

  it('removes a job from the list, and with deleteFiles its files', async () => {
    const result = await query({ table: 'quizzes' });
    assert.equal(await run('dataQuery.removeJob', { connection: SERVICE, jobId: result.job.id, deleteFiles: true }), true);
    assert.equal(api.jobs.find(SERVICE, result.job.id), undefined, 'gone from the Jobs view');
    for (const f of result.files) await assert.rejects(fs.stat(f.path), /ENOENT/, 'its files are deleted');
    assert.match(await rejection(run('dataQuery.removeJob', { connection: SERVICE, jobId: result.job.id })), /not in the Jobs list/);
  });

  it('shows a failed job as failed, with the service\'s error type and uuid', async () => {
    const message = await rejection(run('dataQuery.queryTable', { connection: 'Failing emulator', namespace: 'canvas', table: 'accounts' }));
    const entry = api.jobs.list().find((e) => e.connection === 'Failing emulator');
    assert.ok(entry?.jobId, 'the failed job is listed');
    assert.equal(entry.state, 'failed');
    assert.ok(message.includes(entry.jobId), 'the message carries the service\'s uuid');
    assert.equal(entry.failure?.uuid, entry.jobId, 'the emulator\'s uuid of a failed job is its id');
    const item = shown(entry);
    assert.match(item.description, /failed: JobFailed/);
    assert.ok(item.tooltip.value.includes(`Support uuid: \`${entry.jobId}\``), 'the tooltip gives the uuid for support');
    assert.match(String(item.contextValue), /^dataQuery\.job\.failed/, 'Run Again is offered');
  });
});

describe('Rate limits as the user feels them', function () {
  this.timeout(120_000);
  let api: DataQueryExtensionApi;
  const emulators: RunningEmulator[] = [];

  before(async () => {
    ({ api } = await activateExtension());
  });

  afterEach(async () => {
    await vscode.workspace.getConfiguration('dataQuery').update('rateLimits', undefined, vscode.ConfigurationTarget.Global);
    await setConnections(undefined);
    for (const e of emulators.splice(0)) await e.close();
  });

  it('queues the sixth query of a minute instead of failing it, and says when it starts', async () => {
    const emulator = await startEmulator({ port: 0, jobDelayMs: 100, limits: false, namespaces: ['canvas'] });
    emulators.push(emulator);
    await setConnections([]);
    await addEmulatorConnection(emulator, 'Busy');
    const tables = ['accounts', 'users', 'courses', 'enrollments', 'assignments'];
    for (const table of tables) await run('dataQuery.queryTable', { connection: 'Busy', namespace: 'canvas', table, download: false });

    const sixth = run('dataQuery.queryTable', { connection: 'Busy', namespace: 'canvas', table: 'submissions', download: false });
    const held = await whenEntry(api, (e) => e.connection === 'Busy' && e.table === 'submissions' && e.state === 'queued');
    assert.match(shown(held).description, /queued: rate limit, starts in \d+ s/);
    assert.equal(emulator.requestLog.entries().filter((e) => e.operation === 'createJob').length, 5, 'the sixth did not reach the service');

    await vscode.commands.executeCommand('dataQuery.cancelJob', jobNode(held.key));
    assert.match(await rejection(sixth), /cancel/i);
    assert.equal(api.jobs.get(held.key)?.state, 'cancelled', 'stopping a queued query leaves no spinner');
  });

  it('waits out the service\'s 429 as a queued job that then starts by itself', async () => {
    const emulator = await startEmulator({ port: 0, jobDelayMs: 100, namespaces: ['canvas'], limits: { createJob: 1 }, limitWindowSec: 2 });
    emulators.push(emulator);
    await vscode.workspace.getConfiguration('dataQuery').update('rateLimits', { createJob: 100 }, vscode.ConfigurationTarget.Global);
    await setConnections([]);
    await addEmulatorConnection(emulator, 'Shared credentials');
    await run('dataQuery.queryTable', { connection: 'Shared credentials', namespace: 'canvas', table: 'accounts', download: false });

    const second = run<QueryOutcome>('dataQuery.queryTable', { connection: 'Shared credentials', namespace: 'canvas', table: 'users', download: false });
    const held = await whenEntry(api, (e) => e.connection === 'Shared credentials' && e.table === 'users' && e.state === 'queued');
    assert.match(shown(held).description, /queued: the service asked to wait, starts in \d+ s/);
    const done = await second;
    assert.equal(done.job.status, 'complete', 'it started by itself and completed');
    assert.equal(api.jobs.get(held.key)?.state, 'complete');
  });
});

// Commands on result files: open one (small text results in a read-only editor, gunzipped on
// the fly; big or binary ones revealed), reveal a job's folder, copy a fresh pre-signed link
// with a warning (under a cancellable progress notification; nothing is copied once
// cancelled), and download a pasted link without any credential, then open it.

import * as path from 'node:path';
import type { Dispatcher } from 'undici';
import * as vscode from 'vscode';
import { cancelledError, DqError } from '../../client/errors';
import { systemClock } from '../../core/clock';
import { tableName, type JobEntry } from '../../jobs/jobEntry';
import { downloadLink } from '../../jobs/linkDownload';
import { readResultText } from '../../jobs/resultText';
import { formatBytes } from '../../core/byteSize';
import { Commands } from '../ui/ids';
import type { JobsViewNode } from './jobsNodes';
import type { JobServices } from './jobServices';
import { readDownloadSettings } from './jobSettings';
import { revealFile } from '../ui/revealFile';
import { resultDocumentUri } from './resultDocuments';
import { registerArgsOrInteractiveCommand } from '../ui/commands';
import { jobFromArgs, jobFromNode } from './jobCommandSupport';

export interface ResultCommandDeps {
  createDispatcher(): Dispatcher;
  userAgent: string;
}

export function registerResultCommands(services: JobServices, deps: ResultCommandDeps): vscode.Disposable[] {
  const { logger, model } = services;
  const nodeFile = async (node: unknown): Promise<string | undefined> => {
    if ((node as JobsViewNode | undefined)?.kind === 'file') return (node as JobsViewNode & { path: string }).path;
    const entry = await jobFromNode(model, node, 'Open Result', (e) => e.files.length > 0);
    return entry?.files[0]?.path;
  };
  return [
    registerArgsOrInteractiveCommand(Commands.openResult, 'Open Result', logger, {
      fromArgs: async (args) => openResult(textArg(args, 'path', 'the path of a downloaded result file')),
      interactive: async (node) => {
        const file = await nodeFile(node);
        return file && openResult(file);
      },
    }),
    registerArgsOrInteractiveCommand(Commands.revealResults, 'Reveal Results', logger, {
      fromArgs: async (args) => ({ folder: await reveal(jobFolderOf(jobFromArgs(model, args))) }),
      interactive: async (node) => {
        const entry = await jobFromNode(model, node, 'Reveal Results', (e) => e.files.length > 0);
        return entry && { folder: await reveal(jobFolderOf(entry)) };
      },
    }),
    registerArgsOrInteractiveCommand(Commands.copyResultLink, 'Copy Result Link', logger, {
      fromArgs: async (args) => {
        const entry = jobFromArgs(model, args);
        const objectId = typeof args.objectId === 'string' ? args.objectId : entry.objects?.[0];
        return copyLink(services, entry, objectId);
      },
      interactive: async (node) => {
        const n = node as JobsViewNode | undefined;
        const entry = await jobFromNode(model, node, 'Copy Result Link', (e) => (e.objects ?? []).length > 0);
        if (!entry) return undefined;
        const objectId = n?.kind === 'file' ? entry.files.find((f) => f.path === n.path)?.objectId : await pickObject(entry);
        return objectId && copyLink(services, entry, objectId);
      },
    }),
    registerArgsOrInteractiveCommand(Commands.openResultLink, 'Open Result From Link', logger, {
      fromArgs: async (args) => fromLink(services, deps, textArg(args, 'url', 'a pre-signed download URL')),
      interactive: async () => {
        const url = await vscode.window.showInputBox({
          title: 'Open Result From Link',
          prompt: 'Paste a pre-signed download URL. It is downloaded without any credential into the results folder.',
          ignoreFocusOut: true,
          validateInput: (v) => (/^https?:\/\/\S+$/i.test(v.trim()) ? undefined : 'Paste a full https:// link.'),
        });
        return url && fromLink(services, deps, url);
      },
    }),
  ];
}

async function openResult(file: string): Promise<{ path: string; opened: 'editor' | 'revealed' }> {
  const text = await readResultText(file).catch((err: NodeJS.ErrnoException) => {
    throw new DqError('io', `Could not read ${path.basename(file)}: ${err.code ?? err.message}`, { hint: 'Download the job again from the Jobs view.' });
  });
  if (text === undefined) {
    await reveal(file);
    return { path: file, opened: 'revealed' };
  }
  const document = await vscode.workspace.openTextDocument(resultDocumentUri(file));
  await vscode.window.showTextDocument(document, { preview: true });
  return { path: file, opened: 'editor' };
}

async function reveal(target: string): Promise<string> {
  await revealFile(target);
  return target;
}

function jobFolderOf(entry: JobEntry): string {
  const first = entry.files[0];
  if (!first) throw new DqError('usage', `The job of ${tableName(entry)} has no downloaded files.`, { hint: 'Download it first.' });
  return path.dirname(first.path);
}

async function pickObject(entry: JobEntry): Promise<string | undefined> {
  const objects = entry.objects ?? [];
  if (objects.length <= 1) return objects[0];
  const items = objects.map((id, i) => ({ label: `Result object ${i + 1} of ${objects.length}`, id }));
  return (await vscode.window.showQuickPick(items, { title: 'Copy Result Link' }))?.id;
}

async function copyLink(services: JobServices, entry: JobEntry, objectId: string | undefined): Promise<{ objectId: string }> {
  if (!objectId || !(entry.objects ?? []).includes(objectId)) {
    throw new DqError('usage', `The job of ${tableName(entry)} has no such result object.`, { hint: 'Use a complete job, and an objectId of that job.' });
  }
  const client = await services.clientFor(entry.connection);
  // the service or the limiter may keep it waiting: shown, and cancellable, until the link is in
  const url = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Getting a download link for ${tableName(entry)}`, cancellable: true },
    async (_progress, token) => {
      const abort = new AbortController();
      const cancelling = token.onCancellationRequested(() => abort.abort());
      try {
        const { urls } = await client.createUrls([objectId], { signal: abort.signal, priority: 'user' });
        // a link that arrives after a cancel is not copied
        if (token.isCancellationRequested) throw cancelledError('Copy Result Link', { after: '; nothing was copied.' });
        return urls[objectId].url;
      } finally {
        cancelling.dispose();
      }
    },
  );
  await vscode.env.clipboard.writeText(url);
  services.logger.info(`Copied a download link for a result object of ${tableName(entry)}.`);
  void vscode.window.showWarningMessage(
    'Download link copied. Anyone holding it can download this result file, without signing in, until the link expires (about 15 minutes). Share it only with people who may see the data.',
  );
  return { objectId };
}

async function fromLink(services: JobServices, deps: ResultCommandDeps, url: string): Promise<{ path: string; bytes: number; sha256?: string; opened: 'editor' | 'revealed' }> {
  const resultsRoot = await services.resultsRoot();
  const dispatcher = deps.createDispatcher();
  try {
    const file = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Downloading the linked result', cancellable: true },
      (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return downloadLink({
          url,
          resultsRoot,
          dispatcher,
          clock: systemClock,
          logger: services.logger,
          userAgent: deps.userAgent,
          decompress: readDownloadSettings().decompress,
          sha256: readDownloadSettings().sha256,
          signal: abort.signal,
          onProgress: (p) => progress.report({ message: formatBytes(p.allBytes) }),
        });
      },
    );
    const opened = await openResult(file.path);
    return { path: file.path, bytes: file.bytes, sha256: file.sha256, opened: opened.opened };
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
}

function textArg(args: Record<string, unknown>, name: string, what: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value.trim() === '') throw new DqError('usage', `Pass {${name}}: ${what}.`);
  return value.trim();
}

// How every job command is driven: with an argument object it asks nothing, resolves with
// its result or rejects with an Error that says what to do; from the palette or a tree node
// it asks for what it misses and tells failures through presentError.

import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import type { Logger } from '../../core/logger';
import { isRecord } from '../../core/isRecord';
import { tableName, type JobEntry } from '../../jobs/jobEntry';
import type { QueryResult } from '../../jobs/jobRunner';
import type { JobsModel } from '../../jobs/jobsModel';
import { jobDescription } from '../../jobs/statusTexts';
import type { JobsViewNode } from '../jobs/jobsNodes';
import { presentError, userError } from '../ui/presentError';

export interface CommandHandlers {
  /** driven by an argument object (keybindings, tasks, other extensions, tests) */
  fromArgs(args: Record<string, unknown>): Promise<unknown>;
  /** from the palette (no argument) or a tree node */
  interactive(node?: unknown): Promise<unknown>;
}

export function registerJobCommand(id: string, title: string, logger: Logger, handlers: CommandHandlers): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (arg?: unknown) => {
    if (isRecord(arg) && !isTreeNode(arg)) {
      try {
        return await handlers.fromArgs(arg);
      } catch (err) {
        throw userError(logger, title, err);
      }
    }
    try {
      return await handlers.interactive(arg);
    } catch (err) {
      presentError(logger, title, err);
      return undefined;
    }
  });
}

/** Tree nodes of both views carry a `kind` and an `id`; argument objects do not. */
function isTreeNode(arg: Record<string, unknown>): boolean {
  return typeof arg.kind === 'string' && typeof arg.id === 'string';
}

/** `{connection, jobId}`: the newest job of the list with that id on that connection. */
export function jobFromArgs(model: JobsModel, args: Record<string, unknown>): JobEntry {
  const { connection, jobId } = args;
  if (typeof connection !== 'string' || typeof jobId !== 'string') {
    throw new DqError('usage', 'Pass {connection, jobId}: the connection\'s name and the job id, both strings.');
  }
  const entry = model.find(connection, jobId);
  if (!entry) throw new DqError('usage', `Job ${jobId} of "${connection}" is not in the Jobs list.`, { hint: 'Use a job id shown in the Jobs view.' });
  return entry;
}

/** The job of a Jobs view node, or one picked from the list (palette). */
export async function jobFromNode(model: JobsModel, node: unknown, title: string, fits: (e: JobEntry) => boolean = () => true): Promise<JobEntry | undefined> {
  if (node !== undefined) {
    const entry = model.get((node as JobsViewNode).key);
    if (!entry) throw new DqError('usage', 'That job is no longer in the Jobs list.');
    return entry;
  }
  const now = Date.now();
  const items = model.list().filter(fits).map((entry) => ({ label: tableName(entry), description: `${entry.connection} · ${jobDescription(entry, now)}`, entry }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`${title}: no job in the Jobs list fits. Run a query first.`);
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { title, placeHolder: 'Pick a job' }))?.entry;
}

/** What a query or download resolves with for a caller: `{job, files: [{path, bytes, sha256}]}`. */
export function commandResult(result: Pick<QueryResult, 'job' | 'files'>): unknown {
  return { job: result.job, files: result.files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 })) };
}

export function optionalBoolean(args: Record<string, unknown>, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined || typeof value === 'boolean') return value;
  throw new DqError('usage', `"${name}" must be true or false.`);
}

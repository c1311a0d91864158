// What the job commands share: the job an argument object or a tree node names (or one
// picked from the list), and the result a query or download resolves with.

import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import { tableName, type JobEntry } from '../../jobs/jobEntry';
import type { QueryResult } from '../../jobs/jobRunner';
import type { JobsModel } from '../../jobs/jobsModel';
import { jobDescription } from '../../jobs/statusTexts';
import type { JobsViewNode } from './jobsNodes';

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

// `dataQuery.profileResult`: each column's profile over a whole result (src/engine/resultProfile.ts),
// of a preview's current view or of files not open, with progress in a notification that can
// cancel it. Run by hand, the profile is shown as JSON in an untitled editor; driven by an
// argument object, it resolves with the profile and shows nothing else.

import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import { isRecord } from '../../core/isRecord';
import type { EngineClient } from '../../engine/engineClient';
import type { ResultProfile, ResultSource, View } from '../../engine/engineProtocol';

/** `dataQuery.profileResult`'s argument: what to profile (as the preview takes it: `{paths}` or `{connection, jobId}`; the active preview when neither), and how. */
export interface ProfileArgs {
  paths?: string[];
  connection?: string;
  jobId?: string;
  /** the columns to profile, by name (default all) */
  columns?: string[];
  /** a condition over the columns, added to the preview's own filters and WHERE */
  where?: string;
}

export type ProfileEngine = Pick<EngineClient, 'profile' | 'profileFiles'>;

/** What to profile: files (opened for it and closed again) or a preview's open result in its view. */
export type ProfileSubject = { source: ResultSource } | { handle: string; view: View };

/** The columns and WHERE an argument asks for, checked: a wrong one is refused, saying what is expected. */
export function profileOptions(arg: unknown): { columns?: string[]; where?: string } {
  if (!isRecord(arg)) return {};
  const options: { columns?: string[]; where?: string } = {};
  if (arg.columns !== undefined) {
    const names = arg.columns;
    if (!Array.isArray(names) || names.length === 0 || !names.every((n) => typeof n === 'string' && n.trim() !== '')) {
      throw new DqError('usage', 'The profile\'s "columns" is not a list of column names.', { hint: 'Pass columns as ["key.id", "value.name"], or leave it out to profile every column.' });
    }
    options.columns = names as string[];
  }
  if (arg.where !== undefined) {
    if (typeof arg.where !== 'string') throw new DqError('usage', 'The profile\'s "where" is not text.', { hint: 'Pass a condition over the columns as text, such as "\\"key.id\\" > 100".' });
    if (arg.where.trim() !== '') options.where = arg.where;
  }
  if (arg.paths !== undefined && !(Array.isArray(arg.paths) && arg.paths.length > 0 && arg.paths.every((p) => typeof p === 'string'))) {
    throw new DqError('usage', 'The profile\'s "paths" is not a list of result files.', { hint: 'Pass paths as ["/folder/part-00000.jsonl.gz", ...].' });
  }
  return options;
}

/** A view with `where` added to its own conditions. */
export function withWhere(view: View, where: string | undefined): View {
  if (!where) return view;
  return { ...view, where: view.where?.trim() ? `(${view.where}\n) AND (${where}\n)` : where };
}

/** The profile of `subject`, with a notification showing the columns done, which Cancel stops. */
export async function profileWithProgress(engine: ProfileEngine, subject: ProfileSubject, options: { columns?: string[]; where?: string }, title: string): Promise<ResultProfile> {
  return await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Profiling ${title}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => abort.abort());
      let done = 0;
      const handlers = {
        columns: options.columns,
        onRows: (rows: number) => progress.report({ message: `reading: ${rows.toLocaleString()} rows` }),
        onColumn: (column: { name: string }) => progress.report({ message: `${++done} column${done === 1 ? '' : 's'} done (${column.name})` }),
      };
      try {
        if ('source' in subject) return await engine.profileFiles(subject.source, withWhere({}, options.where), handlers, abort.signal);
        return await engine.profile(subject.handle, withWhere(subject.view, options.where), handlers, abort.signal);
      } finally {
        cancel.dispose();
      }
    },
  );
}

/** The profile as JSON in an untitled editor (nothing is written to disk). */
export async function showProfile(profile: ResultProfile): Promise<void> {
  const document = await vscode.workspace.openTextDocument({ language: 'json', content: `${JSON.stringify(profile, null, 2)}\n` });
  await vscode.window.showTextDocument(document, { preview: false });
}

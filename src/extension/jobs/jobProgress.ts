// A query or download started from the UI: a progress notification that follows the job's
// state (queued, running, downloading N of M files) with Cancel, then a notification with
// the result and its next steps (Open, Preview, Reveal), or the failure told through presentError.

import * as vscode from 'vscode';
import { isDqError } from '../../client/errors';
import { tableName, type JobEntry } from '../../jobs/jobEntry';
import type { QueryResult } from '../../jobs/jobRunner';
import { stateText } from '../../jobs/statusTexts';
import { presentError, type ErrorAction } from '../ui/presentError';
import { Commands } from '../ui/ids';
import type { JobServices } from './jobServices';
import { jobNode } from './jobsNodes';

/** Next steps offered when a job fails, by the kind of failure. */
export type RecoveryActions = (entry: JobEntry, kind: string | undefined) => ErrorAction[];

export async function followInNotification(
  services: JobServices,
  entry: JobEntry,
  done: Promise<QueryResult>,
  recovery: RecoveryActions,
): Promise<QueryResult | undefined> {
  const title = `${tableName(entry)} (${entry.connection})`;
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: true },
      (progress, token) => {
        const report = (): void => {
          const current = services.model.get(entry.key);
          if (current) progress.report({ message: stateText(current, Date.now()) });
        };
        const subscription = services.model.onDidChange(report);
        const cancel = token.onCancellationRequested(() => services.runner.cancel(entry.key));
        report();
        return done.finally(() => {
          subscription.dispose();
          cancel.dispose();
        });
      },
    );
    void announce(title, result);
    return result;
  } catch (err) {
    presentError(services.logger, title, err, recovery(entry, isDqError(err) ? err.kind : undefined));
    return undefined;
  }
}

async function announce(title: string, result: QueryResult): Promise<void> {
  const node = jobNode(result.entry.key);
  if (result.files.length === 0) {
    const choice = await vscode.window.showInformationMessage(`${title}: the job is complete.`, 'Download');
    if (choice) await vscode.commands.executeCommand(Commands.downloadJob, node);
    return;
  }
  const files = result.files.length === 1 ? '1 file' : `${result.files.length} files`;
  const choice = await vscode.window.showInformationMessage(`${title}: ${files} downloaded.`, 'Open', 'Preview', 'Reveal');
  if (choice === 'Open') await vscode.commands.executeCommand(Commands.openResult, { path: result.files[0].path });
  if (choice === 'Preview') await vscode.commands.executeCommand(Commands.previewResult, node);
  if (choice === 'Reveal') await vscode.commands.executeCommand(Commands.revealResults, node);
}

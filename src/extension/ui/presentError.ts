// One way to tell the user about a failure: the same sentence (what happened, what to do,
// the server's uuid) in the log and in a notification with the next steps as buttons.
// Callers that were given an argument object get it as a rejected Error instead.

import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { failureOf } from '../../jobs/jobEntry';
import { failureText } from '../../jobs/statusTexts';
import { isCancellation } from './cancellation';

export interface ErrorAction {
  title: string;
  run(): unknown;
}

const SHOW_LOG = 'Show Log';

/** `what` names the attempt, e.g. `Query of canvas.users`. Cancellations are only logged. */
export function presentError(logger: Logger, what: string, err: unknown, actions: readonly ErrorAction[] = []): void {
  if (isCancellation(err)) {
    logger.info(`${what}: cancelled.`);
    return;
  }
  const text = errorSentence(what, err);
  logger.error(text);
  void vscode.window.showErrorMessage(text, ...actions.map((a) => a.title), SHOW_LOG).then((choice) => {
    if (choice === SHOW_LOG) void vscode.commands.executeCommand('dataQuery.showLog');
    else actions.find((a) => a.title === choice)?.run();
  });
}

/** The error a command rejects with when it was driven by an argument object. */
export function userError(logger: Logger, what: string, err: unknown): Error {
  const text = errorSentence(what, err);
  logger.warn(text);
  return new Error(text);
}

function errorSentence(what: string, err: unknown): string {
  return `${what}: ${failureText(failureOf(err))}`;
}

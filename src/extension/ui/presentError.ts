// Tells the user about a failure, in the words describeFailure gives it: the same sentence in
// the log and in a notification with the next steps as buttons (and Show Log). Callers that
// were given an argument object get it as a rejected Error instead. The only module that
// shows an error message.

import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { describeFailure, SHOW_LOG, type FailureAction } from './describeFailure';

/** A step a caller offers with a failure. */
export interface ErrorAction {
  title: string;
  run(): unknown;
}

/** `what` names the attempt, e.g. `Query of canvas.users`. Cancellations are only logged. */
export function presentError(logger: Logger, what: string, err: unknown, actions: readonly ErrorAction[] = []): void {
  const failure = describeFailure(err, { what, actions });
  if (failure.cancelled) {
    logger.info(`${what}: cancelled.`);
    return;
  }
  logger.error(failure.label);
  const offered = [...failure.actions, SHOW_LOG];
  void vscode.window.showErrorMessage(failure.label, ...offered.map((a) => a.title)).then((choice) => {
    const chosen = offered.find((a) => a.title === choice);
    if (chosen) void runAction(chosen);
  });
}

/** The error a command rejects with when it was driven by an argument object. */
export function userError(logger: Logger, what: string, err: unknown): Error {
  const { label } = describeFailure(err, { what });
  logger.warn(label);
  return new Error(label);
}

/**
 * A failure the person can answer on the spot (Edit and Retry): its sentence with only the
 * caller's choices, resolving with the one picked. The caller has logged it.
 */
export function askAboutFailure(err: unknown, ...choices: string[]): Thenable<string | undefined> {
  return vscode.window.showErrorMessage(describeFailure(err).label, ...choices);
}

function runAction(action: FailureAction): unknown {
  return 'run' in action ? action.run() : vscode.commands.executeCommand(action.command, ...(action.arguments ?? []));
}

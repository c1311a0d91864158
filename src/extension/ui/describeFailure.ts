// One way to say a failure: the sentence (what failed, what happened, what to do, the
// server's uuid), the details for the log and tooltips, and the next steps, from one map of
// error kind to next step. Tree nodes, notifications, the log and the rejections of commands
// driven by an argument object all use it (presentError.ts shows it in VS Code). No `vscode`
// import, so plain tests hold the map.

import { isDqError, type ErrorKind } from '../../client/errors';
import { failureOf } from '../../jobs/jobEntry';
import { failureText } from '../../jobs/statusTexts';
import { isCancellation } from './cancellation';
import { Commands } from './ids';

/** A next step: a command (what a tree node can carry), or a function a caller offers. */
export type FailureAction = { title: string; command: string; arguments?: unknown[] } | { title: string; run(): unknown };

/** The step each kind of failure has wherever it happens; callers add the steps only they know (Run Snapshot, Retry). */
export const NEXT_STEPS: Readonly<Partial<Record<ErrorKind, FailureAction>>> = {
  auth: { title: 'Set Credentials', command: Commands.setCredentials },
};

/** Offered with every failure a notification tells. */
export const SHOW_LOG: FailureAction = { title: 'Show Log', command: Commands.showLog };

export interface FailureDescription {
  kind: ErrorKind | 'unknown';
  /** stopped by the user (or a newer request): logged, never shown as a failure */
  cancelled: boolean;
  /** the one sentence, `what: message. hint (type, HTTP status, uuid)` */
  label: string;
  /** the error's facts for the log and tooltips: kind, status, type, uuid, message and hint */
  detail: string;
  /** the kind's next step, then the caller's */
  actions: FailureAction[];
}

export interface FailureContext {
  /** names the attempt, e.g. `Query of canvas.users`; the label starts with it */
  what?: string;
  /** steps only the caller can offer, after the kind's own */
  actions?: readonly FailureAction[];
}

export function describeFailure(error: unknown, context: FailureContext = {}): FailureDescription {
  const failure = failureOf(error);
  const sentence = failureText(failure);
  const own = context.actions ?? [];
  const step = failure.kind === 'unknown' ? undefined : NEXT_STEPS[failure.kind];
  return {
    kind: failure.kind,
    cancelled: isCancellation(error),
    label: context.what ? `${context.what}: ${sentence}` : sentence,
    detail: isDqError(error) ? error.describe() : failure.message,
    actions: step && !own.some((a) => a.title === step.title) ? [step, ...own] : [...own],
  };
}

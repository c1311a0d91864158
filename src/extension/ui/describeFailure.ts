// One way to say a failure: the sentence (what failed, what happened, what to do, the
// server's uuid), the details for the log and tooltips, and the next steps, from one map of
// error kind to next step. Tree nodes, notifications, the log and the rejections of commands
// driven by an argument object all use it (presentError.ts shows it in VS Code). No `vscode`
// import, so plain tests hold the map.

import { isDqError, type DqError, type ErrorKind } from '../../client/errors';
import { failureOf } from '../../jobs/jobEntry';
import { failureText } from '../../jobs/statusTexts';
import { isCancellation } from './cancellation';
import { Commands, EditorCommands } from './ids';

/** A step that runs a command: what a tree node can carry. */
export interface CommandAction {
  title: string;
  command: string;
  arguments?: unknown[];
}

/** A next step: a command, or a function a caller offers. */
export type FailureAction = CommandAction | { title: string; run(): unknown };

/** What a failed call was on: a connection of the settings, and the namespace or table in it. */
export interface FailureSubject {
  connection: string;
  namespace?: string;
  table?: string;
}

/**
 * What the extension offers and says for a kind of failure: the step offered first, and,
 * where it knows better than the error, the hint said instead of the error's own, or the
 * whole sentence (the error's facts stay in the detail).
 */
export interface NextStep {
  action?: FailureAction;
  hint?: string;
  sentence?: string;
}

/** Opens the settings file at the connections, where a name, an address or an opt-in is fixed. */
export const OPEN_CONNECTION_SETTINGS: Required<CommandAction> = {
  title: 'Open Settings',
  command: EditorCommands.openSettingsJson,
  arguments: [{ revealSetting: { key: 'dataQuery.connections' } }],
};

export const SET_CREDENTIALS: CommandAction = { title: 'Set Credentials', command: Commands.setCredentials };

/**
 * The step of each kind of failure wherever it happens, from the error and what the call was
 * about; callers add the steps only they know (Run Snapshot, Retry).
 */
export const NEXT_STEPS: Readonly<Partial<Record<ErrorKind, (error: DqError, about?: FailureSubject) => NextStep>>> = {
  auth: () => ({ action: SET_CREDENTIALS }),
  // a call on a connection in the settings: the address or the opt-in is mended there
  insecure: (_error, about) =>
    about ? { action: OPEN_CONNECTION_SETTINGS, hint: 'Use https:// in the connection\'s baseUrl, or set "allowInsecureHttp": true in its settings if you trust the network.' } : {},
  notFound: notFoundStep,
};

/** Offered with every failure a notification tells. */
export const SHOW_LOG: FailureAction = { title: 'Show Log', command: Commands.showLog };

/**
 * A table that is gone is listed again from its namespace (asking for it again cannot help); a
 * namespace the service does not have is mended in the connection's settings.
 */
function notFoundStep(error: DqError, about?: FailureSubject): NextStep {
  const { namespace, table } = about ?? {};
  if (namespace === undefined) return {};
  if (table !== undefined) return { sentence: `${namespace}.${table} no longer exists: refresh ${namespace} to list its tables again.` };
  const named = error.details?.kind === 'namespace' && error.details.id !== undefined;
  return {
    action: OPEN_CONNECTION_SETTINGS,
    sentence: named
      ? `The service has no namespace "${namespace}": check its spelling under "namespaces" in the connection's settings.`
      : `Listing "${namespace}" found nothing: check the namespace, and the connection's baseUrl and dataPrefix, in its settings.`,
  };
}

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
  /** the connection, namespace or table the failed call was on, for the kinds whose step depends on it */
  about?: FailureSubject;
}

export function describeFailure(error: unknown, context: FailureContext = {}): FailureDescription {
  const failure = failureOf(error);
  const step: NextStep = isDqError(error) ? (NEXT_STEPS[error.kind]?.(error, context.about) ?? {}) : {};
  const sentence = step.sentence ?? failureText(step.hint ? { ...failure, hint: step.hint } : failure);
  const own = context.actions ?? [];
  const first = step.action;
  return {
    kind: failure.kind,
    cancelled: isCancellation(error),
    label: context.what ? `${context.what}: ${sentence}` : sentence,
    detail: isDqError(error) ? error.describe() : failure.message,
    actions: first && !own.some((a) => a.title === first.title) ? [first, ...own] : [...own],
  };
}

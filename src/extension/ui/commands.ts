// How every command is registered and driven: with an argument object it asks nothing,
// resolves with its result or rejects with an Error that says what to do; from the palette or
// a tree node it asks for what it misses and tells failures through presentError.

import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import type { Logger } from '../../core/logger';
import { isRecord } from '../../core/isRecord';
import type { CommandId } from './ids';
import { presentError, userError } from './presentError';

export interface CommandHandlers {
  /** driven by an argument object (keybindings, tasks, other extensions, tests) */
  fromArgs(args: Record<string, unknown>): Promise<unknown>;
  /** from the palette (no argument) or a tree node */
  interactive(node?: unknown): Promise<unknown>;
}

/** Every command of the extension is registered here, by its id in ids.ts. */
export function registerCommand(id: CommandId, run: (...args: any[]) => unknown): vscode.Disposable {
  return vscode.commands.registerCommand(id, run);
}

/**
 * A command driven either way: given an argument object it runs `fromArgs` and rejects with
 * describeFailure's sentence; from the palette or a tree node it runs `interactive` and shows
 * a failure through presentError. `title` names it in both.
 */
export function registerArgsOrInteractiveCommand(id: CommandId, title: string, logger: Logger, handlers: CommandHandlers): vscode.Disposable {
  return registerCommand(id, async (arg?: unknown) => {
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

export function optionalBoolean(args: Record<string, unknown>, name: string): boolean | undefined {
  const value = args[name];
  if (value === undefined || typeof value === 'boolean') return value;
  throw new DqError('usage', `"${name}" must be true or false.`);
}

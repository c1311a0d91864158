// Commands on jobs in the list: Download (again, or resume a cancelled one), Stop Following,
// Remove, and Show Jobs.

import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import { tableName } from '../../jobs/jobEntry';
import { Commands, focusCommand, Views } from '../ui/ids';
import { followInNotification } from './jobProgress';
import type { JobServices } from './jobServices';
import { optionalBoolean, registerCommand, registerArgsOrInteractiveCommand } from '../ui/commands';
import { commandResult, jobFromArgs, jobFromNode } from './jobCommandSupport';

const REMOVE = 'Remove';
const REMOVE_FILES = 'Remove and Delete Files';

export function registerJobCommands(services: JobServices): vscode.Disposable[] {
  const { logger, model, runner } = services;
  return [
    registerArgsOrInteractiveCommand(Commands.downloadJob, 'Download Results', logger, {
      fromArgs: async (args) => {
        const decompress = optionalBoolean(args, 'decompress');
        const listed = typeof args.connection === 'string' && typeof args.jobId === 'string' ? model.find(args.connection, args.jobId) : undefined;
        if (listed) return commandResult(await runner.download(listed.key, decompress));
        const { connection, jobId } = args;
        if (typeof connection !== 'string' || typeof jobId !== 'string') throw new DqError('usage', 'Pass {connection, jobId, decompress?}.');
        return commandResult(await runner.downloadUnlisted(connection, jobId, decompress));
      },
      interactive: async (node) => {
        const entry = await jobFromNode(model, node, 'Download Results', (e) => e.jobId !== undefined && !runner.isRunning(e.key));
        if (!entry) return undefined;
        return followInNotification(services, entry, runner.download(entry.key), () => []);
      },
    }),
    registerArgsOrInteractiveCommand(Commands.cancelJob, 'Stop Following', logger, {
      fromArgs: async (args) => runner.cancel(jobFromArgs(model, args).key),
      interactive: async (node) => {
        const entry = await jobFromNode(model, node, 'Stop Following', (e) => runner.isRunning(e.key));
        if (entry) runner.cancel(entry.key);
      },
    }),
    registerArgsOrInteractiveCommand(Commands.removeJob, 'Remove Job', logger, {
      fromArgs: async (args) => {
        await runner.remove(jobFromArgs(model, args).key, optionalBoolean(args, 'deleteFiles') ?? false);
        return true;
      },
      interactive: async (node) => {
        const entry = await jobFromNode(model, node, 'Remove Job');
        if (!entry) return false;
        const choices = entry.files.length > 0 ? [REMOVE, REMOVE_FILES] : [REMOVE];
        const choice = await vscode.window.showWarningMessage(`Remove the job of ${tableName(entry)} from the list?`, { modal: true }, ...choices);
        if (!choice) return false;
        await runner.remove(entry.key, choice === REMOVE_FILES);
        return true;
      },
    }),
    registerCommand(Commands.showJobs, () => vscode.commands.executeCommand(focusCommand(Views.jobs))),
  ];
}

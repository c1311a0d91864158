// Adapts the "Data Query" LogOutputChannel to the Logger interface the client and emulator
// take. Every line passes through `redact` as a last line of defence against tokens. Show Log
// opens the channel.

import type * as vscode from 'vscode';
import { redact, type Logger } from '../../core/logger';
import { registerCommand } from './commands';
import { Commands } from './ids';

export function outputChannelLogger(channel: vscode.LogOutputChannel): Logger {
  return {
    trace: (message) => channel.trace(redact(message)),
    debug: (message) => channel.debug(redact(message)),
    info: (message) => channel.info(redact(message)),
    warn: (message) => channel.warn(redact(message)),
    error: (message) => channel.error(redact(message)),
  };
}

export function registerShowLog(channel: vscode.LogOutputChannel): vscode.Disposable {
  return registerCommand(Commands.showLog, () => channel.show());
}

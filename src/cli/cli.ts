// dq's dispatcher: picks the command, parses its options, runs it and turns any failure
// into one `dq: ` line on stderr and the documented exit code.

import { DqError, isCancelled } from '../client/errors';
import { redact } from '../core/logger';
import { SchemaError } from '../core/schema';
import { CLIENT_VERSION as VERSION } from '../client/version';
import { parseArgs, UsageError, type OptionSpec } from './argParser';
import { forCommandLine } from './cliHints';
import type { CliIo } from './cliIo';
import type { CommandSpec } from './commandSpec';
import { columnsCommand, jobCommand, schemaCommand, tablesCommand, urlsCommand, waitCommand } from './dataCommands';
import { emulatorCommand } from './emulatorCommand';
import { EXIT, exitCodeFor } from './exitCodes';
import { findColumnCommand } from './findColumnCommand';
import { GLOBAL_OPTIONS } from './globalOptions';
import { CANCELLED_TEXT, JobStageError, jobFollowUp, sentence } from './jobFollowUp';
import { nearestName } from './nearestName';
import { isOutputClosed } from './outputStreams';
import { profileCommand } from './profileCommand';
import { downloadCommand, queryCommand } from './queryCommands';
import { syncCommand, syncStatusCommand } from './syncCommands';
import { terminalLine } from './terminalLine';

const COMMANDS: readonly CommandSpec[] = [
  tablesCommand,
  schemaCommand,
  columnsCommand,
  findColumnCommand,
  queryCommand,
  jobCommand,
  waitCommand,
  downloadCommand,
  urlsCommand,
  profileCommand,
  syncCommand,
  syncStatusCommand,
  emulatorCommand,
];

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const name = argv[0];
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const asked = name === 'help' ? argv[1] : undefined;
    const topic = asked === undefined ? undefined : COMMANDS.find((c) => c.name === asked);
    if (asked !== undefined && !topic) return report(unknownCommand(asked), io);
    io.stdout.write(topic ? commandHelp(topic) : generalHelp());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    io.stdout.write(`dq ${VERSION}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  try {
    if (!command) throw unknownCommand(name);
    const specs = optionsOf(command);
    const args = parseArgs(argv.slice(1), specs, command.ownOptionsOnly ? {} : io.env);
    if (args.options.help) {
      io.stdout.write(commandHelp(command));
      return EXIT.ok;
    }
    return await command.run({ args, io });
  } catch (err) {
    return report(err, io);
  }
}

function unknownCommand(name: string): UsageError {
  const meant = nearestName(name, COMMANDS.map((c) => c.name));
  return new UsageError(`unknown command "${name}"${meant ? ` (did you mean ${meant}?)` : ''}; commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
}

function optionsOf(command: CommandSpec): OptionSpec[] {
  if (command.ownOptionsOnly) return [...command.options];
  const own = new Set(command.options.map((o) => o.name));
  return [...command.options, ...GLOBAL_OPTIONS.filter((g) => !own.has(g.name))];
}

function report(thrown: unknown, io: CliIo): number {
  // a progress line still on screen stays there, and the error goes on a line of its own
  const terminal = terminalLine(io.stderr);
  terminal.end();
  // the terminal line prints the service's words (in messages, ids) with their control characters made visible
  const stack = (text: string): void => terminal.print(text.split('\n'));
  const failure = thrown instanceof JobStageError ? thrown.failure : thrown;
  // a schema that cannot be read is an answer of the service that cannot be understood
  const err = failure instanceof SchemaError ? new DqError(failure.kind, failure.message) : failure;
  // once the job exists, the line ends saying how to get its files later
  const followUp = thrown instanceof JobStageError ? jobFollowUp(thrown.job, err) : '';
  const withFollowUp = (line: string): string => (followUp ? `${sentence(line)} ${followUp}` : line);
  if (err instanceof UsageError) {
    terminal.print(`dq: usage: ${redact(err.message)}`);
    return EXIT.usage;
  }
  if (isCancelled(err) || io.interrupt.aborted) {
    // nobody reads the output any more: stop without a word, as `dq ... | head` expects
    if (isOutputClosed(io.interrupt.reason)) return EXIT.interrupted;
    terminal.print(`dq: cancelled: ${redact(withFollowUp(CANCELLED_TEXT))}`);
    return EXIT.interrupted;
  }
  if (err instanceof DqError) {
    terminal.print(`dq: ${redact(withFollowUp(forCommandLine(err).describe()))}`);
    if (io.env.DQ_DEBUG === '1' && err.stack) stack(redact(err.stack));
    return exitCodeFor(err);
  }
  const e = err as NodeJS.ErrnoException;
  const what = e && typeof e.code === 'string' && e.syscall ? `cannot ${e.syscall} ${e.path ?? ''}`.trim() + ` (${e.code})` : String(e?.message ?? err);
  terminal.print(`dq: error: ${redact(what)}. Set DQ_DEBUG=1 for details.${followUp ? ` ${redact(followUp)}` : ''}`);
  if (io.env.DQ_DEBUG === '1' && e?.stack) stack(redact(e.stack));
  return EXIT.service;
}

function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `dq ${VERSION}: query a Data Query Service from the command line`,
    '',
    'Usage: dq <command> [arguments] [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Options for every command that calls the service:',
    ...formatOptions(GLOBAL_OPTIONS),
    '',
    'Exit codes: 0 ok, 2 usage, 3 authentication, 4 not found, 5 job failed or expired,',
    '6 other service error, 7 network, 8 local files (disk full, file too large, permission',
    'denied, read-only folder), 10 a sync of several tables where some did not sync, 11 one',
    'where none did, 130 interrupted (Ctrl-C, or the program reading the output exited), 143',
    'stopped by SIGTERM. DQ_DEBUG=1 shows stack traces.',
    'Run `dq help <command>` or `dq <command> --help` (or -h) for a command\'s options.',
    '',
  ].join('\n');
}

function commandHelp(command: CommandSpec): string {
  const lines = [`Usage: ${command.usage}`, '', command.summary, ''];
  if (command.options.length > 0) lines.push('Options:', ...formatOptions(command.options), '');
  if (!command.ownOptionsOnly) {
    const own = new Set(command.options.map((o) => o.name));
    const global = GLOBAL_OPTIONS.filter((o) => o.name !== 'help' && !own.has(o.name)).map((o) => `--${o.name}`);
    lines.push(`Global options (dq --help): ${global.join(', ')}`, '');
  }
  return lines.join('\n');
}

function formatOptions(options: readonly OptionSpec[]): string[] {
  const rows = options.map((o) => {
    const flag = `--${o.name}${o.valueName ? ` ${o.valueName}` : ''}`;
    const env = o.env ? ` [${o.env}]` : '';
    return [flag, `${o.description}${env}`];
  });
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`);
}

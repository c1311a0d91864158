import type { OptionSpec, ParsedArgs } from './argParser';
import type { CliIo } from './cliIo';

export interface CommandContext {
  args: ParsedArgs;
  io: CliIo;
}

export interface CommandSpec {
  name: string;
  usage: string;
  summary: string;
  /** options of this command only; the global ones are added unless `ownOptionsOnly` */
  options: readonly OptionSpec[];
  ownOptionsOnly?: boolean;
  run(ctx: CommandContext): Promise<number>;
}

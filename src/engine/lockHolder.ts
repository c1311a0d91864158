// Who holds a database file, as DuckDB's refusal to open it says. On Linux and macOS:
// `Conflicting lock is held in <program> (PID <n>)`, or `in PID <n>` when DuckDB cannot read
// the program's name, or nothing when it cannot even tell the process; then perhaps
// ` by user <name>` and more sentences. On Windows: `File is already open in`, with the
// program and its PID on the next line.

/** The process holding the file, as far as DuckDB could tell. */
export interface LockHolder {
  program?: string;
  pid?: number;
}

const HELD_IN = /(?:Conflicting lock is held in|File is already open in)[ \t]*(?:\r?\n[ \t]*)?/;
const PROGRAM_AND_PID = /^(.+?)\s+\(PID (\d+)\)/;
const PID_ONLY = /^PID (\d+)/;
/** where a program named without a PID ends: the next sentence, or the user that runs it */
const PROGRAM_END = /\.\s| by user |\.?$/;

/** The holder a DuckDB lock error names, or undefined when the message is not about a lock. */
export function lockHolder(message: string): LockHolder | undefined {
  const held = HELD_IN.exec(message);
  if (!held) return undefined;
  const line = message.slice(held.index + held[0].length).split(/\r?\n/)[0].trim();
  const both = PROGRAM_AND_PID.exec(line);
  if (both) return { program: both[1], pid: Number(both[2]) };
  const pid = PID_ONLY.exec(line);
  if (pid) return { pid: Number(pid[1]) };
  const program = line.slice(0, PROGRAM_END.exec(line)?.index ?? line.length).trim();
  return program ? { program } : {};
}

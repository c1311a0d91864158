// One JSON object per line on a stream, for a log system to read (`dq sync --log-format json`):
// each with its time (ISO, UTC) and level first. The values are exact (a message from the
// service reads back as it came), and the line holds no raw control character even where JSON
// would allow one (C1 controls, bidirectional marks are written as \u escapes), so a person who
// looks at the log in a terminal is not fooled either. While a stream has a JsonLog, every logger
// dq makes for that stream (stderrLogger) writes to it instead of writing text lines.

import { jsonWithVisibleControls } from '../core/visibleControls';
import type { OutStream } from './cliIo';

export type JsonLogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

export type JsonLogFields = Record<string, unknown> & { level: JsonLogLevel };

export class JsonLog {
  constructor(
    private readonly out: OutStream,
    private readonly now: () => number = Date.now,
    /** with a namespace, a message that starts `<namespace>.<table>: ` is logged with that table */
    private readonly namespace?: string,
  ) {}

  write(fields: JsonLogFields): void {
    const { level, ...rest } = fields;
    const entry: Record<string, unknown> = { time: new Date(this.now()).toISOString(), level };
    for (const [key, value] of Object.entries(rest)) if (value !== undefined) entry[key] = value;
    this.out.write(`${jsonWithVisibleControls(JSON.stringify(entry))}\n`);
  }

  /** A logger's line: `canvas.users: ...` becomes {table: "canvas.users", message: "..."} when the namespace is this log's. */
  message(level: JsonLogLevel, text: string): void {
    const prefix = this.namespace === undefined ? undefined : `${this.namespace}.`;
    const colon = text.indexOf(': ');
    if (prefix && text.startsWith(prefix) && colon > prefix.length && !/\s/.test(text.slice(0, colon))) {
      this.write({ level, table: text.slice(0, colon), message: text.slice(colon + 2) });
    } else {
      this.write({ level, message: text });
    }
  }
}

const logs = new WeakMap<OutStream, JsonLog>();

/** Makes `log` the way lines reach `out` until the returned function is called. */
export function useJsonLog(out: OutStream, log: JsonLog): () => void {
  logs.set(out, log);
  return () => {
    if (logs.get(out) === log) logs.delete(out);
  };
}

/** The JsonLog lines to `out` go through, if any. */
export function jsonLogOf(out: OutStream): JsonLog | undefined {
  return logs.get(out);
}

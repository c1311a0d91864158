// Every failure of the engine is an EngineError with a kind callers branch on and a message a
// person can act on. DuckDB's own messages are classified by their leading "<Kind> Error:"
// and by where the failed statement came from: the engine reading a result's files (a damaged
// or mismatched file: download again), or SQL the user wrote, a console statement or a
// preview's WHERE (correct it; DuckDB's pointers into the SQL are kept). A file's name in
// the message means the file is at fault whoever wrote the statement.

import type { EngineErrorKind } from './engineProtocol';

export class EngineError extends Error {
  readonly kind: EngineErrorKind;

  constructor(kind: EngineErrorKind, message: string) {
    super(message);
    this.name = 'EngineError';
    this.kind = kind;
  }

  describe(): string {
    return `${this.kind}: ${this.message}`;
  }
}

/** A query its caller stopped: a cancel, or an abort signal. */
export function cancelledError(): EngineError {
  return new EngineError('cancelled', 'The query was cancelled.');
}

export function isEngineError(err: unknown): err is EngineError {
  return err instanceof EngineError;
}

/**
 * Where a failed statement came from: `files` the engine's own reading of a result's files,
 * `sql` a statement the user wrote (the SQL console), `where` a preview's WHERE condition.
 */
export type StatementOrigin = 'files' | 'sql' | { where: string };

const NEXT_STEP: Record<EngineErrorKind, string> = {
  binding: '',
  corrupt: 'Download the job again; if it still fails, the file is not a complete result.',
  syntax: 'Correct the SQL and run it again.',
  outOfMemory: 'Filter the result or select fewer columns, or raise the setting dataQuery.preview.memoryLimitMb.',
  cancelled: '',
  crashed: 'Try again: the next action starts the engine afresh.',
  io: 'Check that the files still exist and can be read, and that the target folder is writable.',
  schema: 'The files do not match the table schema: download the job again with the current schema.',
};

/**
 * What a console view over damaged files raises when a statement reads it, after this mark
 * (DuckDB puts "Invalid Input Error: " before it): the damage, told as the engine found it.
 */
export const DAMAGED_VIEW_MARK = '[damaged result file] ';

const CORRECT_WHERE = 'Correct the WHERE condition and apply it again.';
const READ_ONLY = 'The database is attached read-only: a statement can read its tables but not change them.';

/** What DuckDB puts before the message of a statement it could not even split from the text. */
const EXTRACT_PREFIX = /^Failed to extract statements:\s*/;

/** The kind of a DuckDB error message from the engine's reading of result files. */
export function kindOfDuckDbMessage(message: string): EngineErrorKind {
  const kind = duckDbKind(message);
  if (kind === 'interrupt') return 'cancelled';
  if (kind === 'out of memory') return 'outOfMemory';
  if (kind === 'parser' || kind === 'binder' || kind === 'catalog' || kind === 'syntax') return 'syntax';
  if (kind === 'conversion' || /transform error|failed to cast|could not convert/i.test(message)) return 'schema';
  if (kind === 'io' && /no files found|cannot open|permission denied|no such file|could not (open|write|create)/i.test(message)) return 'io';
  if (kind === 'io' || kind === 'invalid input' || kind === 'not implemented') return 'corrupt';
  // a file the engine could not write or open, whatever DuckDB called the step (a commit's
  // "TransactionContext Error: Failed to commit: Cannot open file ...", a full disk)
  if (FILE_ACCESS.test(message)) return 'io';
  return 'syntax';
}

/** A message about a file that could not be opened, written or made. */
const FILE_ACCESS = /cannot open file|could not (open|write|create|read)|no space left|not a directory|permission denied|read-only file system/i;

/** DuckDB's first line as a sentence, before the advice that follows it. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function duckDbKind(message: string): string {
  return /^([A-Za-z ]+?) Error:/.exec(message)?.[1]?.toLowerCase() ?? '';
}

/** The message is about a file being read (DuckDB names it: `in file "…"`, `File "…" too small`, ...). */
function namesAFile(message: string): boolean {
  return /\bfile "/i.test(message);
}

/**
 * A failure of the user's own SQL rather than of the files it reads: any but an I/O error, a
 * message naming a file, or (in a WHERE) a cast of a source column the WHERE does not name,
 * which is the result's own reading of CSV text into the schema's types.
 */
function isUsersMistake(message: string, origin: StatementOrigin): boolean {
  if (origin === 'files') return false;
  const kind = duckDbKind(message);
  if (kind === 'io' || kind === 'interrupt' || kind === 'out of memory' || namesAFile(message)) return false;
  const cast = /when casting from source column (\S+)/.exec(message)?.[1];
  return typeof origin === 'string' || cast === undefined || origin.where.includes(cast);
}

/**
 * DuckDB's lines after the first that help correct the SQL: where the error is (`LINE n:` and
 * its caret) and the names it suggests. In a WHERE, a `LINE` quoting the engine's own query
 * around it is left out, and one quoting the WHERE itself is labelled `WHERE`.
 */
function sqlDetails(lines: string[], origin: StatementOrigin): string[] {
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const at = /^LINE \d+: /.exec(line);
    if (at) {
      const caret = /^\s*\^\s*$/.test(lines[i + 1] ?? '') ? lines[++i] : undefined;
      const quoted = line.slice(at[0].length);
      if (typeof origin === 'string') {
        kept.push(line, ...(caret ? [caret] : []));
      } else if (origin.where.split('\n').some((l) => l.trim() === quoted.trim() && quoted.trim() !== '')) {
        const label = 'WHERE ';
        kept.push(`${label}${quoted}`, ...(caret ? [caret.slice(at[0].length - label.length)] : []));
      }
    } else if (/^(Did you mean|\s*Candidate (bindings|functions)\b)/.test(line)) {
      kept.push(line);
      if (/Candidate functions/.test(line)) for (; /^\s+\S/.test(lines[i + 1] ?? ''); i++) kept.push(lines[i + 1]);
    }
  }
  return kept;
}

/** DuckDB refusing a file outside the folders the engine may read (engineHost.ts). */
const OUTSIDE_FOLDERS = /^Permission Error: Cannot access (?:file|directory) "(.*)" - file system operations are disabled by configuration/;

/** A file outside the engine's folders: named, with what to do (the user's statement: leave it out). */
function outsideFolders(file: string, origin: StatementOrigin): EngineError {
  if (origin === 'files') {
    return new EngineError('io', `The SQL engine may not read ${file}: it lies outside the folders of the files opened (a link to another folder?). Open the file from the folder it is in.`);
  }
  return new EngineError(
    'syntax',
    `${file} is out of reach here: the preview's WHERE and the SQL console read only the results open in them, and write no file. Leave the file out of the statement; to query a file, open it as a result.`,
  );
}

/** An EngineError for a DuckDB failure: its first line plus what to do next, and for the user's SQL the lines that point at the mistake. */
function fromDuckDbError(err: unknown, origin: StatementOrigin): EngineError {
  const raw = (err instanceof Error ? err.message : String(err)).replace(EXTRACT_PREFIX, '');
  if (kindOfDuckDbMessage(raw) === 'cancelled') return cancelledError();
  const damaged = raw.indexOf(DAMAGED_VIEW_MARK);
  if (damaged >= 0) return new EngineError('corrupt', raw.slice(damaged + DAMAGED_VIEW_MARK.length).split('\n')[0].trim());
  const [head, ...rest] = raw.split('\n');
  const first = head.trim();
  const outside = OUTSIDE_FOLDERS.exec(first);
  if (outside) return outsideFolders(outside[1], origin);
  if (!isUsersMistake(raw, origin)) {
    // the rest is SQL context or advice for DuckDB's own command line
    const kind = kindOfDuckDbMessage(raw);
    return new EngineError(kind, NEXT_STEP[kind] ? `${sentence(first)} ${NEXT_STEP[kind]}` : first);
  }
  const advice = /read-only mode/i.test(first) ? READ_ONLY : origin === 'sql' ? NEXT_STEP.syntax : CORRECT_WHERE;
  return new EngineError('syntax', [`${sentence(first)} ${advice}`, ...sqlDetails(rest, origin)].join('\n'));
}

/** zlib's failures (`Z_BUF_ERROR` for a file that ends early, `Z_DATA_ERROR`, ...). */
export function isZlibError(err: unknown): err is Error & { code: string } {
  const code = (err as { code?: unknown } | undefined)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('Z_');
}

/**
 * Any failure inside the engine as an EngineError: file-system errors are `io`, damaged
 * compressed data `corrupt`, the rest DuckDB's, judged by where the statement came from.
 */
export function toEngineError(err: unknown, origin: StatementOrigin = 'files'): EngineError {
  if (err instanceof EngineError) return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return new EngineError('io', `${(err as Error).message}. ${NEXT_STEP.io}`);
  }
  if (isZlibError(err)) return new EngineError('corrupt', `A compressed file is damaged (${err.message}). ${NEXT_STEP.corrupt}`);
  return fromDuckDbError(err, origin);
}

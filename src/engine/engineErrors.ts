// Every failure of the engine is an EngineError with a kind callers branch on and a message a
// person can act on. DuckDB's own messages are classified by their leading "<Kind> Error:".

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

export function isEngineError(err: unknown): err is EngineError {
  return err instanceof EngineError;
}

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

/** The kind of a DuckDB error message. */
export function kindOfDuckDbMessage(message: string): EngineErrorKind {
  const kind = /^([A-Za-z ]+?) Error:/.exec(message)?.[1]?.toLowerCase() ?? '';
  if (kind === 'interrupt') return 'cancelled';
  if (kind === 'out of memory') return 'outOfMemory';
  if (kind === 'parser' || kind === 'binder' || kind === 'catalog' || kind === 'syntax') return 'syntax';
  if (kind === 'conversion' || /transform error|failed to cast|could not convert/i.test(message)) return 'schema';
  if (kind === 'io' && /no files found|cannot open|permission denied|no such file|could not (open|write|create)/i.test(message)) return 'io';
  if (kind === 'io' || kind === 'invalid input' || kind === 'not implemented') return 'corrupt';
  return 'syntax';
}

/** An EngineError for a DuckDB failure: its first line (the rest is SQL context or advice for DuckDB's own CLI) plus what to do next. */
function fromDuckDbError(err: unknown): EngineError {
  const raw = err instanceof Error ? err.message : String(err);
  const kind = kindOfDuckDbMessage(raw);
  if (kind === 'cancelled') return new EngineError('cancelled', 'The query was cancelled.');
  const first = raw.split('\n')[0].trim();
  return new EngineError(kind, `${first} ${NEXT_STEP[kind]}`.trim());
}

/** Any failure inside the engine as an EngineError: file-system errors are `io`, the rest DuckDB's. */
export function toEngineError(err: unknown): EngineError {
  if (err instanceof EngineError) return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    return new EngineError('io', `${(err as Error).message}. ${NEXT_STEP.io}`);
  }
  return fromDuckDbError(err);
}

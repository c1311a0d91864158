// The statements of a SQL console, split at semicolons that are not inside quotes, quoted
// names or comments, with where each one starts and ends in the text.

export interface Statement {
  text: string;
  /** offset of its first character after blanks and comments */
  start: number;
  /** offset just past its last character (before the semicolon) */
  end: number;
}

export function splitStatements(sql: string): Statement[] {
  const statements: Statement[] = [];
  let from = 0;
  let i = 0;
  const push = (to: number): void => {
    const start = from + leadingNoise(sql.slice(from, to));
    const text = sql.slice(start, to).trimEnd();
    if (text !== '') statements.push({ text, start, end: start + text.length });
  };
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      i = skipQuoted(sql, i, c);
    } else if (c === '-' && sql[i + 1] === '-') {
      const eol = sql.indexOf('\n', i);
      i = eol < 0 ? sql.length : eol + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? sql.length : close + 2;
    } else if (c === ';') {
      push(i);
      from = i + 1;
      i += 1;
    } else {
      i += 1;
    }
  }
  push(sql.length);
  return statements;
}

/** The statement at (or ending just before) an offset: what Ctrl+Enter runs. */
export function statementAt(sql: string, offset: number): Statement | undefined {
  const statements = splitStatements(sql);
  return statements.find((s) => offset >= s.start && offset <= s.end + 1) ?? statements.filter((s) => s.end <= offset).pop() ?? statements[0];
}

/** Past a quoted text or name; a doubled quote stands for itself. */
function skipQuoted(sql: string, open: number, quote: string): number {
  let i = open + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] !== quote) return i + 1;
      i += 2;
    } else {
      i += 1;
    }
  }
  return sql.length;
}

/** The length of the blanks and comments a statement starts with. */
function leadingNoise(text: string): number {
  const noise = /^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?(\*\/|$))*/.exec(text);
  return noise?.[0].length ?? 0;
}

/** A statement as a grid's title: its first line, shortened (what its result is titled with, and its failure). */
export function statementTitle(text: string): string {
  const line = text.trim().split(/\r?\n/)[0] ?? '';
  return line.length > 40 ? `${line.slice(0, 40)}…` : line || 'SQL';
}

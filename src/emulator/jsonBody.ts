// A strict JSON parser that reports where it failed, and where each top-level member's
// value starts, as 1-based line, column and character positions. The gateway's validation
// errors point at the offending place with these.

import type { ErrorLocation } from '../core/contract';

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly location: ErrorLocation,
  ) {
    super(message);
  }
}

export interface ParsedJson {
  value: unknown;
  /** where the value of each top-level object member starts */
  memberLocations: Map<string, ErrorLocation>;
}

/** 1-based location of a character offset in `text`. */
export function locationOf(text: string, offset: number): ErrorLocation {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1, character: offset + 1 };
}

export function parseJsonWithLocations(text: string): ParsedJson {
  let pos = 0;
  const memberLocations = new Map<string, ErrorLocation>();

  const fail = (what: string): never => {
    const found = pos < text.length ? `'${text[pos]}'` : 'the end of the body';
    throw new JsonSyntaxError(`Invalid JSON: expected ${what} but found ${found}.`, locationOf(text, pos));
  };
  const ws = (): void => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos])) pos++;
  };
  const literal = (word: string, value: unknown): unknown => {
    if (text.startsWith(word, pos)) {
      pos += word.length;
      return value;
    }
    return fail('a value');
  };
  const str = (): string => {
    if (text[pos] !== '"') fail('a string');
    const start = pos;
    pos++;
    while (pos < text.length && text[pos] !== '"') {
      const ch = text.charCodeAt(pos);
      if (ch < 0x20) fail('a closing quote');
      if (text[pos] === '\\') {
        pos++;
        if (text[pos] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 1, pos + 5))) fail('four hex digits');
          pos += 4;
        } else if (!'"\\/bfnrt'.includes(text[pos] ?? 'x')) fail('an escape character');
      }
      pos++;
    }
    if (pos >= text.length) fail('a closing quote');
    pos++;
    return JSON.parse(text.slice(start, pos)) as string;
  };
  const num = (): number => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(pos, pos + 400));
    if (!m) return fail('a value');
    pos += m[0].length;
    return Number(m[0]);
  };
  const value = (depth: number, topLevelObject: boolean): unknown => {
    ws();
    if (depth > 64) fail('less nesting');
    const ch = text[pos];
    if (ch === '{') {
      pos++;
      const out: Record<string, unknown> = {};
      ws();
      if (text[pos] === '}') {
        pos++;
        return out;
      }
      for (;;) {
        ws();
        const key = str();
        ws();
        if (text[pos] !== ':') fail("':'");
        pos++;
        ws();
        if (topLevelObject) memberLocations.set(key, locationOf(text, pos));
        out[key] = value(depth + 1, false);
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return out;
        }
        fail("',' or '}'");
      }
    }
    if (ch === '[') {
      pos++;
      const out: unknown[] = [];
      ws();
      if (text[pos] === ']') {
        pos++;
        return out;
      }
      for (;;) {
        out.push(value(depth + 1, false));
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return out;
        }
        fail("',' or ']'");
      }
    }
    if (ch === '"') return str();
    if (ch === 't') return literal('true', true);
    if (ch === 'f') return literal('false', false);
    if (ch === 'n') return literal('null', null);
    return num();
  };

  const result = value(0, true);
  ws();
  if (pos < text.length) fail('the end of the body');
  return { value: result, memberLocations };
}

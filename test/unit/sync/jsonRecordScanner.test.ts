// The JSON record reader of the PostgreSQL typed loads and the binary values it writes, against
// independent oracles: JSON.parse decides what is JSON (the reader must refuse every line it
// refuses, and take the lines it takes but for the few cases it hands to the jsonb load), the
// values found at the paths are the ones JSON.parse finds there, and the binary bigint and
// timestamptz fields are what BigInt and Date make of the same text.

import * as assert from 'node:assert/strict';
import { JsonRecordScanner, NeedsGeneralLoad, NUMBER, OBJECT, STRING, MISSING } from '../../../src/sync/jsonRecordScanner';
import { putBigint, putDate, putTimestamp } from '../../../src/sync/postgresBinary';

/** A small deterministic random source, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const PATHS = [['key', 'id'], ['value', 'name'], ['value', 'n'], ['value', 'inner', 'x'], ['meta', 'action']];

function scan(line: string, paths = PATHS): JsonRecordScanner {
  const scanner = new JsonRecordScanner(paths);
  const bytes = Buffer.from(line, 'utf8');
  scanner.scan(bytes, 0, bytes.length, 1);
  return scanner;
}

function refusal(line: string): NeedsGeneralLoad {
  try {
    scan(line);
  } catch (err) {
    assert.ok(err instanceof NeedsGeneralLoad, `${line}: ${String(err)}`);
    return err;
  }
  return assert.fail(`the reader took ${JSON.stringify(line)}`);
}

/** A random JSON value of a few levels, in the forms the service writes and some it might. */
function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 7));
  switch (pick) {
    case 0:
      return ['', 'plain', 'tab\there', 'quote " and \\ back', 'é ✓ 😀', '\u0001\u001f', '/'][Math.floor(next() * 7)];
    case 1:
      return [0, -1, 17, 2.5, -1e-7, 1.7976931348623157e308, 12345678901234567][Math.floor(next() * 7)];
    case 2:
      return next() < 0.5;
    case 3:
      return null;
    case 4:
      return Math.floor(next() * 1e6);
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (const name of ['name', 'n', 'inner', 'x', 'other']) if (next() < 0.5) o[name] = value(next, depth + 1);
      return o;
    }
  }
}

function record(next: () => number): Record<string, unknown> {
  return { meta: { action: next() < 0.8 ? 'U' : 'D', ts: '2026-11-19T08:00:00Z' }, key: { id: Math.floor(next() * 1e9) }, value: value(next, 0) };
}

/** What `->` finds at a path: undefined under anything that is not an object. */
function at(doc: unknown, path: readonly string[]): unknown {
  let here = doc;
  for (const part of path) {
    if (here === null || typeof here !== 'object' || Array.isArray(here)) return undefined;
    here = (here as Record<string, unknown>)[part];
  }
  return here;
}

/** 0001-01-01T00:00:00Z (Date.UTC reads the years 0 to 99 as 1900 to 1999) */
const FIRST_DAY = Date.parse('0001-01-01T00:00:00Z');

const STRUCTURAL = ['{', '}', '[', ']', ',', ':', '"', '\\', ' ', 'e', '-', '.', '0', 'n', 't', 'u', '\t', '\u0002'];

describe('sync: the JSON record reader of the PostgreSQL typed loads', () => {
  it('finds the value at each path that JSON.parse finds there, in 3000 random records', () => {
    const next = random(7);
    for (let n = 0; n < 3000; n++) {
      const doc = record(next);
      const line = JSON.stringify(doc);
      const bytes = Buffer.from(line, 'utf8');
      const scanner = new JsonRecordScanner(PATHS);
      assert.equal(scanner.scan(bytes, 0, bytes.length, n + 1), true);
      PATHS.forEach((path, slot) => {
        const expected = at(doc, path);
        if (expected === undefined) {
          assert.equal(scanner.kind[slot], MISSING, `${line} at ${path.join('.')}`);
          return;
        }
        const text = bytes.toString('utf8', scanner.start[slot], scanner.end[slot]);
        assert.deepEqual(JSON.parse(text), expected, `${line} at ${path.join('.')}`);
        if (typeof expected === 'string') assert.equal(scanner.kind[slot], STRING);
        if (typeof expected === 'number') assert.equal(scanner.kind[slot], NUMBER);
      });
    }
  });

  it('hands on every line JSON.parse refuses, and takes those it takes but for what it leaves to the jsonb load, in 20000 mutations', () => {
    const next = random(11);
    let refused = 0;
    for (let n = 0; n < 20000; n++) {
      const line = JSON.stringify(record(next));
      const where = Math.floor(next() * line.length);
      const change = Math.floor(next() * 3);
      const byte = STRUCTURAL[Math.floor(next() * STRUCTURAL.length)];
      const mutated = change === 0 ? line.slice(0, where) + line.slice(where + 1) : change === 1 ? line.slice(0, where) + byte + line.slice(where) : line.slice(0, where) + byte + line.slice(where + 1);
      let valid = true;
      let parsed: unknown;
      try {
        parsed = JSON.parse(mutated);
      } catch {
        valid = false;
      }
      let err: unknown;
      try {
        scan(mutated);
      } catch (e) {
        err = e;
      }
      if (!valid) {
        // handed to the jsonb load, which refuses it (the reader may stop at a reason of its own first)
        assert.ok(err instanceof NeedsGeneralLoad, `took ${JSON.stringify(mutated)}`);
        refused++;
      } else if (err !== undefined) {
        assert.ok(err instanceof NeedsGeneralLoad, String(err));
        // JSON that is not a record, or the cases left to the jsonb load
        const record = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
        assert.ok(!record || /twice|with escapes|exponent of 1000|1000 digits/.test(err.why), `${err.why}: ${JSON.stringify(mutated)}`);
      }
    }
    assert.ok(refused > 5000, `${refused} mutations were not JSON`);
  });

  it('refuses control characters, bad escapes and bad UTF-8 inside strings, and anything after the record', () => {
    for (const line of ['{"a":"x\u0001"}', '{"a":"\\x"}', '{"a":"\\u12G4"}', '{"a":1} x', '{"a":01}', '{"a":1.}', '{"a":-}', '{"a":.5}', '{"a":tru}', '{"a":[1,]}', '{"a":{"b":1,}}', '{"a" 1}', '[1]']) {
      assert.match(refusal(line).why, /is not valid JSON/, line);
    }
    for (const bytes of [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])]) {
      const scanner = new JsonRecordScanner(PATHS);
      assert.throws(() => scanner.scan(bytes, 0, bytes.length, 1), /not valid UTF-8/);
    }
  });

  it('hands to the jsonb load what it does not settle as jsonb would: a member named twice, an escaped name, deep nesting, huge numbers', () => {
    assert.match(refusal('{"value":{"name":"a","name":"b"}}').why, /names the member "name" twice/);
    assert.match(refusal('{"value":{"n\\u0061me":"a"}}').why, /member name written with escapes/);
    assert.match(refusal(`{"value":{"other":${'['.repeat(600)}${']'.repeat(600)}}}`).why, /nests deeper than 512 levels/);
    assert.match(refusal(`{"value":{"n":1e1000}}`).why, /exponent of 1000 or more/);
    assert.match(refusal(`{"value":{"n":${'1'.repeat(1001)}}}`).why, /more than 1000 digits/);
    // a member named twice off the paths is jsonb's to settle, and the columns do not read it
    assert.equal(scan('{"value":{"other":1,"other":2,"inner":{"x":"y"}}}').kind[3], STRING);
    assert.equal(scan('{"value":{"inner":"<truncated>"}}').kind[3], MISSING);
    assert.equal(scan('{"value":{"inner":{"x":{"deep":1}}}}').kind[3], OBJECT);
  });

  it('writes 18-digit bigints as BigInt does, and hands longer ones on', () => {
    const next = random(3);
    const out = Buffer.alloc(12);
    for (let n = 0; n < 5000; n++) {
      const digits = 1 + Math.floor(next() * 18);
      let text = String(1 + Math.floor(next() * 9));
      while (text.length < digits) text += String(Math.floor(next() * 10));
      if (next() < 0.5) text = `-${text}`;
      const end = putBigint(out, 0, Buffer.from(text), 0, text.length);
      assert.equal(end, 12);
      assert.equal(out.readUInt32BE(0), 8);
      assert.equal(out.readBigInt64BE(4), BigInt(text), text);
    }
    for (const text of ['0', '-0']) {
      putBigint(out, 0, Buffer.from(text), 0, text.length);
      assert.equal(out.readBigInt64BE(4), 0n);
    }
    assert.equal(putBigint(out, 0, Buffer.from('9223372036854775807'), 0, 19), -1);
  });

  it('writes timestamptz as microseconds since 2000 as Date reads the same text, and dates as days', () => {
    const next = random(5);
    const out = Buffer.alloc(12);
    const epoch2000 = BigInt(Date.UTC(2000, 0, 1)) * 1000n;
    const pad = (n: number, w: number): string => String(n).padStart(w, '0');
    for (let n = 0; n < 5000; n++) {
      const ms = Math.floor(next() * (Date.UTC(9999, 11, 30) - FIRST_DAY)) + FIRST_DAY;
      const d = new Date(ms);
      const fraction = Math.floor(next() * 1e6);
      const digits = Math.floor(next() * 7);
      const fractionText = digits === 0 ? '' : `.${pad(fraction, 6).slice(0, digits)}`;
      const offsetMinutes = next() < 0.5 ? 0 : Math.floor(next() * 28 * 60) - 14 * 60;
      const zone = offsetMinutes === 0 && next() < 0.5 ? 'Z' : `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offsetMinutes) / 60), 2)}:${pad(Math.abs(offsetMinutes) % 60, 2)}`;
      const text = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}${fractionText}${zone}`;
      assert.equal(putTimestamp(out, 0, Buffer.from(text), 0, text.length), 12, text);
      const wholeSeconds = Date.parse(`${text.slice(0, 19)}${zone}`);
      const micros = digits === 0 ? 0n : BigInt(pad(fraction, 6).slice(0, digits).padEnd(6, '0'));
      assert.equal(out.readBigInt64BE(4), BigInt(wholeSeconds) * 1000n - epoch2000 + micros, text);
      const day = text.slice(0, 10);
      assert.equal(putDate(out, 0, Buffer.from(day), 0, 10), 8);
      assert.equal(out.readInt32BE(4), (Date.parse(`${day}T00:00:00Z`) - Date.UTC(2000, 0, 1)) / 86_400_000, day);
    }
    for (const text of ['2026-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:60Z', '2026-01-01 00:00:00Z', '2026-01-01T00:00:00', '2026-01-01T00:00:00.1234567Z', '2026-01-01T00:00:00z', '0000-01-01T00:00:00Z']) {
      assert.equal(putTimestamp(out, 0, Buffer.from(text), 0, text.length), -1, text);
    }
  });
});

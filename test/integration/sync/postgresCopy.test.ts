// The line filter in front of COPY (and of DuckDB's copy of a file it refuses): JSON lines
// pass byte for byte, except the `\u0000` escape PostgreSQL cannot store and a lone surrogate
// escape neither database reads, which are dropped wherever the chunks happen to split them.

import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { JsonEscapeFilter } from '../../../src/sync/jsonEscapes';

async function filtered(text: string, chunkSize: number): Promise<string> {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks).pipe(new JsonEscapeFilter())) out.push(chunk as Buffer);
  return Buffer.concat(out).toString('utf8');
}

describe('sync: PostgreSQL COPY line filter', () => {
  const lines = [
    JSON.stringify({ key: { id: 1 }, value: { name: 'a\u0000b', note: 'é ✓ \\u0000 stays' } }),
    JSON.stringify({ key: { id: 2 }, value: { name: 'plain', bs: '\\\u0000' } }),
    '{"key":{"id":3}}',
  ];
  const expected = [
    JSON.stringify({ key: { id: 1 }, value: { name: 'ab', note: 'é ✓ \\u0000 stays' } }),
    JSON.stringify({ key: { id: 2 }, value: { name: 'plain', bs: '\\' } }),
    '{"key":{"id":3}}',
  ];

  for (const size of [1, 2, 3, 7, 64, 100_000]) {
    it(`drops only real \\u0000 escapes, in chunks of ${size} bytes`, async () => {
      assert.equal(await filtered(lines.join('\n') + '\n', size), expected.join('\n') + '\n');
      assert.equal(await filtered(lines.join('\n'), size), expected.join('\n'), 'without a final newline');
    });
  }

  for (const size of [1, 3, 5, 64]) {
    it(`drops lone surrogate escapes and keeps pairs, in chunks of ${size} bytes`, async () => {
      const input = [
        '{"a":"cut \\ud83d","b":"\\udc00x","c":"\\uD83D\\uDE00","d":"\\ud83d\\ud83d\\ude00"}',
        '{"e":"\\\\ud83d stays text","f":"\\\\\\ud83d"}',
      ].join('\n');
      const expected = ['{"a":"cut ","b":"x","c":"\\uD83D\\uDE00","d":"\\ud83d\\ude00"}', '{"e":"\\\\ud83d stays text","f":"\\\\"}'].join('\n');
      assert.equal(await filtered(input, size), expected);
      for (const l of expected.split('\n')) JSON.parse(l);
    });
  }

  it('passes lines without the escape through unchanged', async () => {
    const text = Array.from({ length: 500 }, (_, i) => JSON.stringify({ key: { id: i }, value: { s: 'x'.repeat(i) } })).join('\n') + '\n';
    assert.equal(await filtered(text, 1000), text);
  });
});

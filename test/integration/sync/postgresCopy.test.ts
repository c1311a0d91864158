// The line filter in front of COPY: JSON lines pass byte for byte, except the `\u0000`
// escape PostgreSQL cannot store, which is dropped wherever the chunks happen to split it.

import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { NulEscapeFilter } from '../../../src/sync/postgresCopy';

async function filtered(text: string, chunkSize: number): Promise<string> {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks).pipe(new NulEscapeFilter())) out.push(chunk as Buffer);
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

  it('passes lines without the escape through unchanged', async () => {
    const text = Array.from({ length: 500 }, (_, i) => JSON.stringify({ key: { id: i }, value: { s: 'x'.repeat(i) } })).join('\n') + '\n';
    assert.equal(await filtered(text, 1000), text);
  });
});

// The line filter in front of COPY (and of DuckDB's copy of a file it refuses): JSON lines
// pass byte for byte, except the `\u0000` escape PostgreSQL cannot store and a lone surrogate
// escape neither database reads, which are dropped wherever the chunks happen to split them.
// A line that is no JSON record (`\.` would end COPY early) or is longer than the limit fails,
// naming the table, the file and the line; a long line costs work in proportion to its length.

import * as assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { DqError } from '../../../src/client/errors';
import { JsonEscapeFilter, MAX_RECORD_BYTES, type JsonLinesSource } from '../../../src/sync/jsonEscapes';

const SOURCE: JsonLinesSource = { table: 'canvas.users', file: '/work/part-00007.jsonl.gz' };

async function filtered(text: string | Buffer, chunkSize: number, source: JsonLinesSource = SOURCE): Promise<string> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  const out: Buffer[] = [];
  for await (const chunk of Readable.from(chunks).pipe(new JsonEscapeFilter(source))) out.push(chunk as Buffer);
  return Buffer.concat(out).toString('utf8');
}

async function refusal(text: string | Buffer, chunkSize: number, source?: JsonLinesSource): Promise<DqError> {
  try {
    await filtered(text, chunkSize, source);
  } catch (err) {
    assert.ok(err instanceof DqError, String(err));
    return err;
  }
  return assert.fail('the filter passed the lines');
}

/**
 * What `work` returns, and the bytes Buffer.concat produced meanwhile: the work of joining a
 * line from its chunks, which the quadratic way repeats with every chunk of a long line.
 */
async function joining<T>(work: () => Promise<T>): Promise<[T, number]> {
  const concat = Buffer.concat;
  let joined = 0;
  Buffer.concat = ((list: readonly Uint8Array[], total?: number) => {
    const out = concat(list, total);
    joined += out.length;
    return out;
  }) as typeof Buffer.concat;
  try {
    return [await work(), joined];
  } finally {
    Buffer.concat = concat;
  }
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

  for (const size of [1, 4, 4096]) {
    it(`refuses a line that is no JSON record, such as \\. (which ends COPY early), naming table, file and line, in chunks of ${size} bytes`, async () => {
      const records = ['{"key":{"id":1}}', '{"key":{"id":2}}', '{"key":{"id":3}}'];
      for (const [bad, why] of [
        ['\\.', /does not start with "\{"/],
        ['\\.\r', /does not start with "\{"/],
        ['[1]', /does not start with "\{"/],
        ['{"key":{"id":9}}\r\\.', /carriage return/],
      ] as const) {
        const err = await refusal([records[0], bad, ...records.slice(1)].join('\n') + '\n', size);
        assert.equal(err.kind, 'invalidResponse');
        assert.match(err.message, /^Line 2 of part-00007\.jsonl\.gz, a result file of canvas\.users/);
        assert.match(err.message, why);
        assert.match(err.hint ?? '', /keeps its last complete sync/);
      }
      // CRLF line ends, blank lines and leading spaces are fine
      const fine = `${records[0]}\r\n\r\n\n  ${records[1]}\r\n${records[2]}`;
      assert.equal(await filtered(fine, size), fine);
    });
  }

  it('refuses a line past the limit as soon as it is read past it, naming table, file and line', async () => {
    const err = await refusal(`{"key":{"id":1}}\n{"key":{"id":2},"value":{"s":"${'x'.repeat(200)}"}}\n`, 7, { ...SOURCE, maxLineBytes: 100 });
    assert.equal(err.kind, 'invalidResponse');
    assert.equal(err.message, 'The record on line 2 of part-00007.jsonl.gz, a result file of canvas.users, is longer than 100 bytes, the most a sync loads as one record.');
    assert.match(err.hint ?? '', /keeps its last complete sync/);
    // a line of exactly the limit passes, in one chunk or many
    const exact = `{"s":"${'y'.repeat(100 - 8)}"}`;
    assert.equal(exact.length, 100);
    for (const size of [3, 1000]) assert.equal(await filtered(`${exact}\n${exact}`, size, { ...SOURCE, maxLineBytes: 100 }), `${exact}\n${exact}`);
  });

  it('refuses a record longer than 16 MiB (the limit DuckDB has too), with work in proportion to its length', async () => {
    assert.equal(MAX_RECORD_BYTES, 16 * 1024 * 1024);
    const big = Buffer.alloc(MAX_RECORD_BYTES + 1024 * 1024, 'x');
    big.write('{"key":{"id":1},"value":{"s":"');
    const [err, joined] = await joining(() => refusal(big, 16 * 1024));
    assert.match(err.message, /^The record on line 1 of part-00007\.jsonl\.gz, a result file of canvas\.users, is longer than 16 MiB/);
    assert.ok(joined <= 2 * big.length, `${joined} bytes joined for a line of ${big.length}`);

    // a long line within the limit passes whole, joined once
    const line = Buffer.concat([Buffer.from('{"s":"'), Buffer.alloc(8 * 1024 * 1024, 'z'), Buffer.from('"}\n{"s":"short"}\n')]);
    const [out, joinedAll] = await joining(() => filtered(line, 16 * 1024));
    assert.equal(out.length, line.length);
    // the test's own join of the output counts once more
    assert.ok(joinedAll <= 3 * line.length, `${joinedAll} bytes joined for ${line.length}`);
  });
});

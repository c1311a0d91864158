import * as assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { sniffFormat } from '../../../src/core/formatSniffer';

describe('result format sniffing', () => {
  const samples: Array<[string, Buffer]> = [
    ['jsonl', Buffer.from('{"meta":{"action":"U"},"key":{"id":1}}\n{"meta":{"action":"D"},"key":{"id":2}}\n')],
    ['csv', Buffer.from('key.id,value.name,meta.action\n1,"Smith, Ann",U\n')],
    ['tsv', Buffer.from('key.id\tvalue.name\tmeta.action\n1\tAnn, Smith\tU\n')],
    ['parquet', Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64, 7)])],
  ];

  for (const [format, plain] of samples) {
    it(`recognises ${format}, plain and gzip-compressed, from the first bytes only`, () => {
      assert.equal(sniffFormat(plain), format);
      const gz = gzipSync(Buffer.concat([plain, Buffer.alloc(200_000, 0x20)]));
      assert.equal(sniffFormat(gz.subarray(0, Math.min(gz.length, 512))), format);
    });
  }

  it('gives up on bytes that are none of the formats', () => {
    assert.equal(sniffFormat(Buffer.from('hello')), undefined);
    assert.equal(sniffFormat(Buffer.from([0x1f, 0x8b, 0x00, 0x01])), undefined);
  });
});

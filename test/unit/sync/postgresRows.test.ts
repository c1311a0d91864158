// The typed rows the PostgreSQL target COPYs, read back as PostgreSQL reads COPY's binary
// form: a row's field count, then each field's length (-1 for NULL) and bytes. Rows that take
// many more bytes than their records (a NULL for each of a hundred columns) outgrow the
// encoder's buffer mid-call and come out whole and in order all the same.

import * as assert from 'node:assert/strict';
import { TypedRowEncoder } from '../../../src/sync/postgresRows';
import type { TargetColumn } from '../../../src/sync/syncTarget';

interface Row {
  fields: (Buffer | null)[];
}

/** Reads COPY binary rows (without header and trailer). */
function readRows(bytes: Buffer): Row[] {
  const rows: Row[] = [];
  let at = 0;
  while (at < bytes.length) {
    const count = bytes.readInt16BE(at);
    at += 2;
    const fields: (Buffer | null)[] = [];
    for (let f = 0; f < count; f++) {
      const length = bytes.readInt32BE(at);
      at += 4;
      if (length === -1) {
        fields.push(null);
        continue;
      }
      fields.push(bytes.subarray(at, at + length));
      at += length;
    }
    rows.push({ fields });
  }
  assert.equal(at, bytes.length, 'the rows end where the bytes do');
  return rows;
}

describe('sync: typed COPY rows of the PostgreSQL target', () => {
  it('writes rows far larger than their records whole and in order, however often the buffer grows', () => {
    const columns: TargetColumn[] = [{ name: 'id', path: ['key', 'id'], type: 'bigint', key: true }];
    for (let c = 0; c < 100; c++) columns.push({ name: `c${c}`, path: ['value', `c${c}`], type: 'text', key: false });
    const encoder = new TypedRowEncoder(columns, { form: 'binary', withOrder: false, refuseDeletes: false });
    let next = 1;
    for (let call = 0; call < 12; call++) {
      const lines: string[] = [];
      while (lines.join('\n').length < 64 * 1024) lines.push(`{"key":{"id":${next++}}${call % 3 === 0 ? ',"value":{"c99":"last"}' : ''}}`);
      const rows = readRows(Buffer.from(encoder.encodeLines(Buffer.from(lines.join('\n') + '\n'), 0, lines.join('\n').length + 1)));
      assert.equal(rows.length, lines.length);
      for (const [i, row] of rows.entries()) {
        assert.equal(row.fields.length, 101);
        assert.equal(row.fields[0]?.readBigInt64BE(0), BigInt(next - lines.length + i));
        assert.deepEqual(row.fields.slice(1, 100), Array(99).fill(null));
        assert.equal(row.fields[100]?.toString(), call % 3 === 0 ? 'last' : undefined);
      }
    }
    assert.equal(encoder.records, next - 1);
  });
});

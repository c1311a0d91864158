// A schema whose property names hold dots (a value column named `x.y`, beside an object `x`
// with a member `z`): the preview reads each value where the schema's parent chain puts it,
// as the sync does, rather than taking `x.y` for `y` inside `x`.

import * as assert from 'node:assert/strict';
import { craftedResult, keyedSchema } from './sampleResults';

const ROWS = 3000;

const schema = keyedSchema({
  'x.y': { type: 'string' },
  x: { type: 'object', properties: { z: { type: 'string' }, 'p.q': { type: 'integer', format: 'int64' } } },
});

function record(id: number): string {
  return JSON.stringify({ meta: { action: 'U', ts: '2026-01-01T00:00:00Z' }, key: { id }, value: { 'x.y': `dotted ${id}`, x: { z: `nested ${id}`, 'p.q': id * 2 } } });
}

describe('engine: property names with dots in them', function () {
  this.timeout(60_000);
  const result = craftedResult('dq-dotted-', () => Array.from({ length: ROWS }, (_, i) => record(i)));

  it('previews, filters and pages a value column named x.y beside the members of an object x', async () => {
    const opened = await result.engine.open({ paths: [result.file], schema });
    const names = opened.columns.map((c) => c.name);
    assert.deepEqual(names, ['key.id', 'value.x.y', 'value.x.z', 'value.x.p.q', 'meta.action', 'meta.ts']);
    const first = await result.engine.page(opened.handle, {}, 0, 2);
    assert.deepEqual(
      first.rows.map((r) => r.slice(0, 4)),
      [
        ['0', 'dotted 0', 'nested 0', '0'],
        ['1', 'dotted 1', 'nested 1', '2'],
      ],
    );
    const filtered = await result.engine.page(opened.handle, { where: `"value.x.y" = 'dotted 7'` }, 0, 5);
    assert.deepEqual(filtered.rows.map((r) => r.slice(0, 4)), [['7', 'dotted 7', 'nested 7', '14']]);
    // a far window of the file, read as its lines and parsed alone
    assert.equal(await result.engine.count(opened.handle, {}), ROWS);
    const far = await result.engine.page(opened.handle, {}, 2500, 1);
    assert.deepEqual(far.rows.map((r) => r.slice(0, 4)), [['2500', 'dotted 2500', 'nested 2500', '5000']]);
    await result.engine.closeHandle(opened.handle);
  });
});

// The filter of keys a snapshot loaded straight into its table asks of each record: a key it
// keeps (one in eight) is seen when it comes again, distinct keys are almost never taken for
// seen (a false "seen" only costs a slower load), and its memory stays fixed: past its capacity
// it answers no.

import * as assert from 'node:assert/strict';
import { SEEN_KEYS_CAPACITY, SeenKeys } from '../../../src/sync/seenKeys';

function ask(filter: SeenKeys, ...parts: string[]): boolean {
  const b = Buffer.from(parts.join(''), 'utf8');
  const from: number[] = [];
  const to: number[] = [];
  let at = 0;
  for (const part of parts) {
    from.push(at);
    at += Buffer.byteLength(part);
    to.push(at);
  }
  return filter.seenBefore(b, from, to, parts.length);
}

const uuid = (i: number): string => `"${(Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0')}-4afb-867b-23e192b4639e"`;

describe('sync: the filter of keys seen in a snapshot', () => {
  it('takes 500,000 distinct keys for new, uuids and numbers alike', () => {
    for (const key of [uuid, (i: number) => String(10_000_000_000_000 + i * 7)]) {
      const filter = new SeenKeys();
      let falseSeen = 0;
      for (let i = 0; i < 500_000; i++) if (ask(filter, key(i))) falseSeen++;
      assert.equal(falseSeen, 0);
    }
  });

  it('sees the keys it keeps, about one in eight, each time they come again', () => {
    const filter = new SeenKeys();
    for (let i = 0; i < 2000; i++) assert.equal(ask(filter, uuid(i)), false);
    const again = Array.from({ length: 2000 }, (_, i) => ask(filter, uuid(i)));
    const seen = again.filter(Boolean).length;
    assert.ok(seen > 150 && seen < 350, `${seen} of 2000 repeated keys seen`);
    // the same ones, the third time
    assert.deepEqual(Array.from({ length: 2000 }, (_, i) => ask(filter, uuid(i))), again);
  });

  it('tells the parts of a composite key apart', () => {
    const filter = new SeenKeys();
    for (let i = 0; i < 20_000; i++) ask(filter, `a${i}`, 'bc');
    let crossed = 0;
    for (let i = 0; i < 20_000; i++) if (ask(filter, `a${i}b`, 'c')) crossed++;
    assert.equal(crossed, 0);
  });

  it('stops answering past its capacity, so its memory stays fixed', () => {
    const filter = new SeenKeys();
    // about eight records a kept key: enough for the filter to fill up
    for (let i = 0; i < SEEN_KEYS_CAPACITY * 10; i++) ask(filter, String(i));
    assert.ok(Array.from({ length: 2000 }, (_, i) => ask(filter, String(i))).every((seen) => !seen), 'full: it no longer answers');
  });
});

// The filter of keys a snapshot loaded straight into its table asks of each record: every key
// given twice is seen the second time, distinct keys are almost never taken for seen (a false
// "seen" only costs a slower load), and its memory stays fixed: past its capacity it answers no.

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

describe('sync: the filter of keys seen in a snapshot', () => {
  it('sees every key given before, takes distinct keys for new, and tells composite keys apart by their parts', () => {
    const filter = new SeenKeys();
    let falseSeen = 0;
    for (let i = 0; i < SEEN_KEYS_CAPACITY - 10; i++) if (ask(filter, `"${i.toString(16).padStart(8, '0')}-4afb-867b-23e192b4639e"`)) falseSeen++;
    assert.equal(falseSeen, 0, `${falseSeen} distinct keys taken for seen`);
    for (const i of [0, 1, 77_777, SEEN_KEYS_CAPACITY - 11]) assert.equal(ask(filter, `"${i.toString(16).padStart(8, '0')}-4afb-867b-23e192b4639e"`), true, `key ${i}`);
    const composite = new SeenKeys();
    assert.equal(ask(composite, '12', '3'), false);
    assert.equal(ask(composite, '1', '23'), false);
    assert.equal(ask(composite, '12', '3'), true);
  });

  it('stops answering past its capacity, so its memory stays fixed', () => {
    const filter = new SeenKeys();
    for (let i = 0; i < SEEN_KEYS_CAPACITY; i++) ask(filter, String(i));
    assert.equal(ask(filter, '1'), false, 'full: it no longer answers');
  });
});

import * as assert from 'node:assert/strict';
import { SerialQueue } from '../../../src/core/serialQueue';

describe('SerialQueue', () => {
  it('runs tasks one at a time in the order asked, each starting once the one before has settled', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    let release!: () => void;
    const first = queue.run(async () => {
      events.push('first starts');
      await new Promise<void>((resolve) => (release = resolve));
      events.push('first ends');
      return 1;
    });
    const second = queue.run(async () => {
      events.push('second starts');
      return 2;
    });
    await Promise.resolve();
    await Promise.resolve();
    assert.deepEqual(events, ['first starts'], 'the second waits for the first');
    release();
    assert.deepEqual(await Promise.all([first, second]), [1, 2]);
    assert.deepEqual(events, ['first starts', 'first ends', 'second starts']);
  });

  it('gives a failure to its own caller only, and goes on with the next task', async () => {
    const queue = new SerialQueue();
    const failed = queue.run(() => Promise.reject(new Error('broken')));
    const next = queue.run(() => Promise.resolve('next ran'));
    await assert.rejects(failed, /broken/);
    assert.equal(await next, 'next ran');
    await queue.idle();
  });
});

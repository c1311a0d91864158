// The Jobs view's times stay current: every second while a job runs, every half minute while
// only finished jobs are listed and the view is shown (their ages), not at all otherwise.

import * as assert from 'node:assert/strict';
import { nullLogger } from '../../../src/core/logger';
import { JobStore } from '../../../src/jobs/jobStore';
import { AGES_TICK_MS, JobsTicker } from '../../../src/jobs/jobsTicker';
import { JobsModel } from '../../../src/jobs/jobsModel';
import { jobDescription } from '../../../src/jobs/statusTexts';
import { FakeClock, flushMicrotasks } from '../../support/fakeClock';
import { MemoryStorage } from './memoryStorage';

describe('JobsTicker: the Jobs view\'s times', () => {
  let ticker: JobsTicker | undefined;

  afterEach(() => ticker?.dispose());

  function setUp(): { clock: FakeClock; model: JobsModel; shown: { value: boolean }; drawn: string[] } {
    const clock = new FakeClock();
    const model = new JobsModel(new JobStore(new MemoryStorage()), clock, nullLogger);
    const shown = { value: true };
    const drawn: string[] = [];
    ticker = new JobsTicker(model, clock, () => drawn.push(model.list().map((e) => jobDescription(e, clock.now())).join('\n')), () => shown.value);
    return { clock, model, shown, drawn };
  }

  it('moves a finished job\'s age on while the view is shown, and stops while it is hidden', async () => {
    const { clock, model, shown, drawn } = setUp();
    const entry = model.add({ connection: 'c', namespace: 'canvas', table: 'users', request: { format: 'csv' } }, false);
    model.update(entry.key, { state: 'complete' });
    await clock.advance(5 * 60_000);
    assert.match(drawn.at(-1) ?? '', /complete · 5 min ago/, 'five minutes later the view says so');

    shown.value = false;
    ticker?.update();
    const before = drawn.length;
    await clock.advance(10 * 60_000 - AGES_TICK_MS);
    assert.equal(drawn.length, before, 'no redraws for a hidden view');

    shown.value = true;
    ticker?.update();
    await clock.advance(AGES_TICK_MS);
    assert.match(drawn.at(-1) ?? '', /complete · 15 min ago/);
  });

  it('ticks every second while a job runs, and not at all with an empty list', async () => {
    const { clock, model, drawn } = setUp();
    await clock.advance(5 * 60_000);
    assert.equal(drawn.length, 0, 'nothing listed, nothing to redraw');
    model.add({ connection: 'c', namespace: 'canvas', table: 'users', request: { format: 'csv' } }, false);
    await flushMicrotasks();
    await clock.advance(3_000);
    assert.equal(drawn.length, 3);
  });
});

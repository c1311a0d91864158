import * as assert from 'node:assert/strict';
import { SincePointStore } from '../../../src/jobs/sincePoints';
import { MemoryStorage } from './memoryStorage';

describe('SincePointStore', () => {
  it('remembers the last point per connection and table across a reload', async () => {
    const storage = new MemoryStorage();
    const points = new SincePointStore(storage);
    await points.record('Prod', 'canvas', 'users', '2026-11-20T08:00:00Z');
    await points.record('Test', 'canvas', 'users', '2026-11-19T08:00:00Z');
    const reloaded = new SincePointStore(storage);
    assert.equal(reloaded.get('Prod', 'canvas', 'users'), '2026-11-20T08:00:00Z');
    assert.equal(reloaded.get('Test', 'canvas', 'users'), '2026-11-19T08:00:00Z');
    assert.equal(reloaded.get('Prod', 'canvas', 'courses'), undefined);
  });

  it('never moves a point back to an older time', async () => {
    const points = new SincePointStore(new MemoryStorage());
    await points.record('Prod', 'canvas', 'users', '2026-11-20T12:00:00Z');
    await points.record('Prod', 'canvas', 'users', '2026-11-20T08:00:00Z');
    assert.equal(points.get('Prod', 'canvas', 'users'), '2026-11-20T12:00:00Z');
  });
});

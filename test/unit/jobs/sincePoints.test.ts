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

  it('offers no point to a connection pointed at another service or account under the same name', async () => {
    const storage = new MemoryStorage();
    const pointsAt = new Map([['Prod', 'https://a.example.org|account-a']]);
    const points = new SincePointStore(storage, (name) => pointsAt.get(name) ?? name);
    await points.record('Prod', 'canvas', 'users', '2026-11-20T08:00:00Z');
    pointsAt.set('Prod', 'https://a.example.org|account-b');
    assert.equal(points.get('Prod', 'canvas', 'users'), undefined, 'account B never had a snapshot');
    await points.record('Prod', 'canvas', 'users', '2026-11-19T08:00:00Z');
    assert.equal(points.get('Prod', 'canvas', 'users'), '2026-11-19T08:00:00Z', 'its own point, older or not');
    pointsAt.set('Prod', 'https://a.example.org|account-a');
    assert.equal(new SincePointStore(storage, (name) => pointsAt.get(name) ?? name).get('Prod', 'canvas', 'users'), '2026-11-20T08:00:00Z', 'pointed back: its point again');
  });
});

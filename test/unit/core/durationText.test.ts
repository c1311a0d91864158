// The one way spans of time and ages are told: short beside jobs, waits and tree nodes, spelled
// out inside the sentences of error messages.
import * as assert from 'node:assert/strict';
import { formatAge, formatDuration } from '../../../src/core/durationText';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('durationText', () => {
  it('tells a wait at a glance: whole seconds up to 99, then minutes, hours and days', () => {
    assert.equal(formatDuration(22_400), '23 s', 'a wait is rounded up: it is not over before the time said');
    assert.equal(formatDuration(75 * SECOND), '75 s');
    assert.equal(formatDuration(100 * SECOND), '2 min');
    assert.equal(formatDuration(59 * MINUTE), '59 min');
    assert.equal(formatDuration(3 * HOUR), '3 h');
    assert.equal(formatDuration(47 * HOUR), '47 h');
    assert.equal(formatDuration(50 * HOUR), '2 d');
    assert.equal(formatDuration(-5 * SECOND), '0 s', 'a moment already past is no wait at all');
  });

  it('spells the unit out in a sentence, with tenths of a second for short spans', () => {
    assert.equal(formatDuration(300, 'long'), '0.3 s');
    assert.equal(formatDuration(30 * SECOND, 'long'), '30 s');
    assert.equal(formatDuration(90 * SECOND, 'long'), '90 s');
    assert.equal(formatDuration(50 * MINUTE, 'long'), '50 minutes');
    assert.equal(formatDuration(41.6 * HOUR, 'long'), '42 hours');
  });

  it('says an age as "just now" for the first 10 seconds, then how long ago', () => {
    const now = Date.UTC(2026, 10, 20, 12);
    assert.equal(formatAge(now - 9 * SECOND, now), 'just now');
    assert.equal(formatAge(now - 10 * SECOND, now), '10 s ago');
    assert.equal(formatAge(now - 5 * MINUTE, now), '5 min ago');
    assert.equal(formatAge(now - 2 * HOUR, now), '2 h ago');
  });
});

import * as assert from 'node:assert/strict';
import { parseDateTime } from '../../../src/cli/inputValidation';

describe('dq date-time input', () => {
  it('reads a date or a date-time without an offset as UTC', () => {
    assert.equal(parseDateTime('2026-11-20', '--since'), '2026-11-20T00:00:00Z');
    assert.equal(parseDateTime('2026-11-20T08:30', '--since'), '2026-11-20T08:30:00Z');
  });

  it('converts an offset to UTC so the service gets one canonical form', () => {
    assert.equal(parseDateTime('2026-11-20T10:00:00+02:00', '--since'), '2026-11-20T08:00:00Z');
    assert.equal(parseDateTime('2026-11-20T08:00:00.250Z', '--since'), '2026-11-20T08:00:00.250Z');
  });
});

import * as assert from 'node:assert/strict';
import { isDqError } from '../../../src/client/errors';
import { parseQueryArgs } from '../../../src/jobs/queryArgs';

const defaults = { format: 'csv' as const, download: true };
const table = { connection: 'Sample data', namespace: 'canvas', table: 'users' };

describe('Query Table argument object', () => {
  it('fills the format and download from the settings and keeps since "last" for the runner', () => {
    assert.deepEqual(parseQueryArgs({ ...table, since: 'last' }, defaults), {
      params: { ...table, request: { format: 'csv', since: 'last' } },
      download: true,
    });
    const explicit = parseQueryArgs({ ...table, format: 'parquet', since: '2026-11-20T09:00:00+01:00', mode: 'condensed', download: false }, defaults);
    assert.deepEqual(explicit.params.request, { format: 'parquet', since: '2026-11-20T08:00:00Z', mode: 'condensed' });
    assert.equal(explicit.download, false);
  });

  const bad: [string, unknown, RegExp][] = [
    ['no object', undefined, /argument object/],
    ['no table', { connection: 'c', namespace: 'n' }, /"table" is missing/],
    ['a wrong format', { ...table, format: 'xml' }, /"format" must be one of jsonl, csv, tsv, parquet/],
    ['a since that is no time', { ...table, since: 'yesterday' }, /"since" must be a date-time like .* or "last"/],
    ['until without since', { ...table, until: '2026-11-20T08:00:00Z' }, /"until" needs "since"/],
    ['since after until', { ...table, since: '2026-11-21T00:00:00Z', until: '2026-11-20T00:00:00Z' }, /earlier than "until"/],
    ['a download that is no boolean', { ...table, download: 'yes' }, /"download" must be true or false/],
  ];
  for (const [what, args, message] of bad) {
    it(`refuses ${what} before anything is sent`, () => {
      assert.throws(() => parseQueryArgs(args, defaults), (e: unknown) => isDqError(e) && e.kind === 'usage' && message.test(e.message));
    });
  }
});

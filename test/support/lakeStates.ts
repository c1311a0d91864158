// Lake states (`_dq/state.json`, see src/sync/lakeState.ts) as a lake target writes them, for
// tests of what reads them: a table with every column type, a key, a dotted field, names that
// need quoting, and a schema change taken on in place.

import { LAKE_STATE_FORMAT, type LakeState } from '../../src/sync/lakeState';
import type { TargetColumn } from '../../src/sync/syncTarget';

export const EVERY_TYPE_COLUMNS: TargetColumn[] = [
  { name: 'id', path: ['key', 'id'], type: 'bigint', key: true },
  { name: 'order', path: ['value', 'order'], type: 'integer', key: false },
  { name: 'score', path: ['value', 'score'], type: 'double', key: false },
  { name: 'active', path: ['value', 'active'], type: 'boolean', key: false },
  { name: 'created_at', path: ['value', 'created_at'], type: 'timestamptz', key: false },
  { name: 'born_on', path: ['value', 'born_on'], type: 'date', key: false },
  { name: 'address_city', path: ['value', 'address', 'city'], type: 'text', key: false },
  { name: 'settings', path: ['value', 'settings'], type: 'json', key: false },
  { name: 'email', path: ['value', 'email'], type: 'text', key: false },
];

/**
 * `canvas.user-logins` at schema v3, in two files: the first written before v3 added `email`
 * (so it lacks that column), the second after.
 */
export function everyTypeState(keys: { before: string; after: string } = { before: 'lake/canvas/user-logins/data/r1-0.parquet', after: 'lake/canvas/user-logins/data/r2-0.parquet' }): LakeState {
  return {
    format: LAKE_STATE_FORMAT,
    namespace: 'canvas',
    table: 'user-logins',
    point: '2026-11-01T04:00:00.000Z',
    schemaVersion: 3,
    schema: { type: 'object' },
    columns: EVERY_TYPE_COLUMNS,
    rows: 3,
    ranAt: '2026-11-01T04:02:10.000Z',
    run: 'r2',
    files: [
      { key: keys.before, rows: 2, bytes: 1200, minKey: '[1]', maxKey: '[2]', writtenAt: '2026-10-31T04:01:00.000Z' },
      { key: keys.after, rows: 1, bytes: 900, minKey: '[3]', maxKey: '[3]', writtenAt: '2026-11-01T04:02:00.000Z' },
    ],
    retired: [],
    schemaChanges: [{ schemaVersion: 3, at: '2026-11-01T04:02:10.000Z', added: ['email'] }],
  };
}

export const EVERY_TYPE_LOCATION = 's3://dq-lake/lake/canvas/user-logins/';

// The `canvas_logs` namespace: an append-only request log. Its size follows the `rows`
// option, so it is the table to use for large results.

import * as c from './columnBuilders';
import type { TableDef } from './tableModel';
import { URL_PATHS, USER_AGENTS } from './vocabulary';

export const DEFAULT_WEB_LOG_ROWS = 5000;

export function logTables(rows: number | undefined): TableDef[] {
  const webLogs: TableDef = {
    namespace: 'canvas_logs',
    name: 'web_logs',
    version: 4,
    description: 'One row per web request (append only)',
    history: 'log',
    rowCount: rows ?? DEFAULT_WEB_LOG_ROWS,
    key: [c.string('id', ({ rng }) => rng.uuid(), { description: 'Request id' })],
    value: [
      c.dateTime('timestamp', ({ changedAt, rng }) => c.iso(changedAt - rng.int(0, 3_600_000)), { required: true }),
      c.int64('user_id', ({ rng }) => (rng.chance(0.05) ? null : rng.int(10_000, 10_399))),
      c.int64('course_id', ({ rng }) => (rng.chance(0.3) ? null : rng.int(100, 159))),
      c.enumeration('http_method', ['GET', 'POST', 'PUT', 'DELETE'], ({ rng }) => (rng.chance(0.8) ? 'GET' : rng.pick(['POST', 'PUT', 'DELETE']))),
      c.string('url', ({ rng }) => rng.pick(URL_PATHS).replace('{c}', String(rng.int(100, 159))).replace('{q}', String(rng.int(700, 819))), {
        maxLength: 4096,
      }),
      c.int32('http_status', ({ rng }) => (rng.chance(0.93) ? 200 : rng.pick([302, 401, 404, 500])), { required: true }),
      c.number('duration_ms', ({ rng }) => Math.round(rng.next() * 200_000) / 100),
      c.string('user_agent', ({ rng }) => rng.pick(USER_AGENTS), { maxLength: 1024 }),
      c.boolean('participated', ({ rng }) => rng.chance(0.2)),
      c.object('client', [
        c.string('ip', ({ rng }) => `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`),
        c.string('session_id', ({ rng }) => rng.hex(16)),
      ]),
    ],
  };
  return [webLogs];
}

// The `new_quizzes` namespace: quiz definitions and quiz sessions, keyed by string ids.

import * as c from './columnBuilders';
import type { TableDef } from './tableModel';
import { SUBJECTS } from './vocabulary';

const NS = 'new_quizzes';

export function newQuizzesTables(): TableDef[] {
  const quizzes: TableDef = {
    namespace: NS,
    name: 'quizzes',
    version: 1,
    description: 'Quizzes built with the new quiz engine',
    history: 'entity',
    rowCount: 50,
    key: [
      c.string('id', ({ index }) => `nq-${(4096 + index).toString(16)}`),
      c.int64('root_account_id', () => 1),
    ],
    value: [
      c.string('title', ({ rng }) => `${rng.pick(SUBJECTS)} check-in`, { maxLength: 255, required: true }),
      c.int32('item_count', ({ rng }) => rng.int(3, 40)),
      c.boolean('published', ({ rng }) => rng.chance(0.7)),
      c.dateTime('updated_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };
  const sessions: TableDef = {
    namespace: NS,
    name: 'quiz_sessions',
    version: 1,
    description: 'One student\'s session of a quiz',
    history: 'entity',
    rowCount: 400,
    key: [c.int64('id', ({ index }) => 300_000 + index)],
    value: [
      c.string('quiz_id', ({ rng }) => `nq-${(4096 + rng.int(0, 49)).toString(16)}`, { required: true }),
      c.int64('user_id', ({ rng }) => rng.int(10_000, 10_399), { required: true }),
      c.enumeration('status', ['created', 'taking', 'submitted', 'graded'], ({ rng }) => rng.pick(['taking', 'submitted', 'graded', 'graded'])),
      c.number('score', ({ rng }) => (rng.chance(0.3) ? null : Math.round(rng.next() * 1000) / 10)),
      c.array('answers', { type: 'object', properties: { item: { type: 'integer', format: 'int32' }, correct: { type: 'boolean' } } }, ({ rng }) =>
        Array.from({ length: rng.int(0, 3) }, (_, i) => ({ item: i + 1, correct: rng.chance(0.6) }))),
      c.dateTime('started_at', ({ changedAt }) => c.iso(changedAt - 3_600_000), { required: true }),
    ],
  };
  return [quizzes, sessions];
}

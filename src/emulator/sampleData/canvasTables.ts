// The `canvas` namespace: accounts, users, courses, enrollments, assignments, submissions
// and quizzes of a learning management system, written out here, and the other tables of the
// service's list, generated from their compact descriptions (canvasServiceTables.ts).

import { CANVAS_SERVICE_TABLES } from './canvasServiceTables';
import * as c from './columnBuilders';
import { compactTable, type IdRange } from './compactTables';
import type { DeferredTable, TableDef } from './tableModel';
import { ASSIGNMENT_WORDS, FIRST_NAMES, LAST_NAMES, LEVELS, LOCALES, SUBJECTS, TERMS, TIME_ZONES } from './vocabulary';

const NS = 'canvas';
const WORKFLOW = ['active', 'deleted'] as const;
const DAY = 86_400_000;

const COUNTS = {
  accounts: 20,
  users: 400,
  courses: 60,
  enrollments: 1500,
  assignments: 300,
  submissions: 3000,
  quizzes: 120,
};

function fullName(rng: { pick<T>(a: readonly T[]): T }): string {
  return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
}

export function canvasTables(): TableDef[] {
  const accounts: TableDef = {
    namespace: NS,
    name: 'accounts',
    version: 2,
    description: 'Institutions and the sub-accounts below them',
    history: 'entity',
    rowCount: COUNTS.accounts,
    key: [c.int64('id', ({ index }) => 1 + index, { description: 'Account id' })],
    value: [
      c.string('name', ({ rng, index }) => (index === 0 ? 'Example University' : `${rng.pick(SUBJECTS)} Department`), {
        maxLength: 255,
        required: true,
      }),
      c.int64('parent_account_id', ({ index }) => (index === 0 ? null : 1), { description: 'Null for the root account' }),
      c.int64('root_account_id', ({ index }) => (index === 0 ? null : 1)),
      c.enumeration('workflow_state', WORKFLOW, () => 'active', { required: true, default: 'active' }),
      c.string('default_time_zone', ({ rng }) => rng.pick(TIME_ZONES)),
      c.string('default_locale', ({ rng }) => (rng.chance(0.3) ? null : rng.pick(LOCALES))),
      c.freeObject('settings', ({ rng }) => ({ restrict_student_future_view: rng.chance(0.5), lock_all_announcements: rng.chance(0.2) }), {
        description: 'Account settings; keys vary by account',
      }),
      c.dateTime('created_at', ({ index, changedAt }) => c.iso(changedAt - (index + 400) * DAY), { required: true }),
      c.dateTime('updated_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };

  const users: TableDef = {
    namespace: NS,
    name: 'users',
    version: 3,
    description: 'People with a login: students, teachers, staff',
    history: 'entity',
    rowCount: COUNTS.users,
    defsKeyword: 'definitions',
    defs: {
      timestamp: { type: 'string', format: 'date-time', description: 'UTC time' },
      workflow: { type: 'string', enum: ['registered', 'pre_registered', 'deleted'], default: 'registered' },
    },
    key: [c.int64('id', ({ index }) => 10_000 + index)],
    value: [
      c.string('name', ({ rng }) => fullName(rng), { maxLength: 255, required: true }),
      c.string('sortable_name', ({ rng }) => `${rng.pick(LAST_NAMES)}, ${rng.pick(FIRST_NAMES)}`, { maxLength: 255 }),
      c.ref('workflow_state', 'string', '#/definitions/workflow', () => 'registered', { required: true }),
      c.string('time_zone', ({ rng }) => (rng.chance(0.4) ? null : rng.pick(TIME_ZONES))),
      c.string('locale', ({ rng }) => (rng.chance(0.5) ? null : rng.pick(LOCALES)), { description: 'Preferred language; null means the account default' }),
      c.boolean('public', ({ rng }) => rng.chance(0.1)),
      c.string('avatar_image_url', ({ rng, index }) => (rng.chance(0.7) ? null : `https://example.edu/avatars/${index}.png`), {
        maxLength: 255,
      }),
      c.int32('login_count', ({ rng }) => rng.int(0, 5000), { description: 'Added in schema version 2' }),
      c.object('preferences', [
        c.boolean('high_contrast', ({ rng }) => rng.chance(0.05)),
        c.int32('font_size', ({ rng }) => rng.pick([12, 14, 16, 18])),
        c.string('theme', ({ rng }) => rng.pick(['light', 'dark', 'system'])),
      ], { description: 'Display preferences (added in schema version 3)' }),
      c.ref('created_at', 'datetime', '#/definitions/timestamp', ({ index, changedAt }) => c.iso(changedAt - (index % 300) * DAY), { required: true }),
      c.ref('updated_at', 'datetime', '#/definitions/timestamp', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };

  const courses: TableDef = {
    namespace: NS,
    name: 'courses',
    version: 2,
    description: 'Courses and their settings',
    history: 'entity',
    rowCount: COUNTS.courses,
    defsKeyword: '$defs',
    defs: {
      term: {
        type: 'object',
        properties: { name: { type: 'string' }, start_at: { type: 'string', format: 'date-time' } },
        required: ['name'],
      },
    },
    key: [c.int64('id', ({ index }) => 100 + index)],
    value: [
      c.string('name', ({ rng }) => `${rng.pick(LEVELS)} ${rng.pick(SUBJECTS)}`, { maxLength: 255, required: true }),
      c.string('course_code', ({ rng, index }) => `${rng.pick(SUBJECTS).slice(0, 4).toUpperCase()}-${100 + index}`, { maxLength: 255 }),
      c.int64('account_id', ({ rng }) => rng.int(2, COUNTS.accounts), { required: true }),
      c.enumeration('workflow_state', ['created', 'claimed', 'available', 'completed', 'deleted'], ({ rng }) => rng.pick(['available', 'available', 'completed', 'claimed']), {
        required: true,
        default: 'created',
      }),
      c.boolean('is_public', ({ rng }) => rng.chance(0.15)),
      c.number('storage_quota_mb', ({ rng }) => rng.pick([500, 1000, 2500.5])),
      c.ref('term', 'json', '#/$defs/term', ({ rng }) => ({ name: rng.pick(TERMS), start_at: '2026-01-12T08:00:00Z' })),
      c.array('tags', { type: 'string' }, ({ rng }) => (rng.chance(0.4) ? [] : [rng.pick(['online', 'hybrid', 'lab', 'honors'])])),
      c.dateTime('start_at', ({ changedAt }) => c.iso(changedAt - 30 * DAY)),
      c.dateTime('conclude_at', ({ rng, changedAt }) => (rng.chance(0.3) ? null : c.iso(changedAt + 90 * DAY))),
      c.dateTime('created_at', ({ changedAt }) => c.iso(changedAt - 60 * DAY), { required: true }),
      c.dateTime('updated_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };

  const enrollments: TableDef = {
    namespace: NS,
    name: 'enrollments',
    version: 1,
    description: 'Who takes or teaches which course; keyed by user and course',
    history: 'entity',
    rowCount: COUNTS.enrollments,
    key: [
      c.int64('user_id', ({ index }) => 10_000 + Math.floor(index / COUNTS.courses)),
      c.int64('course_id', ({ index }) => 100 + (index % COUNTS.courses)),
    ],
    value: [
      c.enumeration('type', ['StudentEnrollment', 'TeacherEnrollment', 'TaEnrollment', 'ObserverEnrollment', 'DesignerEnrollment'], ({ rng }) =>
        rng.chance(0.85) ? 'StudentEnrollment' : rng.pick(['TeacherEnrollment', 'TaEnrollment', 'ObserverEnrollment']), { required: true }),
      c.enumeration('workflow_state', ['active', 'invited', 'inactive', 'completed', 'rejected', 'deleted'], ({ rng }) =>
        rng.pick(['active', 'active', 'active', 'invited', 'completed']), { required: true, default: 'active' }),
      c.number('computed_current_score', ({ rng }) => (rng.chance(0.2) ? null : Math.round(rng.next() * 10000) / 100)),
      c.string('computed_current_grade', ({ rng }) => (rng.chance(0.2) ? null : rng.pick(['A', 'A-', 'B+', 'B', 'C', 'D', 'F'])), { maxLength: 8 }),
      c.dateTime('last_activity_at', ({ rng, changedAt }) => (rng.chance(0.1) ? null : c.iso(changedAt - rng.int(0, 20) * DAY))),
      c.int32('total_activity_time', ({ rng }) => rng.int(0, 360_000), { description: 'Seconds spent in the course' }),
      c.dateTime('created_at', ({ changedAt }) => c.iso(changedAt - 45 * DAY), { required: true }),
      c.dateTime('updated_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };

  const assignments: TableDef = {
    namespace: NS,
    name: 'assignments',
    version: 2,
    description: 'Graded work in a course',
    history: 'entity',
    rowCount: COUNTS.assignments,
    key: [c.int64('id', ({ index }) => 5000 + index)],
    value: [
      c.string('title', ({ rng, index }) => `${rng.pick(ASSIGNMENT_WORDS)} ${1 + (index % 12)}`, { maxLength: 255, required: true }),
      c.string('description', ({ rng }) => (rng.chance(0.3) ? null : `<p>Complete the ${rng.pick(ASSIGNMENT_WORDS).toLowerCase()}, then submit a "final" copy, with notes.</p>\nLine two.`), {
        description: 'HTML; may contain commas, quotes and line breaks',
      }),
      c.int64('course_id', ({ index }) => 100 + (index % COUNTS.courses), { required: true }),
      c.number('points_possible', ({ rng }) => rng.pick([10, 20, 25, 50, 100, 12.5])),
      c.dateTime('due_at', ({ rng, changedAt }) => (rng.chance(0.2) ? null : c.iso(changedAt + rng.int(1, 30) * DAY))),
      c.array('submission_types', { type: 'string', enum: ['online_text_entry', 'online_upload', 'online_quiz', 'none'] }, ({ rng }) =>
        rng.chance(0.5) ? ['online_upload'] : ['online_text_entry', 'online_upload']),
      c.enumeration('grading_type', ['points', 'percent', 'letter_grade', 'pass_fail'], ({ rng }) => rng.pick(['points', 'points', 'percent', 'pass_fail']), {
        default: 'points',
      }),
      c.object('peer_review', [
        c.boolean('enabled', ({ rng }) => rng.chance(0.2), { required: true }),
        c.int32('count', ({ rng }) => rng.int(0, 3)),
      ]),
      c.enumeration('workflow_state', ['published', 'unpublished', 'deleted'], () => 'published', { required: true }),
      c.dateTime('created_at', ({ changedAt }) => c.iso(changedAt - 20 * DAY), { required: true }),
      c.dateTime('updated_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };

  const submissions: TableDef = {
    namespace: NS,
    name: 'submissions',
    version: 2,
    description: 'A student\'s attempt at an assignment',
    history: 'entity',
    rowCount: COUNTS.submissions,
    key: [c.int64('id', ({ index }) => 900_000 + index)],
    value: [
      c.int64('assignment_id', ({ index }) => 5000 + (index % COUNTS.assignments), { required: true }),
      c.int64('user_id', ({ rng }) => rng.int(10_000, 10_000 + COUNTS.users - 1), { required: true }),
      c.number('score', ({ rng }) => (rng.chance(0.25) ? null : Math.round(rng.next() * 1000) / 10)),
      c.string('grade', ({ rng }) => (rng.chance(0.25) ? null : rng.pick(['A', 'B', 'C', 'complete', 'incomplete'])), { maxLength: 32 }),
      c.enumeration('workflow_state', ['submitted', 'unsubmitted', 'graded', 'pending_review'], ({ rng }) => rng.pick(['submitted', 'graded', 'graded', 'unsubmitted']), {
        required: true,
      }),
      c.boolean('late', ({ rng }) => rng.chance(0.1)),
      c.int32('attempt', ({ rng }) => rng.int(1, 3)),
      c.oneOf('body', [{ type: 'string', maxLength: 65535 }, { type: 'object', properties: { url: { type: 'string' }, size: { type: 'integer', format: 'int64' } } }], ({ rng }) =>
        rng.chance(0.5) ? `Answer text, with a tab\there and "quotes"` : { url: 'https://files.example.edu/f/123', size: rng.int(1000, 9_000_000) }, {
        description: 'Text entry or an uploaded file',
      }),
      c.dateTime('submitted_at', ({ rng, changedAt }) => (rng.chance(0.2) ? null : c.iso(changedAt - rng.int(0, 5) * DAY))),
      c.dateTime('updated_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };

  const quizzes: TableDef = {
    namespace: NS,
    name: 'quizzes',
    version: 1,
    description: 'Classic quizzes',
    history: 'entity',
    rowCount: COUNTS.quizzes,
    key: [c.int64('id', ({ index }) => 700 + index)],
    value: [
      c.string('title', ({ rng, index }) => `${rng.pick(SUBJECTS)} quiz ${1 + (index % 9)}`, { maxLength: 255, required: true }),
      c.int64('course_id', ({ index }) => 100 + (index % COUNTS.courses), { required: true }),
      c.enumeration('quiz_type', ['practice_quiz', 'assignment', 'graded_survey', 'survey'], ({ rng }) => rng.pick(['assignment', 'practice_quiz', 'survey']), {
        default: 'assignment',
      }),
      c.int32('time_limit', ({ rng }) => (rng.chance(0.4) ? null : rng.pick([10, 20, 45, 90])), { description: 'Minutes; null for none' }),
      c.int32('allowed_attempts', ({ rng }) => rng.pick([1, 1, 2, -1]), { schema: { default: 1 } }),
      c.boolean('shuffle_answers', ({ rng }) => rng.chance(0.5)),
      c.number('points_possible', ({ rng }) => rng.pick([5, 10, 20, 7.5])),
      c.enumeration('workflow_state', ['unpublished', 'published', 'deleted'], () => 'published', { required: true }),
      c.dateTime('updated_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };

  return [accounts, users, courses, enrollments, assignments, submissions, quizzes];
}

/** The ids of the tables above, for the columns of generated tables that refer to them. */
const WRITTEN_OUT_IDS: Readonly<Record<string, IdRange>> = {
  accounts: { first: 1, count: COUNTS.accounts },
  users: { first: 10_000, count: COUNTS.users },
  courses: { first: 100, count: COUNTS.courses },
  // keyed by user and course here; the tables that refer to an enrollment hold a number
  enrollments: { first: 1, count: COUNTS.enrollments },
  assignments: { first: 5000, count: COUNTS.assignments },
  submissions: { first: 900_000, count: COUNTS.submissions },
  quizzes: { first: 700, count: COUNTS.quizzes },
};

/**
 * The other tables of the service's `canvas` namespace, each made when first asked for; the ids
 * of the n-th start at n * 1000 + 1.
 */
export function canvasServiceTables(): DeferredTable[] {
  const ids = new Map<string, IdRange>(Object.entries(WRITTEN_OUT_IDS));
  CANVAS_SERVICE_TABLES.forEach((t, i) => {
    if (ids.has(t.name)) throw new Error(`canvas.${t.name} is described twice`);
    if (t.rows < 1 || t.rows > 999) throw new Error(`canvas.${t.name}: ${t.rows} rows, not 1 to 999`);
    ids.set(t.name, { first: (i + 1) * 1000 + 1, count: t.rows });
  });
  return CANVAS_SERVICE_TABLES.map((t) => ({ namespace: NS, name: t.name, build: () => compactTable(NS, t, ids.get(t.name) as IdRange, (name) => ids.get(name)) }));
}

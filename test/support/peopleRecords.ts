// A small service table for the sync targets' own tests, `school.people`: an int64 key, text,
// a number, a time, an array, a nested object, and the records of its changes (U upserts, D
// deletes) at three commits 4 hours apart.

import type { SchemaEnvelope } from '../../src/core/contract';

/** The table's schema; `nameField` names its text column (a target that folds case is tried with `Name`). */
export function peopleSchema(nameField = 'name'): SchemaEnvelope {
  return {
    version: 1,
    schema: {
      type: 'object',
      properties: {
        key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } },
        value: {
          type: 'object',
          properties: {
            [nameField]: { type: 'string' },
            score: { type: 'number' },
            seen_at: { type: 'string', format: 'date-time' },
            tags: { type: 'array', items: { type: 'string' } },
            address: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
        meta: { type: 'object', properties: { action: { type: 'string' }, ts: { type: 'string', format: 'date-time' } } },
      },
    },
  };
}

export const T0 = '2026-11-01T00:00:00Z';
export const T1 = '2026-11-01T04:00:00Z';
export const T2 = '2026-11-01T08:00:00Z';

export type Rec = { meta: { action: 'U' | 'D'; ts: string }; key: { id: number }; value?: Record<string, unknown> };
/** An upsert of `id` at `ts`. */
export const u = (id: number, ts: string, value: Record<string, unknown>): Rec => ({ meta: { action: 'U', ts }, key: { id }, value });
/** A delete of `id` at `ts`. */
export const d = (id: number, ts: string): Rec => ({ meta: { action: 'D', ts }, key: { id } });

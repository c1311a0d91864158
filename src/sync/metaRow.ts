// The meta row (`dq_sync_state`) as both targets write it: one row per target table, keyed by
// the service's namespace and table, holding the point its rows reached, the schema they were
// loaded with, how many there are, when the run ended and the source they came from.

import type { ApplyPlan } from './syncTarget';

/**
 * The parameters of a meta row's upsert, in the order both targets' statements take them:
 * namespace, table, point, schema version, schema (JSON text), rows, ran at, and source (NULL
 * when none is known) unless `withSource` is false (a meta table without the column).
 */
export function metaRowValues(plan: Pick<ApplyPlan, 'table' | 'state'>, rows: number, withSource = true): (string | number | null)[] {
  const { table, state } = plan;
  const values = [table.namespace, table.table, state.point, state.schemaVersion, JSON.stringify(state.schema), rows, state.ranAt];
  return withSource ? [...values, state.source ?? null] : values;
}

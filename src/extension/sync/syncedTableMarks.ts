// The sync's marks in the Explorer view: each table held by the sync target shows its point
// and row count beside its schema version (a green table icon), and a table being synced shows
// its stage. The marks come from the synced-tables model; a change redraws only the tables it
// touched.

import type { TableMarks } from '../explorer/tableMarks';
import type { SyncedTablesModel } from './syncedTablesModel';
import { stageText, syncedMarkText, syncedTooltipText } from './syncTexts';

export function syncedTableMarks(model: SyncedTablesModel): TableMarks {
  return {
    markOf(connection, namespace, table, now) {
      const state = model.stateOf(connection, namespace, table);
      const activity = model.activityOf(connection, namespace, table);
      const label = model.targetLabel ?? 'the sync target';
      if (activity) {
        const before = state ? ` ${syncedTooltipText(state, label, now)}` : '';
        return { description: `syncing: ${stageText(activity, now)}`, tooltip: `Being synced to ${label} now.${before}`, syncing: true };
      }
      return state && { description: syncedMarkText(state), tooltip: syncedTooltipText(state, label, now), syncing: false };
    },
    onDidChangeMarks: (listener) => model.onDidChange((change) => listener(change.tables)),
  };
}

// A completed job says which schema version its data has. When a job of a table whose schema
// is kept or shown completes, that schema is read again (schemas allow 500 reads a minute), so
// the tree and an open schema page follow a newer version.

import type { Disposable } from 'vscode';
import type { JobsModel } from '../../jobs/jobsModel';
import type { TableRef } from './schemaPanel';

/** Calls `queried` once for each job that completes after this starts. */
export function watchCompletedJobs(model: Pick<JobsModel, 'list' | 'onDidChange'>, queried: (ref: TableRef) => void): Disposable {
  const seen = new Set(model.list().filter((e) => e.state === 'complete').map((e) => e.key));
  return model.onDidChange(() => {
    for (const entry of model.list()) {
      if (entry.state !== 'complete' || seen.has(entry.key)) continue;
      seen.add(entry.key);
      queried({ connection: entry.connection, namespace: entry.namespace, table: entry.table });
    }
  });
}

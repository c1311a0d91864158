// What the Jobs view's menus (the `when` clauses in package.json) know about a job: its
// tree item's context value, `dataQuery.job.<state>`, then `.nojob` when the query never
// reached the service (no job there, so nothing to download), `.files` when files are on
// disk and `.point` when an incremental can follow.

import { dataPoint, type JobEntry } from './jobEntry';

export function jobContextValue(entry: JobEntry): string {
  const noJob = entry.jobId === undefined ? '.nojob' : '';
  return `dataQuery.job.${entry.state}${noJob}${entry.files.length > 0 ? '.files' : ''}${dataPoint(entry) ? '.point' : ''}`;
}

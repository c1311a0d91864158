// The records of a table's downloaded result files in a UI suite's workspace, in file order:
// what the grid, its profiles and its charts are checked against.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { SuiteWorkbench } from './uiSuite';

/** The one job downloaded for `connection`'s `namespace.table`: its id and the folder of its files. */
export function downloadedJob(served: SuiteWorkbench['served'], connection: string, namespace: string, table: string): { jobId: string; folder: string } {
  const tableFolder = path.join(served.run.workspace, 'data-query-results', connection, namespace, table);
  const [jobId] = fs.readdirSync(tableFolder);
  return { jobId, folder: path.join(tableFolder, jobId) };
}

/** The records of the one job downloaded for `connection`'s `namespace.table`. */
export function downloadedRecords<T>(served: SuiteWorkbench['served'], connection: string, namespace: string, table: string): T[] {
  const { folder } = downloadedJob(served, connection, namespace, table);
  const records: T[] = [];
  for (const file of fs.readdirSync(folder).sort()) {
    const text = gunzipSync(fs.readFileSync(path.join(folder, file))).toString('utf8');
    for (const line of text.split('\n')) if (line) records.push(JSON.parse(line) as T);
  }
  return records;
}

// Downloaded jobs as the preview and the SQL console see them, and the view names the console
// gives them: `<namespace>.<table>` for a table's newest download and
// `<namespace>.<table>__<job id prefix>` for each one.

import type { SchemaEnvelope } from '../../core/contract';
import type { ResultFormat } from '../../engine/engineProtocol';

export interface DownloadedJob {
  /** the jobs model's key of the job */
  key: string;
  connection: string;
  namespace: string;
  table: string;
  jobId: string;
  paths: string[];
  /** the format the job was created with */
  format: ResultFormat;
  /** when the query was started (ms since the epoch): the newest names the table's view */
  createdAt: number;
  /** the table's schema, fetched when needed; undefined when it cannot be had (CSV, TSV and JSONL columns are then read as text) */
  schema(): Promise<SchemaEnvelope | undefined>;
}

/** Lists the jobs whose files are on disk. */
export type DownloadedJobsProvider = () => readonly DownloadedJob[];

const JOB_PREFIX_LENGTH = 8;

export interface NamedJob {
  name: string;
  job: DownloadedJob;
}

/** Every view name of the downloaded jobs, the plain table names first. */
export function viewNames(jobs: readonly DownloadedJob[]): NamedJob[] {
  const newest = new Map<string, DownloadedJob>();
  for (const job of jobs) {
    const table = tableView(job);
    const seen = newest.get(table);
    if (!seen || job.createdAt > seen.createdAt) newest.set(table, job);
  }
  const latest = [...newest].map(([name, job]) => ({ name, job }));
  const each = jobs.map((job) => ({ name: `${tableView(job)}__${jobPrefix(job.jobId)}`, job }));
  return [...latest, ...each];
}

function tableView(job: Pick<DownloadedJob, 'namespace' | 'table'>): string {
  return `${identifier(job.namespace)}.${identifier(job.table)}`;
}

function jobPrefix(jobId: string): string {
  return plainChars(jobId.slice(0, JOB_PREFIX_LENGTH));
}

/** A name part that needs no quoting in SQL. */
function identifier(text: string): string {
  const plain = plainChars(text);
  return /^[a-z_]/.test(plain) ? plain : `_${plain}`;
}

function plainChars(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

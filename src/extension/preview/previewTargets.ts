// What `dataQuery.previewResult` and `dataQuery.exportResult` accept, as the files to open:
// `{paths, title?, schema?}`; a downloaded job as `{connection, jobId}`, as a Jobs view node
// (`{kind: 'job' | 'file', key}`) or as the job entry itself (with `files`); or a file URI.

import * as path from 'node:path';
import { DqError } from '../../client/errors';
import type { SchemaEnvelope } from '../../core/contract';
import { isRecord } from '../../core/isRecord';
import type { ResultSource } from '../../engine/engineProtocol';
import type { DownloadedJob, DownloadedJobsProvider } from './downloadedJobs';

/** The result files an argument names, or undefined when it names none (the command then asks). */
export async function resolvePreviewTarget(arg: unknown, jobs: DownloadedJobsProvider): Promise<ResultSource | undefined> {
  if (!isRecord(arg)) return undefined;
  if (isStringArray(arg.paths)) {
    return { paths: arg.paths, name: typeof arg.title === 'string' ? arg.title : undefined, schema: arg.schema as SchemaEnvelope | undefined };
  }
  if (arg.scheme === 'file' && typeof arg.fsPath === 'string') return { paths: [arg.fsPath], name: path.basename(arg.fsPath) };
  if (arg.kind === 'file' && typeof arg.path === 'string') {
    const job = findJob(jobs, arg);
    return { paths: [arg.path], name: path.basename(arg.path), schema: await job?.schema() };
  }
  const job = findJob(jobs, arg);
  if (job) return jobSource(job);
  if (typeof arg.key === 'string' || typeof arg.jobId === 'string') throw notDownloaded(arg);
  return undefined;
}

export async function jobSource(job: DownloadedJob): Promise<ResultSource> {
  return { paths: job.paths, name: `${job.namespace}.${job.table}`, schema: await job.schema() };
}

function findJob(jobs: DownloadedJobsProvider, arg: Record<string, unknown>): DownloadedJob | undefined {
  const list = jobs();
  if (typeof arg.key === 'string') return list.find((j) => j.key === arg.key);
  if (typeof arg.jobId === 'string') return list.find((j) => j.jobId === arg.jobId && (arg.connection === undefined || j.connection === arg.connection));
  return undefined;
}

function notDownloaded(arg: Record<string, unknown>): DqError {
  const which = typeof arg.jobId === 'string' ? `The job ${arg.jobId}` : 'This job';
  return new DqError('notFound', `${which} has no downloaded files to preview.`, {
    hint: 'Download its results first (Download in the Jobs view), then preview it again.',
  });
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string');
}

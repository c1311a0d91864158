// What `dataQuery.previewResult` and `dataQuery.exportResult` accept, as the files to open:
// `{paths, title?, schema?}`; a downloaded job as `{connection, jobId}`, as a Jobs view node
// (`{kind: 'job' | 'file', key}`) or as the job entry itself (with `files`); or a file URI.
// A job's schema is read only once its preview is on screen, so a slow service never holds it up.

import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DqError } from '../../client/errors';
import type { SchemaEnvelope } from '../../core/contract';
import { isRecord } from '../../core/isRecord';
import type { ResultFormat, ResultSource } from '../../engine/engineProtocol';
import type { JobRef } from '../../webview/previewOrigin';
import type { DownloadedJob, DownloadedJobsProvider } from './downloadedJobs';

/** Result files to open and a title, with their table's schema read when it is needed. */
export interface PreviewTarget {
  paths: string[];
  /** absent for loose files given without a title: the grid then names them by their files */
  name?: string;
  /** known for a job's files; sniffed from their content otherwise */
  format?: ResultFormat;
  /** the downloaded job whose files these are, when they are one's */
  job?: JobRef;
  /** undefined when the files belong to no known table (CSV, TSV and JSONL columns are then read as text) */
  schema(): Promise<SchemaEnvelope | undefined>;
}

/** The result files an argument names, or undefined when it names none (the command then asks). */
export function resolvePreviewTarget(arg: unknown, jobs: DownloadedJobsProvider): PreviewTarget | undefined {
  if (!isRecord(arg)) return undefined;
  if (isStringArray(arg.paths)) {
    const schema = arg.schema as SchemaEnvelope | undefined;
    return filesTarget(arg.paths, typeof arg.title === 'string' ? arg.title : undefined, () => Promise.resolve(schema));
  }
  if (arg.scheme === 'file' && typeof arg.fsPath === 'string') return fileTarget(arg.fsPath, jobs);
  if (arg.kind === 'file' && typeof arg.path === 'string') {
    const job = findJob(jobs, arg);
    return job ? jobFileTarget(job, arg.path) : filesTarget([arg.path], path.basename(arg.path));
  }
  const job = findJob(jobs, arg);
  if (job) return jobTarget(job);
  if (typeof arg.key === 'string' || typeof arg.jobId === 'string') throw notDownloaded(arg);
  return undefined;
}

export function filesTarget(paths: string[], name: string | undefined, schema = (): Promise<SchemaEnvelope | undefined> => Promise.resolve(undefined)): PreviewTarget {
  return { paths, name, schema };
}

/**
 * One file on disk (opened from VS Code's explorer, or given as a URI). A file a downloaded job
 * holds is read with its table's schema (the columns' types); another one has its columns read
 * as text.
 */
export function fileTarget(file: string, jobs: DownloadedJobsProvider): PreviewTarget {
  const job = jobHolding(file, jobs);
  return job ? jobFileTarget(job, file) : filesTarget([file], path.basename(file));
}

/**
 * Files named by their paths (a chart's or a preview's, opened again after a reload): read with
 * the schema of the downloaded job `of` (when it is still listed) or of the one that holds them.
 */
export function savedFilesTarget(paths: string[], name: string | undefined, jobs: DownloadedJobsProvider, of?: JobRef): PreviewTarget {
  const job = (of && jobs().find((j) => j.connection === of.connection && j.jobId === of.jobId)) ?? jobHolding(paths[0], jobs);
  return job ? { ...jobTarget(job), paths, name } : filesTarget(paths, name);
}

/** The first of `paths` that is not a file on disk now, if any. */
export async function firstMissing(paths: readonly string[]): Promise<string | undefined> {
  const found = await Promise.all(paths.map((p) => fs.stat(p).then((s) => s.isFile(), () => false)));
  return paths[found.indexOf(false)];
}

function jobHolding(file: string, jobs: DownloadedJobsProvider): DownloadedJob | undefined {
  const wanted = samePathKey(file);
  return jobs().find((j) => j.paths.some((p) => samePathKey(p) === wanted));
}

function jobFileTarget(job: DownloadedJob, file: string): PreviewTarget {
  return { ...jobTarget(job), paths: [file], name: path.basename(file) };
}

/** A path as compared: absolute, and in one case where the file system ignores case. */
function samePathKey(file: string): string {
  const resolved = path.resolve(file);
  return process.platform === 'win32' || process.platform === 'darwin' ? resolved.toLowerCase() : resolved;
}

export function jobTarget(job: DownloadedJob): PreviewTarget {
  return { paths: job.paths, name: `${job.namespace}.${job.table}`, format: job.format, job: { connection: job.connection, jobId: job.jobId }, schema: () => job.schema() };
}

/** What the engine opens for a target, its schema read. */
export async function sourceOf(target: PreviewTarget): Promise<ResultSource> {
  const schema = await target.schema();
  return { paths: target.paths, ...(target.name !== undefined ? { name: target.name } : {}), ...(target.format ? { format: target.format } : {}), ...(schema ? { schema } : {}) };
}

export function jobSource(job: DownloadedJob): Promise<ResultSource> {
  return sourceOf(jobTarget(job));
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

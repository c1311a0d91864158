// dq query and dq download: create or find a job, wait for it, fetch its objects to disk. Once
// the job exists, a failure or Ctrl-C says how to get its files later (and --json prints the
// job with the error).

import * as path from 'node:path';
import type { DataQueryClient } from '../client/dataQueryClient';
import { DqError } from '../client/errors';
import type { DownloadedFile } from '../client/types';
import type { CreateJobRequest, JobRecord } from '../core/contract';
import { sanitizeFileName } from '../core/paths';
import type { OptionSpec } from './argParser';
import { UsageError } from './argParser';
import type { CommandContext, CommandSpec } from './commandSpec';
import { EXIT } from './exitCodes';
import { printJson, shownJob, withClient } from './dataCommands';
import { progressWanted } from './globalOptions';
import { parseConcurrency, parseWhole, parseDateTime, parseFormat, parseMode, requireId, requireName } from './inputValidation';
import { failureJson, JobStageError } from './jobFollowUp';
import { downloadCollector } from './memoryTuning';
import { checkOutputFolder } from './outputFolder';
import { isOutputClosed } from './outputStreams';
import { ProgressReporter } from './progressReporter';
import { printLines } from './terminalLine';
import { userPath } from './userPaths';

const DOWNLOAD_OPTIONS: readonly OptionSpec[] = [
  { name: 'decompress', kind: 'boolean', description: 'gunzip objects while writing them' },
  { name: 'concurrency', kind: 'number', valueName: 'N', description: 'objects downloaded at once, 1 to 32 (default 4)' },
  { name: 'sha256', kind: 'boolean', description: 'compute each file\'s SHA-256 while writing it (printed with --json)' },
  { name: 'max-files', kind: 'number', valueName: 'N', description: 'refuse a job of more than N result files before fetching any (default 10000)' },
];

export const queryCommand: CommandSpec = {
  name: 'query',
  usage: 'dq query <namespace> <table> [--format jsonl|csv|tsv|parquet] [--since T] [--until T] [--out DIR] [--no-download] [--decompress] [--concurrency N] [--sha256]',
  summary: 'create a query job, wait for it and download its result files',
  options: [
    { name: 'format', kind: 'string', valueName: 'FORMAT', description: 'jsonl (default), csv, tsv or parquet' },
    { name: 'since', kind: 'string', valueName: 'T', description: 'incremental: changes after T (a previous job\'s `at` or `until`)' },
    { name: 'until', kind: 'string', valueName: 'T', description: 'incremental: changes up to T (best omitted)' },
    { name: 'mode', kind: 'string', valueName: 'MODE', description: 'expanded or condensed: how nested fields become CSV/TSV columns' },
    { name: 'download', kind: 'boolean', negatable: true, description: 'download the results (default; --no-download only prints the job)' },
    { name: 'out', kind: 'string', valueName: 'DIR', nonEmpty: true, description: 'folder for the files (default downloads/<namespace>/<table>/<job id>/)' },
    ...DOWNLOAD_OPTIONS,
  ],
  async run(ctx) {
    const p = ctx.args.positionals;
    if (p.length !== 2) throw new UsageError(`expected <namespace> <table>; usage: ${this.usage}`);
    const namespace = requireName(p[0], 'namespace');
    const table = requireName(p[1], 'table');
    const o = ctx.args.options;
    const request: CreateJobRequest = { format: parseFormat(o.format) };
    const since = parseDateTime(o.since, '--since');
    const until = parseDateTime(o.until, '--until');
    if (until && !since) throw new UsageError('--until needs --since (a snapshot has no end; omit both for a snapshot)');
    if (since && until && Date.parse(since) >= Date.parse(until)) throw new UsageError('--since must be earlier than --until');
    if (since) request.since = since;
    if (until) request.until = until;
    const mode = parseMode(o.mode);
    if (mode) request.mode = mode;
    const download = o.download !== false;
    const concurrency = parseConcurrency(o.concurrency);
    const maxFiles = parseWhole(o['max-files'], '--max-files', 1);
    if (!download && (o.out !== undefined || o.decompress || o.sha256 || concurrency || maxFiles)) {
      throw new UsageError('--out, --decompress, --concurrency, --sha256 and --max-files have no effect with --no-download');
    }
    const progress = new ProgressReporter(ctx.io.stderr, progressWanted(o, ctx.io));
    return withClient(ctx, async (client) => {
      // before the create-job call it would spend (the client has sent nothing yet)
      if (download) await checkOutputFolder(outDirBeforeJob(ctx, namespace, table));
      progress.message(`creating a ${request.format} ${since ? 'incremental' : 'snapshot'} job for ${namespace}.${table}`);
      let known: JobRecord | undefined; // the last record seen, once the job exists
      try {
        const job = await client.runJob(namespace, table, request, {
          signal: ctx.io.interrupt,
          onUpdate: (j) => {
            known = j;
            progress.jobUpdate(j);
          },
        });
        known = job;
        if (!download) {
          progress.done();
          printJson(ctx, ctx.args.options.json ? { job: shownJob(job), files: [] } : shownJob(job));
          return EXIT.ok;
        }
        const dir = outDir(ctx, namespace, table, job);
        const files = await fetchFiles(ctx, client, job, dir, request.format, progress);
        printFiles(ctx, job, files);
        return EXIT.ok;
      } catch (err) {
        progress.done();
        throw afterJob(ctx, err, known);
      }
    });
  },
};

export const downloadCommand: CommandSpec = {
  name: 'download',
  usage: 'dq download <jobId> [--out DIR] [--decompress] [--concurrency N] [--sha256]',
  summary: 'download the result files of a job, waiting first while it is waiting or running (progress on stderr; Ctrl-C stops waiting, the job runs on)',
  options: [
    { name: 'out', kind: 'string', valueName: 'DIR', nonEmpty: true, description: 'folder for the files (default downloads/<job id>/)' },
    ...DOWNLOAD_OPTIONS,
    { name: 'format', kind: 'string', valueName: 'FORMAT', description: 'the job\'s format, for file extensions (default: recognised from the content)' },
  ],
  async run(ctx) {
    const p = ctx.args.positionals;
    if (p.length !== 1) throw new UsageError(`expected <jobId>; usage: ${this.usage}`);
    const jobId = requireId(p[0], 'jobId');
    const format = ctx.args.options.format === undefined ? undefined : parseFormat(ctx.args.options.format);
    parseConcurrency(ctx.args.options.concurrency);
    parseWhole(ctx.args.options['max-files'], '--max-files', 1);
    const progress = new ProgressReporter(ctx.io.stderr, progressWanted(ctx.args.options, ctx.io));
    return withClient(ctx, async (client) => {
      await checkOutputFolder(outDirBeforeJob(ctx, undefined, undefined));
      // an id the service does not know is notFound (exit 4), as from dq job
      let job = await client.getJob(jobId, { signal: ctx.io.interrupt });
      try {
        if (job.status === 'waiting' || job.status === 'running') {
          progress.jobUpdate(job);
          job = await client.waitForJob(jobId, {
            signal: ctx.io.interrupt,
            onUpdate: (j) => {
              job = j;
              progress.jobUpdate(j);
            },
          });
        }
        if (job.status !== 'complete') {
          throw new DqError('jobFailed', `job ${jobId} is ${job.status}, not complete.`, {
            hint: 'The job failed; create a new one with dq query.',
            type: job.error?.type,
            uuid: job.error?.uuid,
          });
        }
        const dir = outDir(ctx, undefined, undefined, job);
        const files = await fetchFiles(ctx, client, job, dir, format, progress);
        printFiles(ctx, job, files);
        return EXIT.ok;
      } catch (err) {
        progress.done();
        throw afterJob(ctx, err, job);
      }
    });
  },
};

/**
 * What a command throws when its job exists and it did not end in files: the failure with the
 * job (its error line then says how to get the files later). With --json the job and the error
 * go to stdout first, as the object a script reads; the exit code stays the failure's.
 */
function afterJob(ctx: CommandContext, err: unknown, job: JobRecord | undefined): unknown {
  if (!job) return err;
  if (ctx.args.options.json && !isOutputClosed(ctx.io.interrupt.reason)) printJson(ctx, failureJson(job, err));
  return new JobStageError(err, job);
}

/** --out (a leading `~` is the home folder), else downloads/[<namespace>/<table>/]<job id>/ under the working folder. */
function outDir(ctx: CommandContext, namespace: string | undefined, table: string | undefined, job: JobRecord): string {
  const given = ctx.args.options.out as string | undefined;
  if (given) return userPath(given, ctx.io);
  return path.join(outDirBeforeJob(ctx, namespace, table), sanitizeFileName(job.id));
}

/** The folder outDir will be, or (by default) the one its job folder goes in: known before the job is. */
function outDirBeforeJob(ctx: CommandContext, namespace: string | undefined, table: string | undefined): string {
  const given = ctx.args.options.out as string | undefined;
  if (given) return userPath(given, ctx.io);
  const parts = ['downloads'];
  if (namespace && table) parts.push(namespace, table);
  return path.resolve(ctx.io.cwd, ...parts);
}

async function fetchFiles(
  ctx: CommandContext,
  client: DataQueryClient,
  job: JobRecord,
  dir: string,
  format: string | undefined,
  progress: ProgressReporter,
): Promise<DownloadedFile[]> {
  const collect = downloadCollector();
  try {
    return await client.downloadJob(job, {
      dir,
      format,
      decompress: ctx.args.options.decompress === true,
      sha256: ctx.args.options.sha256 === true,
      concurrency: parseConcurrency(ctx.args.options.concurrency),
      maxObjects: parseWhole(ctx.args.options['max-files'], '--max-files', 1),
      signal: ctx.io.interrupt,
      onProgress: (p) => {
        collect(p.allBytes);
        progress.download(p);
      },
    });
  } finally {
    progress.done();
  }
}

function printFiles(ctx: CommandContext, job: JobRecord, files: DownloadedFile[]): void {
  if (ctx.args.options.json) {
    printJson(ctx, { job: shownJob(job), files: files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 })) });
    return;
  }
  printLines(ctx.io.stdout, files.map((f) => f.path));
}

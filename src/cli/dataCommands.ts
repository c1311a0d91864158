// dq tables | schema | columns | job | wait | urls: one call each, printed plainly or as JSON.

import type { DataQueryClient } from '../client/dataQueryClient';
import type { DataQueryClientOptions } from '../client/types';
import { DqError, isDqError } from '../client/errors';
import { columnsOf, type Column } from '../core/schema';
import type { JobRecord, SchemaEnvelope, ServiceErrorBody } from '../core/contract';
import { redact } from '../core/logger';
import { jsonWithVisibleControls } from '../core/visibleControls';
import { UsageError } from './argParser';
import type { CommandContext, CommandSpec } from './commandSpec';
import { EXIT } from './exitCodes';
import { createClient, progressWanted } from './globalOptions';
import { requireId, requireName } from './inputValidation';
import { ProgressReporter } from './progressReporter';
import { printLines } from './terminalLine';

export async function withClient<T>(ctx: CommandContext, work: (client: DataQueryClient) => Promise<T>, rateLimits?: DataQueryClientOptions['rateLimits']): Promise<T> {
  const client = createClient(ctx.args.options, ctx.io, ctx.args.given, rateLimits);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

/** JSON on stdout, exact, with no raw control character even where JSON allows one. */
export function printJson(ctx: CommandContext, value: unknown): void {
  ctx.io.stdout.write(`${jsonWithVisibleControls(JSON.stringify(value, null, 2))}\n`);
}

/** A job record as dq prints it: the texts of its error redacted (a failed job's message may quote a signed link). */
export function shownJob(job: JobRecord): JobRecord {
  if (!job.error) return job;
  const error = Object.fromEntries(Object.entries(job.error).map(([key, value]) => [key, typeof value === 'string' ? redact(value) : value]));
  return { ...job, error: error as ServiceErrorBody };
}

function expectPositionals(ctx: CommandContext, min: number, max: number, usage: string): string[] {
  const p = ctx.args.positionals;
  if (p.length < min) throw new UsageError(`not enough arguments; usage: ${usage}`);
  if (p.length > max) throw new UsageError(`unexpected argument "${p[max]}"; usage: ${usage}`);
  return p;
}

/** Reads `<namespace> <table>`, checked before any request, and fetches that schema. */
async function fetchSchema(ctx: CommandContext, usage: string): Promise<SchemaEnvelope> {
  const [ns, tb] = expectPositionals(ctx, 2, 2, usage);
  const namespace = requireName(ns, 'namespace');
  const table = requireName(tb, 'table');
  return withClient(ctx, (c) => c.getSchema(namespace, table, { signal: ctx.io.interrupt }));
}

export const tablesCommand: CommandSpec = {
  name: 'tables',
  usage: 'dq tables <namespace>',
  summary: 'list the tables of a namespace, one per line',
  options: [],
  async run(ctx) {
    const [ns] = expectPositionals(ctx, 1, 1, this.usage);
    const namespace = requireName(ns, 'namespace');
    const tables = await withClient(ctx, (c) => c.listTables(namespace, { signal: ctx.io.interrupt }));
    if (ctx.args.options.json) printJson(ctx, { tables });
    else printLines(ctx.io.stdout, tables);
    return EXIT.ok;
  },
};

export const schemaCommand: CommandSpec = {
  name: 'schema',
  usage: 'dq schema <namespace> <table>',
  summary: 'print a table\'s schema envelope {"version", "schema"} as JSON',
  options: [],
  async run(ctx) {
    printJson(ctx, await fetchSchema(ctx, this.usage));
    return EXIT.ok;
  },
};

export const columnsCommand: CommandSpec = {
  name: 'columns',
  usage: 'dq columns <namespace> <table>',
  summary: 'list a table\'s columns: name, type, key, required, description',
  options: [],
  async run(ctx) {
    const envelope = await fetchSchema(ctx, this.usage);
    const [namespace, table] = ctx.args.positionals;
    const columns = columnsOf(envelope, `${namespace}.${table}`);
    if (ctx.args.options.json) {
      printJson(
        ctx,
        columns.map((c) => ({ name: c.name, type: c.type, key: c.part === 'key', required: c.required, description: c.description ?? null, problem: c.problem ?? null })),
      );
    } else {
      printLines(ctx.io.stdout, formatColumns(columns));
    }
    return EXIT.ok;
  },
};

function formatColumns(columns: Column[]): string[] {
  const rows = columns.map((c) => [
    c.name,
    c.type,
    c.part === 'key' ? 'key' : '-',
    c.required ? 'required' : 'optional',
    [c.description ?? '', c.problem ? `(not read whole: ${c.problem})` : ''].join(' ').replace(/\s+/g, ' ').trim(),
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length), 1));
  return rows.map((r) => `${r.slice(0, 4).map((v, i) => v.padEnd(widths[i])).join('  ')}  ${r[4]}`.trimEnd());
}

export const jobCommand: CommandSpec = {
  name: 'job',
  usage: 'dq job <jobId>',
  summary: 'print a job record as JSON',
  options: [],
  async run(ctx) {
    const [id] = expectPositionals(ctx, 1, 1, this.usage);
    const jobId = requireId(id, 'jobId');
    printJson(ctx, shownJob(await withClient(ctx, (c) => c.getJob(jobId, { signal: ctx.io.interrupt }))));
    return EXIT.ok;
  },
};

export const waitCommand: CommandSpec = {
  name: 'wait',
  usage: 'dq wait <jobId>',
  summary: 'poll a job until it completes or fails, then print it as JSON',
  options: [],
  async run(ctx) {
    const [id] = expectPositionals(ctx, 1, 1, this.usage);
    const jobId = requireId(id, 'jobId');
    const progress = new ProgressReporter(ctx.io.stderr, progressWanted(ctx.args.options, ctx.io));
    let last: JobRecord | undefined;
    try {
      const job = await withClient(ctx, (c) =>
        c.waitForJob(jobId, {
          signal: ctx.io.interrupt,
          onUpdate: (j) => {
            last = j;
            progress.jobUpdate(j);
          },
        }),
      );
      progress.done();
      printJson(ctx, shownJob(job));
      return EXIT.ok;
    } catch (err) {
      progress.done();
      // A failed job is still a record worth printing; the error line follows on stderr.
      if (last?.status === 'failed') printJson(ctx, shownJob(last));
      // The service never answered with this job: not one that expired, most likely a mistyped id.
      if (last === undefined && isDqError(err) && err.kind === 'jobExpired') throw noSuchJob(jobId, err);
      throw err;
    }
  },
};

/** A job whose first poll was answered 404, as `dq job` reports the same id: notFound, check the id. */
function noSuchJob(jobId: string, gone: DqError): DqError {
  return new DqError('notFound', `No job ${jobId} exists on the service`, {
    status: gone.status,
    type: gone.type,
    uuid: gone.uuid,
    operation: 'getJob',
    details: gone.details,
    hint: 'Check the job id; a job and its files are deleted about 24 hours after it starts, so an older job must be run again.',
  });
}

export const urlsCommand: CommandSpec = {
  name: 'urls',
  usage: 'dq urls <objectId>...',
  summary: 'ask pre-signed download URLs for objects; prints {"urls": {...}}',
  options: [],
  async run(ctx) {
    const ids = ctx.args.positionals.map((p) => requireId(p, 'objectId'));
    if (ids.length === 0) throw new UsageError(`missing <objectId>; usage: ${this.usage}`);
    printJson(ctx, await withClient(ctx, (c) => c.createUrls(ids, { signal: ctx.io.interrupt })));
    return EXIT.ok;
  },
};

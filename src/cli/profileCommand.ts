// dq profile <file or folder of result files>: each column's profile over the whole result
// (values, NULLs, distinct values, range, mean and quartiles, histogram, most common values),
// computed by the SQL engine (src/engine/resultProfile.ts) in a child process of its own.
// A readable block per column by default; the profile object with --json.

import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../client/errors';
import { EngineClient } from '../engine/engineClient';
import { isEngineError } from '../engine/engineErrors';
import type { ColumnProfile, ResultProfile } from '../engine/engineProtocol';
import { UsageError } from './argParser';
import type { CommandSpec } from './commandSpec';
import { printJson } from './dataCommands';
import { EXIT } from './exitCodes';
import { progressWanted, stderrLogger } from './globalOptions';
import { ProgressReporter } from './progressReporter';
import { printLines } from './terminalLine';
import { userPath } from './userPaths';

/** The files of a folder read as a result: those named as result files are, in name order. */
const RESULT_FILE = /\.(jsonl|json|csv|tsv|parquet)(\.gz)?$/i;
const SPARK = '▁▂▃▄▅▆▇█';

export const profileCommand: CommandSpec = {
  name: 'profile',
  usage: 'dq profile <file or folder of result files> [--columns a,b] [--where SQL] [--json]',
  summary: 'profile each column of downloaded result files: values, NULLs, distinct, range, histogram, common values',
  ownOptionsOnly: true,
  options: [
    { name: 'columns', kind: 'string', valueName: 'A,B', nonEmpty: true, description: 'profile these columns only (comma-separated names)' },
    { name: 'where', kind: 'string', valueName: 'SQL', nonEmpty: true, description: 'profile the rows that meet this condition over the columns, e.g. "value.workflow_state" = \'active\'' },
    { name: 'json', kind: 'boolean', description: 'the profile as one JSON object on stdout' },
    { name: 'progress', kind: 'boolean', negatable: true, description: 'progress on stderr (default: when stderr is a terminal)' },
    { name: 'help', kind: 'boolean', description: 'show help' },
  ],
  async run(ctx) {
    const given = ctx.args.positionals;
    if (given.length === 0) throw new UsageError(`missing <file or folder of result files>; usage: ${this.usage}`);
    if (given.length > 1) throw new UsageError(`one file or folder, not ${given.length}: put a result's files in one folder; usage: ${this.usage}`);
    const paths = await resultFiles(userPath(given[0], ctx.io));
    const o = ctx.args.options;
    const columns = typeof o.columns === 'string' ? o.columns.split(',').map((c) => c.trim()).filter((c) => c !== '') : undefined;
    const progress = new ProgressReporter(ctx.io.stderr, progressWanted(o, ctx.io));
    const engine = new EngineClient({
      hostScript: engineHostScript(),
      tempDir: path.join(os.tmpdir(), 'dq-engine'),
      keptCopiesMb: 0,
      logger: stderrLogger(ctx.io),
    });
    let profile: ResultProfile;
    try {
      let done = 0;
      profile = await engine.profileFiles({ paths }, typeof o.where === 'string' ? { where: o.where } : {}, {
        columns,
        onRows: (rows) => progress.message(`reading: ${rows.toLocaleString('en-US')} rows`),
        onColumn: (c) => progress.message(`profiled ${++done} column${done === 1 ? '' : 's'} (${c.name})`),
      }, ctx.io.interrupt);
    } catch (err) {
      throw asDqError(err);
    } finally {
      progress.done();
      await engine.dispose();
    }
    if (o.json) printJson(ctx, profile);
    else printLines(ctx.io.stdout, profileLines(profile));
    return EXIT.ok;
  },
};

/** A file, or a folder's result files in name order. */
async function resultFiles(target: string): Promise<string[]> {
  const stat = await fs.stat(target).catch(() => undefined);
  if (!stat) throw new DqError('io', `${target} does not exist.`, { hint: 'Name a result file or the folder dq download wrote.' });
  if (!stat.isDirectory()) return [target];
  const names = (await fs.readdir(target)).filter((n) => RESULT_FILE.test(n) && !n.startsWith('.'));
  if (names.length === 0) throw new DqError('io', `${target} holds no result files (.jsonl.gz, .csv.gz, .tsv.gz, .parquet).`, { hint: 'Name the folder dq download wrote.' });
  return names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).map((n) => path.join(target, n));
}

/** dist/engineHost.js beside the bundled dq; src/engine/engineHost.js beside the compiled sources. */
function engineHostScript(): string {
  const beside = path.join(__dirname, 'engineHost.js');
  return existsSync(beside) ? beside : path.join(__dirname, '..', 'engine', 'engineHost.js');
}

/** The engine's failures as dq's: a damaged or unreadable file is a local file's (exit 8), a wrong --columns or --where the user's (exit 2). */
function asDqError(err: unknown): unknown {
  if (!isEngineError(err)) return err;
  if (err.kind === 'cancelled') return new DqError('cancelled', err.message);
  if (err.kind === 'syntax') return new UsageError(err.message);
  return new DqError('io', err.message, { details: { engineKind: err.kind } });
}

/** The profile as a block of lines per column. */
export function profileLines(profile: ResultProfile): string[] {
  const lines = [`${count(profile.rows)} rows, ${profile.columns.length} column${profile.columns.length === 1 ? '' : 's'}`];
  for (const c of profile.columns) lines.push('', ...columnLines(c));
  return lines;
}

function columnLines(c: ColumnProfile): string[] {
  const lines = [`${c.name} (${c.type})`];
  const distinct = `${c.distinctApproximate ? 'about ' : ''}${count(c.distinct)} distinct`;
  const nonFinite = c.nonFinite ? `, ${count(c.nonFinite)} NaN or infinite` : '';
  lines.push(`  ${count(c.count)} values, ${count(c.nulls)} NULL, ${distinct}${nonFinite}`);
  // times have a histogram but no quartiles
  const times = c.histogram !== undefined && c.quantiles === undefined;
  if (c.min !== null || c.max !== null) lines.push(`  ${times ? 'earliest' : 'min'} ${shown(c.min)}, ${times ? 'latest' : 'max'} ${shown(c.max)}`);
  if (c.mean !== undefined && c.quantiles) lines.push(`  mean ${round(c.mean)}, quartiles ${round(c.quantiles.p25)} / ${round(c.quantiles.p50)} / ${round(c.quantiles.p75)} (approximate)`);
  if (c.histogram && c.histogram.length > 0) {
    const most = Math.max(...c.histogram.map((b) => b.count));
    const bars = c.histogram.map((b) => (b.count === 0 ? ' ' : SPARK[Math.min(SPARK.length - 1, Math.floor((b.count / most) * SPARK.length))])).join('');
    lines.push(`  histogram ${shown(c.histogram[0].from)} |${bars}| ${shown(c.histogram[c.histogram.length - 1].to)}`);
  }
  if (c.top && c.top.length > 0) {
    const width = Math.min(40, Math.max(...c.top.map((t) => shown(t.value).length)));
    lines.push('  most common:');
    for (const t of c.top) lines.push(`    ${shown(t.value).padEnd(width)}  ${count(t.count)}`);
  }
  return lines;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function round(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(6)));
}

/** A value on one line: text cut at 40 characters, its line breaks as \n. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? value.replace(/\r/g, '\\r').replace(/\n/g, '\\n') : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

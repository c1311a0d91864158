// dq find-column <text> [namespace...]: every column of every table of the namespaces whose
// name or description contains the text. Table lists and schemas come from the cache folder
// while fresh (4 hours, as in the extension) and are read again once stale.

import { isDqError } from '../client/errors';
import { findColumns, qualifiedName, readCatalog } from '../core/columnSearch';
import { systemClock } from '../core/clock';
import { DEFAULT_DATA_PREFIX } from '../core/contract';
import { SchemaCache } from '../core/schemaCache';
import { UsageError } from './argParser';
import { cacheFolder, FileCacheStorage } from './cacheFolder';
import type { CommandContext, CommandSpec } from './commandSpec';
import { printJson, withClient } from './dataCommands';
import { EXIT, exitCodeFor } from './exitCodes';
import { progressWanted, stderrLogger } from './globalOptions';
import { requireName } from './inputValidation';
import { ProgressReporter } from './progressReporter';
import { printLines } from './terminalLine';

/** The namespaces production deployments serve, searched when none are named. */
const DEFAULT_NAMESPACES = ['canvas', 'canvas_logs', 'catalog', 'new_quizzes'];
/** tables between two progress lines */
const PROGRESS_STEP = 25;

export const findColumnCommand: CommandSpec = {
  name: 'find-column',
  usage: 'dq find-column <text> [namespace...]',
  summary: 'find columns by part of their name or description in every table of the namespaces',
  options: [{ name: 'refresh', kind: 'boolean', description: 'read every table list and schema again instead of the cached copies' }],
  async run(ctx) {
    const [text, ...rest] = ctx.args.positionals;
    if (text === undefined || text.trim() === '') throw new UsageError(`missing <text>; usage: ${this.usage}`);
    const namespaces = rest.length > 0 ? rest.map((n) => requireName(n, 'namespace')) : DEFAULT_NAMESPACES;
    const logger = stderrLogger(ctx.io);
    const cache = new SchemaCache(new FileCacheStorage(cacheFolder(ctx.io.env), (problem) => logger.warn(problem)), systemClock);
    const connection = connectionKey(ctx);
    if (ctx.args.options.refresh) await cache.forget(connection);
    const progress = new ProgressReporter(ctx.io.stderr, progressWanted(ctx.args.options, ctx.io));
    const read = await withClient(ctx, (client) => {
      const opts = (signal: AbortSignal) => ({ signal: AbortSignal.any([signal, ctx.io.interrupt]) });
      return readCatalog(
        connection,
        namespaces,
        { listTables: (ns, signal) => client.listTables(ns, opts(signal)), getSchema: (ns, t, signal) => client.getSchema(ns, t, opts(signal)) },
        cache,
        { signal: ctx.io.interrupt, onProgress: (done, total) => (done === total || done % PROGRESS_STEP === 0) && progress.message(`schemas: ${done} of ${total} tables`) },
      );
    });
    progress.done();
    // a namespace that could not be listed is an error, as grep's missing file is: the others still answer
    const unlisted = new Set(read.unlisted.map((u) => u.problem));
    printLines(ctx.io.stderr, read.problems.map((problem) => `dq: ${unlisted.has(problem) ? '' : 'warning: '}${problem}`));
    const matches = findColumns(text, read.tables);
    if (ctx.args.options.json) {
      printJson(ctx, {
        matches: matches.map((m) => ({ namespace: m.namespace, table: m.table, column: m.column.name, type: m.column.type, key: m.column.part === 'key', description: m.column.description ?? null })),
        problems: read.problems,
      });
    } else {
      const width = Math.max(0, ...matches.map((m) => qualifiedName(m).length));
      printLines(ctx.io.stdout, matches.map((m) => `${qualifiedName(m).padEnd(width)}  ${m.column.type}  ${(m.column.description ?? '').replace(/\s+/g, ' ')}`.trimEnd()));
    }
    const [first] = read.unlisted;
    if (first) return isDqError(first.error) ? exitCodeFor(first.error) : EXIT.notFound;
    // nothing could be read at all: the warnings above say why
    return read.tables.length === 0 && read.problems.length > 0 ? EXIT.notFound : EXIT.ok;
  },
};

/** The cache of one service account: the gateway, its prefix, scope and client ID (never the secret). */
function connectionKey(ctx: CommandContext): string {
  const o = ctx.args.options;
  return JSON.stringify([o['base-url'], o.prefix ?? DEFAULT_DATA_PREFIX, o.scope ?? null, o['client-id']]);
}

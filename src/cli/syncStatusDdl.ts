// dq sync-status --to s3://bucket/prefix --ddl athena|trino|spark|duckdb [<namespace> [<table>...]]:
// per table of the lake target, the statements that make it queryable by that engine (see
// src/sync/lakeDdl.ts), read from each table's state; every table the target holds, those of a
// namespace, or the tables named. As text (comments and statements, ready to paste or pipe) or
// with --json. A target that is not a lake (a DuckDB file, a database server) is a usage error.

import { DqError } from '../client/errors';
import { DDL_ENGINES, ddlText, isDdlEngine, lakeDdl, type DdlEngine, type TableDdl } from '../sync/lakeDdl';
import type { LakeStateReader } from '../sync/lakeState';
import type { SyncedTable, SyncTarget } from '../sync/syncTarget';
import { UsageError, type OptionSpec } from './argParser';
import type { CommandContext } from './commandSpec';
import { printJson } from './dataCommands';
import { EXIT } from './exitCodes';
import { requireName } from './inputValidation';
import { printLines } from './terminalLine';

export const DDL_OPTION: OptionSpec = {
  name: 'ddl',
  kind: 'string',
  valueName: 'ENGINE',
  nonEmpty: true,
  description: `print, per table of a lake target (--to s3://bucket/prefix), the statements that make it queryable in ${DDL_ENGINES.join(', ')}; name a namespace and tables after it to print only theirs`,
};

/** What --ddl needs of a target: the tables it holds, and the lake target's states. */
export type DdlTarget = Pick<SyncTarget, 'label' | 'open' | 'close' | 'syncedTables'> & Partial<LakeStateReader>;

/** Prints the DDL of the tables asked for; `makeTarget` builds the target read-only (not yet opened). */
export async function printLakeDdl(ctx: CommandContext, makeTarget: () => DdlTarget): Promise<number> {
  const engine = ddlEngineOf(ctx.args.options.ddl);
  const wanted = wantedTables(ctx.args.positionals);
  const target = makeTarget();
  const reader = lakeReaderOf(target);
  let ddls: TableDdl[];
  await target.open(ctx.io.interrupt);
  try {
    ddls = await collect(target, reader, engine, wanted);
  } finally {
    await target.close();
  }
  if (ctx.args.options.json) {
    printJson(ctx, { target: target.label, engine, tables: ddls.map((d) => ({ namespace: d.namespace, table: d.table, name: d.name, notes: d.notes, statements: d.statements, schemaChanges: d.schemaChanges })) });
  } else if (ddls.length === 0) {
    printLines(ctx.io.stderr, [`dq: no table has been synced to ${target.label} yet.`]);
  } else {
    printLines(ctx.io.stdout, ddls.map(ddlText).join('\n').replace(/\n$/, '').split('\n'));
  }
  return EXIT.ok;
}

function ddlEngineOf(value: unknown): DdlEngine {
  const text = String(value).trim().toLowerCase();
  if (!isDdlEngine(text)) throw new UsageError(`--ddl takes ${DDL_ENGINES.join(', ')} (got "${String(value)}")`);
  return text;
}

interface Wanted {
  namespace?: string;
  /** none: every table (of the namespace) */
  tables: string[];
}

function wantedTables(positionals: readonly string[]): Wanted {
  const [ns, ...tables] = positionals;
  if (ns === undefined) return { tables: [] };
  return { namespace: requireName(ns, 'namespace'), tables: tables.map((t) => requireName(t, 'table')) };
}

function lakeReaderOf(target: DdlTarget): LakeStateReader {
  if (typeof target.lakeState !== 'function' || typeof target.tableLocation !== 'function') {
    throw new UsageError(`--ddl prints the statements for tables synced as Parquet files to object storage (--to s3://bucket/prefix); ${target.label} is not such a target`);
  }
  return { lakeState: target.lakeState.bind(target), tableLocation: target.tableLocation.bind(target) };
}

async function collect(target: DdlTarget, reader: LakeStateReader, engine: DdlEngine, wanted: Wanted): Promise<TableDdl[]> {
  let names: SyncedTable[];
  if (wanted.namespace !== undefined && wanted.tables.length > 0) {
    names = wanted.tables.map((table) => ({ namespace: wanted.namespace as string, table }));
  } else {
    names = (await target.syncedTables())
      .filter((t) => wanted.namespace === undefined || t.namespace === wanted.namespace)
      .sort((a, b) => compare(a.namespace, b.namespace) || compare(a.table, b.table));
    if (wanted.namespace !== undefined && names.length === 0) {
      throw new DqError('notFound', `No table of namespace ${wanted.namespace} has been synced to ${target.label}.`, {
        hint: `dq sync-status --to ${target.label} lists the tables synced there.`,
      });
    }
  }
  const ddls: TableDdl[] = [];
  for (const { namespace, table } of names) {
    const state = await reader.lakeState(namespace, table);
    if (!state) {
      // a table listed a moment ago and gone now is no error when every table was asked for
      if (wanted.tables.length === 0) continue;
      throw new DqError('notFound', `${namespace}.${table} has not been synced to ${target.label}.`, {
        hint: `dq sync-status --to ${target.label} lists the tables synced there.`,
      });
    }
    ddls.push(lakeDdl(engine, state, reader.tableLocation(namespace, table)));
  }
  return ddls;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// Finding a column across every table of a set of namespaces: reads the table lists and
// schemas through the cache (fresh copies are used as they are, stale or missing ones are
// read again, a stale copy stands in quietly when that read fails, and what was read is used
// even when it cannot be kept), then matches names and descriptions. The caller supplies the
// service calls, so its limiter paces them.

import type { SchemaEnvelope } from './contract';
import { columnsOf, SchemaError, type Column } from './schema';
import type { Cached, SchemaCache } from './schemaCache';

export interface CatalogSource {
  listTables(namespace: string, signal: AbortSignal): Promise<string[]>;
  getSchema(namespace: string, table: string, signal: AbortSignal): Promise<SchemaEnvelope>;
}

export interface TableColumns {
  namespace: string;
  table: string;
  columns: Column[];
}

export interface CatalogRead {
  tables: TableColumns[];
  /** what could not be read, one sentence each */
  problems: string[];
  /** the namespaces whose tables could not be listed (misspelt, or not reached): the error, and its sentence in `problems` */
  unlisted: Array<{ namespace: string; error: unknown; problem: string }>;
}

export interface ColumnMatch {
  namespace: string;
  table: string;
  column: Column;
}

export interface CatalogReadOptions {
  signal: AbortSignal;
  /** tables whose schema is known so far, of all tables listed so far */
  onProgress?: (done: number, total: number) => void;
  /** schema reads at once */
  concurrency?: number;
}

export async function readCatalog(
  connection: string,
  namespaces: readonly string[],
  source: CatalogSource,
  cache: SchemaCache,
  options: CatalogReadOptions,
): Promise<CatalogRead> {
  const problems: string[] = [];
  const unlisted: CatalogRead['unlisted'] = [];
  let unsavedSaid = false;
  const unsaved = (err: unknown): void => {
    if (unsavedSaid) return;
    unsavedSaid = true;
    problems.push(`What was read could not be kept in the cache, so it is read again next time: ${messageOf(err)}`);
  };
  const lists = await Promise.all(
    namespaces.map(async (namespace) => {
      const tables = await throughCache(
        cache.tables(connection, namespace),
        cache,
        () => source.listTables(namespace, options.signal),
        (value) => cache.saveTables(connection, namespace, value),
        (err) => {
          const problem = `The tables of ${namespace} could not be listed: ${messageOf(err)}`;
          unlisted.push({ namespace, error: err, problem });
          problems.push(problem);
        },
        options.signal,
        unsaved,
      );
      return (tables ?? []).map((table) => ({ namespace, table }));
    }),
  );
  const wanted = lists.flat();
  const found: (TableColumns | undefined)[] = new Array(wanted.length);
  let next = 0;
  let done = 0;
  options.onProgress?.(0, wanted.length);
  const worker = async (): Promise<void> => {
    while (next < wanted.length) {
      const index = next++;
      const { namespace, table } = wanted[index];
      const envelope = await throughCache(
        cache.schema(connection, namespace, table),
        cache,
        () => source.getSchema(namespace, table, options.signal),
        (value) => cache.saveSchema(connection, namespace, table, value),
        (err) => problems.push(`The schema of ${namespace}.${table} could not be read: ${messageOf(err)}`),
        options.signal,
        unsaved,
      );
      if (envelope) found[index] = { namespace, table, columns: readableColumns(envelope, `${namespace}.${table}`, problems) };
      options.onProgress?.(++done, wanted.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  return { tables: found.filter((t): t is TableColumns => t !== undefined), problems, unlisted };
}

/** Columns whose name (first) or description contains `text`, ignoring case. */
export function findColumns(text: string, tables: readonly TableColumns[]): ColumnMatch[] {
  const needle = text.trim().toLowerCase();
  const byName: ColumnMatch[] = [];
  const byDescription: ColumnMatch[] = [];
  for (const { namespace, table, columns } of tables) {
    for (const column of columns) {
      if (column.name.toLowerCase().includes(needle)) byName.push({ namespace, table, column });
      else if (column.description?.toLowerCase().includes(needle)) byDescription.push({ namespace, table, column });
    }
  }
  return [...byName, ...byDescription];
}

/** `canvas.users.sis_user_id` */
export function qualifiedName(match: ColumnMatch): string {
  return `${match.namespace}.${match.table}.${match.column.name}`;
}

async function throughCache<T>(
  held: Cached<T> | undefined,
  cache: SchemaCache,
  read: () => Promise<T>,
  save: (value: T) => Promise<unknown>,
  report: (err: unknown) => void,
  signal: AbortSignal,
  unsaved: (err: unknown) => void,
): Promise<T | undefined> {
  if (held && !cache.isStale(held)) return held.value;
  let value: T;
  try {
    value = await read();
  } catch (err) {
    if (signal.aborted) throw err;
    if (!held) report(err);
    return held?.value;
  }
  // what was read stands even when it cannot be kept
  await save(value).catch(unsaved);
  return value;
}

function readableColumns(envelope: SchemaEnvelope, name: string, problems: string[]): Column[] {
  try {
    return columnsOf(envelope, name);
  } catch (err) {
    // a SchemaError names the table itself
    problems.push(err instanceof SchemaError ? err.message : `The schema of ${name} could not be read: ${messageOf(err)}`);
    return [];
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// Schemas: find-column over every table of the sample namespaces, as `dq find-column` and the
// Find Column command do it (readCatalog through the schema cache, then findColumns), through
// the client against an emulator with the service's real limits. Cold: an empty cache, so
// every table list and schema is read from the service. Warm: a fresh cache over the same
// cache folder, as the next dq run or window has, answering without a call.
// Baselines: cold, the same reads made one after another by a plain loop of listTables and
// getSchema; warm, the least any cache must do, reading and parsing its file; both then look
// for the column the same way.

import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FileCacheStorage } from '../../src/cli/cacheFolder';
import { DataQueryClient } from '../../src/client/dataQueryClient';
import { systemClock } from '../../src/core/clock';
import { findColumns, readCatalog, type TableColumns } from '../../src/core/columnSearch';
import type { SchemaEnvelope } from '../../src/core/contract';
import { columnsOf } from '../../src/core/schema';
import { SchemaCache } from '../../src/core/schemaCache';
import { startEmulator, type RunningEmulator } from '../../src/emulator/emulator';
import { compared, median, type Figure } from '../figure';

const NAMESPACES = ['canvas', 'canvas_logs', 'catalog', 'new_quizzes'];
const TEXT = 'user_id';
const CONNECTION = 'bench';

interface Search {
  ms: number;
  matches: number;
  tables: number;
  /** calls the emulator answered */
  calls: number;
}

export const schemasFigure: Figure = {
  name: 'schemas',
  title: 'Schemas: find-column over all tables, cold and warm',
  async run(ctx) {
    const repeats = ctx.quick ? 1 : 5;
    const cold: Search[] = [];
    const loop: Search[] = [];
    const warm: Search[] = [];
    const file: Search[] = [];
    for (let i = 0; i < repeats; i++) {
      const folder = join(ctx.scratch, `schema-cache-${i}`);
      cold.push(await withEmulator((e) => searchThroughCache(e, folder)));
      loop.push(await withEmulator((e) => searchByLoop(e)));
      warm.push(await withEmulator((e) => searchThroughCache(e, folder)));
      file.push(await searchCacheFile(folder));
      await rm(folder, { recursive: true, force: true });
      ctx.log(`schemas: cold ${cold[i].ms.toFixed(1)} ms (loop ${loop[i].ms.toFixed(1)} ms), warm ${warm[i].ms.toFixed(2)} ms (file ${file[i].ms.toFixed(2)} ms)`);
    }
    const all = [...cold, ...loop, ...warm, ...file];
    if (new Set(all.map((s) => s.matches)).size !== 1) throw new Error(`the searches found different columns: ${all.map((s) => s.matches).join(', ')}`);
    if (warm.some((s) => s.calls > 0)) throw new Error('the warm search called the service');
    const { tables, matches, calls } = cold[0];
    const ms = (runs: Search[]): number => median(runs.map((s) => s.ms));
    return [
      compared(`cold: "${TEXT}" in ${tables} tables, ${calls} calls, ${matches} columns found`, ms(cold), 'ms', {
        label: 'the same calls one by one',
        value: ms(loop),
      }),
      compared('warm: a fresh cache over the same folder, no call', ms(warm), 'ms', { label: 'read and parse the cache file', value: ms(file) }),
    ];
  },
};

/** A fresh emulator (so each run meets the service's limits afresh) and a client of it. */
async function withEmulator(use: (e: { emulator: RunningEmulator; client: DataQueryClient }) => Promise<Search>): Promise<Search> {
  const emulator = await startEmulator({ namespaces: NAMESPACES });
  const client = new DataQueryClient({
    baseUrl: emulator.baseUrl,
    dataPrefix: emulator.dataPrefix,
    credentials: async () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret }),
  });
  try {
    await client.testConnection(); // both sides start signed in
    const before = emulator.requestLog.entries().length;
    const search = await use({ emulator, client });
    return { ...search, calls: emulator.requestLog.entries().length - before };
  } finally {
    await client.close();
    await emulator.close();
  }
}

async function searchThroughCache({ client }: { client: DataQueryClient }, folder: string): Promise<Search> {
  const signal = new AbortController().signal;
  const started = performance.now();
  const cache = new SchemaCache(new FileCacheStorage(folder), systemClock);
  const read = await readCatalog(
    CONNECTION,
    NAMESPACES,
    { listTables: (ns, s) => client.listTables(ns, { signal: s }), getSchema: (ns, t, s) => client.getSchema(ns, t, { signal: s }) },
    cache,
    { signal },
  );
  if (read.problems.length > 0) throw new Error(read.problems.join('; '));
  const matches = findColumns(TEXT, read.tables).length;
  return { ms: performance.now() - started, matches, tables: read.tables.length, calls: 0 };
}

async function searchByLoop({ client }: { client: DataQueryClient }): Promise<Search> {
  const started = performance.now();
  const tables: TableColumns[] = [];
  for (const namespace of NAMESPACES) {
    for (const table of await client.listTables(namespace)) {
      tables.push({ namespace, table, columns: columnsOf(await client.getSchema(namespace, table)) });
    }
  }
  const matches = findColumns(TEXT, tables).length;
  return { ms: performance.now() - started, matches, tables: tables.length, calls: 0 };
}

/** The cache file read and parsed by hand, and the same search over what it holds. */
async function searchCacheFile(folder: string): Promise<Search> {
  const started = performance.now();
  const names = await readdir(folder);
  if (names.length !== 1) throw new Error(`expected one cache file in ${folder}, found ${names.length}`);
  const held = JSON.parse(await readFile(join(folder, names[0]), 'utf8')) as { schemas: Record<string, { value: SchemaEnvelope }> };
  const tables = Object.entries(held.schemas).map(([key, entry]): TableColumns => {
    const [namespace, table] = key.split('/');
    return { namespace, table, columns: columnsOf(entry.value) };
  });
  const matches = findColumns(TEXT, tables).length;
  return { ms: performance.now() - started, matches, tables: tables.length, calls: 0 };
}

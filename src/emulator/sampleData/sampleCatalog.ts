// The emulator's namespaces and tables. Namespaces can be restricted by option; the `rows`
// option sizes `canvas_logs.web_logs`. `canvas` holds the service's whole table list (90
// tables), or with `canvasTables: 'core'` only the seven written out in canvasTables.ts. The
// generated tables are made when first asked for, so that the emulator starts quickly.

import { canvasServiceTables, canvasTables } from './canvasTables';
import { catalogTables } from './catalogTables';
import { logTables } from './logTables';
import { newQuizzesTables } from './newQuizzesTables';
import type { DeferredTable, TableDef } from './tableModel';

export const SAMPLE_NAMESPACES = ['canvas', 'canvas_logs', 'catalog', 'new_quizzes'] as const;

/** `service`: the service's whole `canvas` table list; `core`: its seven written-out tables. */
export type CanvasTableSet = 'service' | 'core';

export class SampleCatalog {
  private readonly byNamespace = new Map<string, Map<string, TableDef | DeferredTable>>();

  constructor(options: { rows?: number; namespaces?: readonly string[]; canvasTables?: CanvasTableSet } = {}) {
    const canvas = options.canvasTables === 'core' ? canvasTables() : [...canvasTables(), ...canvasServiceTables()];
    const all: (TableDef | DeferredTable)[] = [...canvas, ...logTables(options.rows), ...catalogTables(), ...newQuizzesTables()];
    const wanted = new Set(options.namespaces ?? SAMPLE_NAMESPACES);
    for (const ns of wanted) {
      if (!SAMPLE_NAMESPACES.includes(ns as (typeof SAMPLE_NAMESPACES)[number])) {
        throw new Error(`Unknown sample namespace "${ns}"; choose from ${SAMPLE_NAMESPACES.join(', ')}.`);
      }
    }
    for (const table of all) {
      if (!wanted.has(table.namespace)) continue;
      let tables = this.byNamespace.get(table.namespace);
      if (!tables) this.byNamespace.set(table.namespace, (tables = new Map()));
      tables.set(table.name, table);
    }
  }

  namespaces(): string[] {
    return [...this.byNamespace.keys()];
  }

  hasNamespace(ns: string): boolean {
    return this.byNamespace.has(ns);
  }

  tables(ns: string): string[] | undefined {
    const tables = this.byNamespace.get(ns);
    return tables ? [...tables.keys()].sort() : undefined;
  }

  table(ns: string, name: string): TableDef | undefined {
    const tables = this.byNamespace.get(ns);
    const found = tables?.get(name);
    if (!found || !('build' in found)) return found;
    const built = found.build();
    tables?.set(name, built);
    return built;
  }

  /** Puts a new definition of a table in place of its current one. */
  replace(table: TableDef): void {
    const tables = this.byNamespace.get(table.namespace);
    if (!tables?.has(table.name)) throw new Error(`There is no table ${table.namespace}.${table.name} to replace.`);
    tables.set(table.name, table);
  }
}

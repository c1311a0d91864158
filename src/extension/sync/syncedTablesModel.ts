// Which tables the sync target holds, and the stage of those being synced now: the one source
// the explorer's marks, the commands and the SQL console read. Fed by the reports of runs in
// this window and by the target's meta table (read through the sync host). The meta table
// records the service each table came from (base URL, data prefix and scope, or the sample
// data) and a tag of the credentials' client ID, so a table is marked under the connections
// that reach that service, whoever synced it (this editor or `dq sync`): those are the ones
// whose sync goes on from its point. The explorer reads no secrets, so a connection's client
// tag is known only from a run of it in this window; until then the service alone decides. A
// row from before sources were recorded falls back to what this editor remembers (in global
// storage) of which connection synced it, or, synced elsewhere, is marked under every
// connection. Pure: no `vscode` import.

import type { Clock } from '../../core/clock';
import { Emitter } from '../../core/emitter';
import type { SyncProgress, TableSyncReport } from '../../sync/syncReport';
import type { SyncStateSummary } from '../../sync/syncProtocol';
import { clientTagOfSource, compareSources, serviceOfSource } from '../../sync/syncSource';
import type { SyncedTableState } from './syncTexts';

export interface SyncedTable extends SyncedTableState {
  namespace: string;
  table: string;
}

/**
 * The source a connection's syncs record (see syncSourceOf), by connection name, as far as it
 * is known without reading secrets (without client tag, then); undefined for a name not in the
 * settings.
 */
export type SourceOfConnection = (connection: string) => string | undefined;

/** The tables whose mark may have changed: only those are redrawn. */
export interface SyncedChange {
  tables: { namespace: string; table: string }[];
}

/** Where the origins of synced tables are kept: VS Code's globalState, or a map in tests. */
export interface OriginMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

const ORIGINS_KEY = 'dataQuery.sync.origins';

function tableKey(namespace: string, table: string): string {
  return `${namespace}.${table}`;
}

export class SyncedTablesModel {
  private target: { spec: string; label: string } | undefined;
  private readonly states = new Map<string, SyncedTable>();
  /** `<connection>\n<namespace>.<table>` -> the latest progress of a run under way */
  private readonly activity = new Map<string, SyncProgress>();
  private readonly changed = new Emitter<SyncedChange>();
  readonly onDidChange = this.changed.event;
  private sourceOf?: SourceOfConnection;
  /** the full source (with client tag) each connection's last run in this window recorded */
  private readonly runSources = new Map<string, string>();

  constructor(
    private readonly memento: OriginMemento,
    private readonly clock: Clock,
  ) {}

  /** How a connection's source is found: from then on a row's source decides under which connections it is marked. */
  useSourceOf(sourceOf: SourceOfConnection): void {
    this.sourceOf = sourceOf;
  }

  /** The target whose tables the model holds. */
  get targetLabel(): string | undefined {
    return this.target?.label;
  }

  /** Switches to another target (the setting changed): its tables are unknown until read. */
  useTarget(spec: string, label: string): void {
    if (this.target?.spec === spec) {
      this.target.label = label;
      return;
    }
    this.target = { spec, label };
    const held = [...this.states.values()];
    this.states.clear();
    if (held.length > 0) this.changed.fire({ tables: held.map(({ namespace, table }) => ({ namespace, table })) });
  }

  /** The meta table's rows of `spec`, read just now: they replace what was known. */
  replaceStates(spec: string, rows: readonly SyncStateSummary[]): void {
    if (this.target?.spec !== spec) return;
    const before = new Map(this.states);
    this.states.clear();
    for (const row of rows) {
      this.states.set(tableKey(row.namespace, row.table), {
        namespace: row.namespace,
        table: row.table,
        point: row.point,
        rows: row.rows,
        schemaVersion: row.schemaVersion,
        ranAt: row.ranAt,
        ...(row.source === undefined ? {} : { source: row.source }),
      });
    }
    const changed = [...new Set([...before.keys(), ...this.states.keys()])]
      .filter((key) => JSON.stringify(before.get(key)) !== JSON.stringify(this.states.get(key)))
      .map((key) => (before.get(key) ?? this.states.get(key)) as SyncedTable);
    if (changed.length > 0) this.changed.fire({ tables: changed.map(({ namespace, table }) => ({ namespace, table })) });
  }

  /**
   * A run from `connection` ended: its synced tables are marked at once, before the meta table
   * is read again. `source` is what the run records (with the client tag of its credentials).
   */
  async applyReports(spec: string, connection: string, reports: readonly TableSyncReport[], source?: string): Promise<void> {
    if (source !== undefined) this.runSources.set(connection, source);
    const origins = { ...this.origins() };
    const touched: SyncedChange['tables'] = [];
    for (const r of reports) {
      this.activity.delete(`${connection}\n${tableKey(r.namespace, r.table)}`);
      touched.push({ namespace: r.namespace, table: r.table });
      if (r.outcome !== 'synced' && r.outcome !== 'unchanged') continue;
      origins[originKey(spec, r.namespace, r.table)] = connection;
      if (this.target?.spec !== spec || !r.point || r.rows === undefined) continue;
      const before = this.states.get(tableKey(r.namespace, r.table));
      // the run recorded its connection's source (a row without one adopts it)
      const recorded = source ?? this.sourceOf?.(connection) ?? before?.source;
      this.states.set(tableKey(r.namespace, r.table), {
        namespace: r.namespace,
        table: r.table,
        point: r.point,
        rows: r.rows,
        schemaVersion: r.schemaVersion ?? before?.schemaVersion,
        ranAt: new Date(this.clock.now()).toISOString(),
        ...(recorded === undefined ? {} : { source: recorded }),
      });
    }
    await this.memento.update(ORIGINS_KEY, origins);
    this.changed.fire({ tables: touched });
  }

  /** A progress event of a run from `connection`; a `done` one ends the table's activity. */
  progress(connection: string, p: SyncProgress): void {
    const key = `${connection}\n${tableKey(p.namespace, p.table)}`;
    if (p.stage === 'done') this.activity.delete(key);
    else this.activity.set(key, p);
    this.changed.fire({ tables: [{ namespace: p.namespace, table: p.table }] });
  }

  /** A run from `connection` ended however it ended: none of its tables is under way any more. */
  endActivity(connection: string, namespace: string): void {
    const prefix = `${connection}\n${namespace}.`;
    const ended = [...this.activity.keys()].filter((k) => k.startsWith(prefix));
    for (const key of ended) this.activity.delete(key);
    if (ended.length > 0) this.changed.fire({ tables: ended.map((k) => ({ namespace, table: k.slice(prefix.length) })) });
  }

  /**
   * The table as the target holds it, for a connection's node: only when it came from that
   * connection's service, and from its credentials where those are known (a sync from it goes
   * on from the table's point). A row without a source: not when another connection of this
   * editor synced it.
   */
  stateOf(connection: string, namespace: string, table: string): SyncedTable | undefined {
    const state = this.states.get(tableKey(namespace, table));
    if (!state || !this.target) return undefined;
    if (state.source !== undefined && this.sourceOf) {
      const mine = this.connectionSource(connection);
      return mine !== undefined && continuesFrom(mine, state.source) ? state : undefined;
    }
    const origin = this.origins()[originKey(this.target.spec, namespace, table)];
    return origin === undefined || origin === connection ? state : undefined;
  }

  /** The stage of a run under way on that table from that connection. */
  activityOf(connection: string, namespace: string, table: string): SyncProgress | undefined {
    return this.activity.get(`${connection}\n${tableKey(namespace, table)}`);
  }

  /** Every table the target holds, by namespace and name. */
  list(): SyncedTable[] {
    return [...this.states.values()].sort((a, b) => tableKey(a.namespace, a.table).localeCompare(tableKey(b.namespace, b.table)));
  }

  dispose(): void {
    this.changed.dispose();
  }

  /**
   * The connection's source: the one its last run here recorded, while the settings still
   * name that service (the credentials are known from it), else the service alone.
   */
  private connectionSource(connection: string): string | undefined {
    const configured = this.sourceOf?.(connection);
    if (configured === undefined) return undefined;
    const ran = this.runSources.get(connection);
    return ran !== undefined && serviceOfSource(ran) === serviceOfSource(configured) ? ran : configured;
  }

  private origins(): Record<string, string> {
    return this.memento.get<Record<string, string>>(ORIGINS_KEY) ?? {};
  }
}

/**
 * Whether a sync with source `mine` goes on from a row that records `stored`: the same source,
 * one it adopts, or, when `mine` has no client tag (the credentials are not known here), the
 * same service.
 */
function continuesFrom(mine: string, stored: string): boolean {
  const match = compareSources(stored, mine);
  return match === 'same' || match === 'adopt' || (match === 'otherCredentials' && clientTagOfSource(mine) === undefined);
}

function originKey(spec: string, namespace: string, table: string): string {
  return `${spec}\n${tableKey(namespace, table)}`;
}

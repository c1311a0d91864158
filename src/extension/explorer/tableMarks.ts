// A source of marks for the Explorer view's tables, beyond their schema (the sync's point and
// row count, or a sync under way): the explorer asks it while it draws a table, and draws again
// the tables it names when their marks change. The explorer has none unless one is passed in.

import type { Event } from '../../core/emitter';
import type { SyncedTableMark } from './explorerRenderer';

export interface TableMarks {
  /** The mark of a table at `now` (ms), or undefined for none. */
  markOf(connection: string, namespace: string, table: string, now: number): SyncedTableMark | undefined;
  /** Fires with the tables whose marks may have changed, in any connection. */
  readonly onDidChangeMarks: Event<readonly { namespace: string; table: string }[]>;
}

// What the grid's status says while the rows on screen have not arrived yet: which work is
// under way (a sort, a filter, or plain reading) and, after a second, for how long.

import { engineView } from './filterText';
import type { ViewState } from './previewProtocol';

/** Rows that arrive sooner than this never show a busy status, so quick pages do not flicker. */
export const BUSY_AFTER_MS = 300;

function sameSort(a: ViewState, b: ViewState): boolean {
  return JSON.stringify(a.sort) === JSON.stringify(b.sort);
}

/** True when two views ask the engine for the same rows in the same order. */
export function sameView(a: ViewState, b: ViewState): boolean {
  const asked = (v: ViewState): string => {
    const view = engineView(v);
    return JSON.stringify({ ...view, filters: [...(view.filters ?? [])].sort((x, y) => x.column.localeCompare(y.column)) });
  };
  return asked(a) === asked(b);
}

/**
 * The status while `pending` is being read, `elapsedMs` after it was asked for; `shown` is the
 * view whose rows were on screen before (undefined when nothing was shown yet).
 */
export function busyText(pending: ViewState, shown: ViewState | undefined, elapsedMs: number): string {
  const work = !shown || sameView(pending, shown) ? 'Reading rows' : sameSort(pending, shown) ? 'Filtering' : 'Sorting';
  const seconds = Math.floor(elapsedMs / 1000);
  return seconds >= 1 ? `${work}… ${seconds} s` : `${work}…`;
}

// What a lake table keeps and what goes. A run, under the table's lock, first deletes the
// objects under the table's `data/` and `_dq/keys/` folders that its state does not account
// for (neither its files nor its retired files): the uploads of a run that was killed or
// failed before its state was written, which no manifest ever listed. Files a run retires
// (rewritten, compacted, or replaced by a snapshot) stay for the grace period, for queries
// that started on an older manifest, and are deleted by the first run after it.

import type { Logger } from '../core/logger';
import { accountedKeys, type TableLayout } from './lakeLayout';
import type { LakeState, RetiredFile } from './lakeState';
import type { ObjectStore } from './objectStore';

/** The objects of `data/` and `_dq/keys/` that the state does not account for. */
export async function findStrays(store: ObjectStore, layout: TableLayout, state: LakeState | undefined, signal?: AbortSignal): Promise<string[]> {
  const accounted = accountedKeys(layout, state);
  const strays: string[] = [];
  for (const folder of [layout.data, layout.keys]) {
    for (const o of await store.list(folder, signal)) if (!accounted.has(o.key)) strays.push(o.key);
  }
  return strays;
}

export async function removeStrays(store: ObjectStore, layout: TableLayout, strays: string[], logger: Logger, signal?: AbortSignal): Promise<void> {
  if (strays.length === 0) return;
  logger.info(`${layout.folder}: deleting ${strays.length} object(s) no state lists (left by a sync that stopped before its end).`);
  await store.delete(strays, signal);
}

/** The retired files past the grace period (`retainMs` after they were retired), and those still kept. */
export function expiredFiles(retired: readonly RetiredFile[], now: number, retainMs: number): { expired: RetiredFile[]; kept: RetiredFile[] } {
  const expired: RetiredFile[] = [];
  const kept: RetiredFile[] = [];
  for (const f of retired) (Date.parse(f.retiredAt) + retainMs <= now ? expired : kept).push(f);
  return { expired, kept };
}

/** Deletes retired files and their companions; a failure only delays it to the next run (they are strays then). */
export async function deleteRetired(store: ObjectStore, layout: TableLayout, files: readonly RetiredFile[], logger: Logger): Promise<void> {
  if (files.length === 0) return;
  try {
    await store.delete(files.flatMap((f) => [f.key, layout.keysOf(f.key)]));
  } catch (err) {
    logger.warn(`${layout.folder}: deleting ${files.length} retired file(s) failed (${err instanceof Error ? err.message : String(err)}); the next sync deletes them.`);
  }
}

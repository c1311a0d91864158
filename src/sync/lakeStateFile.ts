// Reading and writing a lake table's `_dq/state.json` (the commit point of a run) and its
// manifest. The state is written with the condition that it is still the one the run read
// (where the store enforces conditions; where it does not, the table's lock is what keeps a
// second writer out, and the state is read back to confirm it is this run's). The manifest
// follows the state; a run that finds it disagreeing (a run killed between the two) writes
// it again from the state before anything else.

import { DqError, isDqError } from '../client/errors';
import type { ObjectStore } from './objectStore';
import { manifestText, type TableLayout } from './lakeLayout';
import { LAKE_STATE_FORMAT, type LakeState } from './lakeState';

export interface ReadState {
  state?: LakeState;
  etag?: string;
}

/** The table's state, with the ETag it was read at; none for a table never synced. */
export async function readLakeState(store: ObjectStore, layout: TableLayout, signal?: AbortSignal): Promise<ReadState> {
  const got = await store.getBytes(layout.state, signal);
  if (!got) return {};
  return { state: parseState(got.body, `${store.root}/${layout.state}`), etag: got.etag };
}

function parseState(body: Buffer, where: string): LakeState {
  let state: LakeState;
  try {
    state = JSON.parse(body.toString('utf8')) as LakeState;
  } catch (err) {
    throw new DqError('invalidResponse', `The sync state ${where} is not JSON.`, {
      hint: 'Something other than dq wrote it: restore it, or delete the table\'s folder and sync the table with --resnapshot.',
      cause: err,
    });
  }
  if (state?.format !== LAKE_STATE_FORMAT || !Array.isArray(state.files) || !Array.isArray(state.retired)) {
    throw new DqError('invalidResponse', `The sync state ${where} is not one this version of dq reads (format ${JSON.stringify(state?.format)}).`, {
      hint: 'Sync with the version of dq that wrote it, or delete the table\'s folder and sync the table with --resnapshot.',
    });
  }
  state.schemaChanges ??= [];
  return state;
}

/**
 * Writes the new state, the run's commit point: only over the state the run started from
 * (`etag`, or absent when there was none) where the store enforces conditions; read back where it does not.
 */
export async function writeLakeState(store: ObjectStore, layout: TableLayout, state: LakeState, startedFrom: ReadState, signal?: AbortSignal): Promise<void> {
  const condition = startedFrom.state ? (startedFrom.etag ? { ifEtag: startedFrom.etag } : undefined) : { ifAbsent: true as const };
  const written = await store.putBytes(layout.state, `${JSON.stringify(state, null, 1)}\n`, { contentType: 'application/json', condition, signal });
  if (written.conflict) throw changedUnder(store, layout);
  if (!store.enforcesConditions) {
    const back = await readLakeState(store, layout, signal);
    if (back.state?.run !== state.run) throw changedUnder(store, layout);
  }
}

function changedUnder(store: ObjectStore, layout: TableLayout): DqError {
  return new DqError('io', `Another sync wrote ${store.root}/${layout.state} while this one ran; this run's files are not part of the table.`, {
    hint: 'Two syncs of one table ran at once (one whose lock had run out): sync the table again once the other has finished.',
  });
}

/** Writes the manifest from the state when it says anything else; returns whether it wrote it. */
export async function mendManifest(store: ObjectStore, layout: TableLayout, state: LakeState, signal?: AbortSignal): Promise<boolean> {
  const want = manifestText(store.root, state.files);
  const have = await store.getBytes(layout.manifest, signal);
  if (have && have.body.toString('utf8') === want) return false;
  await writeManifest(store, layout, state, signal);
  return true;
}

export async function writeManifest(store: ObjectStore, layout: TableLayout, state: LakeState, signal?: AbortSignal): Promise<void> {
  await store.putBytes(layout.manifest, manifestText(store.root, state.files), { contentType: 'text/plain', signal });
}

/** The states of every table under the prefix, by namespace and table. */
export async function listLakeStates(store: ObjectStore, prefix: string, signal?: AbortSignal): Promise<LakeState[]> {
  const from = prefix ? `${prefix}/` : '';
  const keys = (await store.list(from, signal)).map((o) => o.key).filter((k) => isStateKey(k.slice(from.length)));
  const states: LakeState[] = [];
  for (const key of keys) {
    const got = await store.getBytes(key, signal);
    if (got) states.push(parseState(got.body, `${store.root}/${key}`));
  }
  return states.sort((a, b) => (a.namespace === b.namespace ? cmp(a.table, b.table) : cmp(a.namespace, b.namespace)));
}

/** `<namespace>/<table>/_dq/state.json`, right under the prefix */
function isStateKey(rest: string): boolean {
  const parts = rest.split('/');
  return parts.length === 4 && parts[2] === '_dq' && parts[3] === 'state.json';
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A store failure as the DqError the runner reports: a DqError passes as it is. */
export function storeFailure(err: unknown, what: string): DqError {
  if (isDqError(err)) return err;
  return new DqError('io', `The object store failed on ${what}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, {
    hint: 'The table stays at its last complete sync; sync it again.',
    cause: err,
  });
}

// Where the data-lake target keeps each table, under `<prefix>/<namespace>/<table>/`: the
// Parquet files under `data/`, a small companion per data file holding only its key columns
// under `_dq/keys/` (how a run of changes finds the files that really hold a changed key
// without reading them whole), the state `_dq/state.json`, the lock `_dq/lock` and the Hive
// symlink manifest `_symlink_format_manifest/manifest`. Data file names hold the run that
// wrote them, so no two runs ever write one name. Also the sizes the target keeps files
// between, which tests shrink.

import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import type { LakeFile, LakeState } from './lakeState';

const MiB = 1024 * 1024;

/** The sizes and times the lake target works with; tests inject smaller ones. */
export interface LakeTuning {
  /** a data file holds about this many bytes at most (rows per file are estimated) */
  maxFileBytes: number;
  /** files under this size count as small */
  smallFileBytes: number;
  /** more small files than this in a table's state start a compaction */
  smallFilesToCompact: number;
  /** a lock not renewed for this long is taken over */
  lockTtlMs: number;
  /** rows written to estimate the bytes a row takes in Parquet */
  sampleRows: number;
  /** the memory DuckDB may take for one table's run before it spills to the work folder */
  memoryBytes: number;
}

export const DEFAULT_TUNING: LakeTuning = {
  maxFileBytes: 512 * MiB,
  smallFileBytes: 64 * MiB,
  smallFilesToCompact: 16,
  lockTtlMs: 120_000,
  sampleRows: 20_000,
  // several tables sync at once (4 by default), each in an instance of its own: a share of the memory each
  memoryBytes: Math.max(256 * MiB, Math.floor((os.totalmem() * 0.6) / 4)),
};

/** One folder name in an object key: the name as given, with `/` and `%` escaped so no name reaches into another's folder. */
function segment(name: string): string {
  const escaped = name.replace(/%/g, '%25').replace(/\//g, '%2F');
  return escaped === '.' || escaped === '..' ? escaped.replace(/\./g, '%2E') : escaped;
}

/** The object keys of one table's folder. */
export class TableLayout {
  /** `<prefix>/<namespace>/<table>/` */
  readonly folder: string;
  readonly state: string;
  readonly lock: string;
  readonly manifest: string;
  readonly data: string;
  readonly keys: string;

  constructor(prefix: string, namespace: string, table: string) {
    this.folder = `${prefix ? `${prefix}/` : ''}${segment(namespace)}/${segment(table)}/`;
    this.state = `${this.folder}_dq/state.json`;
    this.lock = `${this.folder}_dq/lock`;
    this.manifest = `${this.folder}_symlink_format_manifest/manifest`;
    this.data = `${this.folder}data/`;
    this.keys = `${this.folder}_dq/keys/`;
  }

  /** `data/<run>-<n>.parquet` */
  dataFile(run: string, n: number): string {
    return `${this.data}${run}-${String(n).padStart(5, '0')}.parquet`;
  }

  /** the companion of a data file: its key columns only */
  keysOf(dataKey: string): string {
    return `${this.keys}${dataKey.slice(dataKey.lastIndexOf('/') + 1)}`;
  }
}

/** The Parquet column name of a target column: lower case, anything but a-z, 0-9 and _ as _. */
export function parquetName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

/** A run's id: sortable by time, unique (`20261129T114500Z-3f9a1c2b`). */
export function newRunId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

/** The manifest's text: one `s3://bucket/key` URL per line, the state's files in key order. */
export function manifestText(root: string, files: readonly LakeFile[]): string {
  return files.map((f) => `${root}/${f.key}\n`).join('');
}

/** Every object a state accounts for, besides the state, manifest and lock: its files and retired files, each with its companion. */
export function accountedKeys(layout: TableLayout, state: LakeState | undefined): Set<string> {
  const keys = new Set<string>([layout.state, layout.manifest, layout.lock]);
  for (const f of [...(state?.files ?? []), ...(state?.retired ?? [])]) {
    keys.add(f.key);
    keys.add(layout.keysOf(f.key));
  }
  return keys;
}

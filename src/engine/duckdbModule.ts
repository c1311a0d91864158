// DuckDB's Node module, loaded on first use: its native library is large and built per
// platform, so whatever never queries (most dq commands, the extension until a preview or a
// sync) never loads it. Without a working library for this platform, one error says so and
// names the platform; each caller adds what to do about it there.

import { EngineError } from './engineErrors';

export type DuckDbModule = typeof import('@duckdb/node-api');

let loaded: DuckDbModule | undefined;

/** The module, loaded now or earlier; an EngineError of kind `binding` without a native library for this platform. */
export function loadDuckDb(): DuckDbModule {
  if (loaded) return loaded;
  try {
    loaded = require('@duckdb/node-api') as DuckDbModule;
    return loaded;
  } catch (err) {
    throw new EngineError('binding', missingLibraryText(err));
  }
}

/** `DuckDB has no working native library for linux-arm64 (<the loader's first line>).` */
function missingLibraryText(err: unknown): string {
  const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  return `DuckDB has no working native library for ${process.platform}-${process.arch} (${reason}).`;
}

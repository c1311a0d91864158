// The settings DuckDB starts with inside the engine's child process, and the statements that
// shut it in to the folders it may read and write.

import { quoteString } from './sqlText';

/**
 * A sorted or filtered page that ends within this many rows is a top-N over the table (DuckDB
 * reads the other columns late, for the rows it keeps, up to `late_materialization_max_rows`);
 * deeper pages read the view's row positions.
 */
export const TOP_N_ROWS = 10_000;

/** Settings the engine's database starts with, for the way results are read and copied. */
export const ENGINE_SETTINGS = [
  // late materialization for every top-N a page makes, not only those of at most 50 rows
  `SET GLOBAL late_materialization_max_rows = ${TOP_N_ROWS}`,
  // the rowids a top-N keeps (a window of rows) filter the scan that reads their columns
  'SET GLOBAL dynamic_or_filter_threshold = 1000',
  // memory freed by a file's copy goes back to the system between files (a copy of 16 files
  // of 128 MiB peaked at about 335 MiB with these, 400 to 415 without)
  "SET GLOBAL allocator_flush_threshold = '16MB'",
  'SET GLOBAL allocator_background_threads = true',
];

/**
 * The statements that shut DuckDB in (run last, once, as the engine starts): it may read and
 * write only in `folders` (the engine's own folder, the results' folders), so neither a
 * preview's WHERE nor a console statement can read other files (`read_text('/etc/hostname')`),
 * attach other databases or write elsewhere. Once external access is off DuckDB refuses to
 * turn it on again or to change the folders, the temp directory or the extensions loaded, so
 * the configuration needs no lock (which would also stop the engine's own memory-limit changes).
 */
export function sandboxStatements(folders: readonly string[]): string[] {
  const unique = [...new Set(folders.map((folder) => folder.replace(/[\\/]+$/, '')).filter((folder) => folder !== ''))];
  return [`SET GLOBAL allowed_directories = [${unique.map(quoteString).join(', ')}]`, 'SET GLOBAL enable_external_access = false'];
}

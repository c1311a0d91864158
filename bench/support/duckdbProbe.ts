// Run as a child process: the baseline of the preview figure. A bare DuckDB through the same
// node binding the engine uses, in a fresh process, as a person would query the files from a
// DuckDB shell: one statement, every row read, the same thread and memory settings as the
// engine (unless another memory limit is given). Prints the milliseconds from the process's
// start to its last row, those of the statement alone, and the rows.
//   node duckdbProbe.js <temp folder> <sql> [memory limit, 256MB by default]

import { DuckDBInstance } from '@duckdb/node-api';
import { performance } from 'node:perf_hooks';

async function main(): Promise<void> {
  const [tempDir, sql, memoryLimit = '256MB'] = process.argv.slice(2);
  const db = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    memory_limit: memoryLimit,
    threads: '2',
    temp_directory: tempDir,
  });
  const conn = await db.connect();
  const started = performance.now();
  const reader = await conn.runAndReadAll(sql);
  const rows = reader.getRowsJson();
  const ms = performance.now(); // performance's origin is the start of this process
  process.stdout.write(`${JSON.stringify({ ms, statementMs: ms - started, rows: rows.length, first: rows[0] ?? null })}\n`);
  conn.closeSync();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`duckdbProbe: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

// Run as a child process: DuckDB on its own, for the sync figure. A fresh process opens a
// database through the same node binding and with the same settings as the sync's DuckDB
// target (defaults, extensions neither installed nor loaded, UTC), runs the statements in turn
// and closes the database (which checkpoints it). Prints the milliseconds from the first
// statement to the database being closed, and the first value the last statement returned.
//   node syncDuckdbProbe.js <database file or :memory:> <sql>...

import { DuckDBInstance } from '@duckdb/node-api';
import { performance } from 'node:perf_hooks';

async function main(): Promise<void> {
  const [database, ...statements] = process.argv.slice(2);
  const db = await DuckDBInstance.create(database, { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const conn = await db.connect();
  await conn.run("SET GLOBAL TimeZone = 'UTC'");
  const started = performance.now();
  let value: unknown = null;
  for (const sql of statements) {
    const rows = (await conn.runAndReadAll(sql)).getRowsJson();
    value = rows[0]?.[0] ?? null;
  }
  conn.closeSync();
  db.closeSync();
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ ms, value })}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`syncDuckdbProbe: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

// dq sync-status --ddl ENGINE, over a lake target that is a stub reader of table states (the
// lake target implements the same reader): which tables it prints, as text and JSON, and the
// clear refusals: an unknown engine, a target that is not a lake, a table never synced. Through
// the real dispatcher: a DuckDB file as the target is a usage error, and creates nothing.

import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../../../src/client/errors';
import { parseArgs, UsageError } from '../../../src/cli/argParser';
import { syncStatusCommand } from '../../../src/cli/syncCommands';
import { printLakeDdl, type DdlTarget } from '../../../src/cli/syncStatusDdl';
import { ddlText, lakeDdl } from '../../../src/sync/lakeDdl';
import type { LakeState } from '../../../src/sync/lakeState';
import { runDq } from '../../support/cliHarness';
import { everyTypeState } from '../../support/lakeStates';

const LABEL = 's3://dq-lake/lake';

function stateOf(namespace: string, table: string): LakeState {
  const base = everyTypeState({ before: `lake/${namespace}/${table}/data/r1-0.parquet`, after: `lake/${namespace}/${table}/data/r2-0.parquet` });
  return { ...base, namespace, table };
}

/** A lake target's reading side: the states of the tables it holds, and what was done to it. */
function stubLake(states: LakeState[], withReader = true) {
  const calls: string[] = [];
  const target: DdlTarget = {
    label: LABEL,
    async open() {
      calls.push('open');
    },
    async close() {
      calls.push('close');
    },
    async syncedTables() {
      calls.push('syncedTables');
      return states.map(({ namespace, table }) => ({ namespace, table }));
    },
    ...(withReader
      ? {
          async lakeState(namespace: string, table: string) {
            calls.push(`lakeState ${namespace}.${table}`);
            return states.find((s) => s.namespace === namespace && s.table === table);
          },
          tableLocation: (namespace: string, table: string) => `s3://dq-lake/lake/${namespace}/${table}/`,
        }
      : {}),
  };
  return { target, calls };
}

async function ddl(argv: string[], target: DdlTarget): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const ctx = {
    args: parseArgs(argv, syncStatusCommand.options, {}),
    io: { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {}, cwd: process.cwd(), interrupt: new AbortController().signal },
  };
  const code = await printLakeDdl(ctx, () => target);
  return { code, stdout, stderr };
}

describe('dq sync-status --ddl', () => {
  const states = [stateOf('canvas', 'users'), stateOf('canvas', 'courses'), stateOf('catalog', 'orders')];

  it('prints every table of the lake, by namespace and table, each as its engine statements', async () => {
    const { target, calls } = stubLake(states);
    const run = await ddl(['--ddl', 'athena'], target);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, '');
    const expected = [states[1], states[0], states[2]].map((s) => ddlText(lakeDdl('athena', s, `s3://dq-lake/lake/${s.namespace}/${s.table}/`)));
    assert.equal(run.stdout, expected.join('\n'));
    assert.match(run.stdout, /^-- canvas\.courses at 2026-11-01T04:00:00\.000Z, schema v3/);
    assert.match(run.stdout, /CREATE EXTERNAL TABLE `catalog__orders` \(/);
    assert.equal(calls[0], 'open');
    assert.equal(calls[calls.length - 1], 'close');
  });

  it('prints the tables of a namespace, or those named, and JSON with --json', async () => {
    const ofNamespace = await ddl(['--ddl', 'DuckDB', 'canvas'], stubLake(states).target);
    assert.deepEqual([...ofNamespace.stdout.matchAll(/^CREATE OR REPLACE VIEW (\S+)/gm)].map((m) => m[1]), ['"canvas"."courses"', '"canvas"."users"']);

    const { target, calls } = stubLake(states);
    const json = await ddl(['--ddl', 'trino', '--json', 'canvas', 'users'], target);
    assert.equal(json.code, 0);
    assert.ok(!calls.includes('syncedTables'), 'tables named are read without listing the lake');
    const out = JSON.parse(json.stdout);
    assert.equal(out.target, LABEL);
    assert.equal(out.engine, 'trino');
    assert.equal(out.tables.length, 1);
    const [users] = out.tables;
    assert.deepEqual(Object.keys(users), ['namespace', 'table', 'name', 'notes', 'statements', 'schemaChanges']);
    assert.equal(users.name, 'canvas__users');
    assert.match(users.statements[0], /^CREATE EXTERNAL TABLE `canvas__users` \(\n/);
    assert.deepEqual(users.schemaChanges, [
      {
        schemaVersion: 3,
        at: '2026-11-01T04:02:10.000Z',
        added: ['email'],
        statements: ['ALTER TABLE "canvas__users" ADD COLUMN "email" varchar'],
        note: 'for a table created before it, add them in Trino (in the schema that holds the table)',
      },
    ]);
  });

  it('a table or namespace never synced is not found, and nothing is printed', async () => {
    const { target, calls } = stubLake(states);
    await assert.rejects(ddl(['--ddl', 'spark', 'canvas', 'users', 'grades'], target), (err: DqError) => {
      assert.equal(err.kind, 'notFound');
      assert.equal(err.message, `canvas.grades has not been synced to ${LABEL}.`);
      assert.match(err.hint ?? '', /dq sync-status --to s3:\/\/dq-lake\/lake lists the tables synced there/);
      return true;
    });
    assert.equal(calls[calls.length - 1], 'close', 'the target is closed after a failure too');
    await assert.rejects(ddl(['--ddl', 'spark', 'canvs'], stubLake(states).target), /No table of namespace canvs has been synced to s3:\/\/dq-lake\/lake\./);
    const empty = await ddl(['--ddl', 'spark'], stubLake([]).target);
    assert.equal(empty.code, 0);
    assert.equal(empty.stdout, '');
    assert.equal(empty.stderr, `dq: no table has been synced to ${LABEL} yet.\n`);
  });

  it('refuses an unknown engine, a bad name and a target that is not a lake before opening anything', async () => {
    for (const [argv, message] of [
      [['--ddl', 'oracle'], /^--ddl takes athena, trino, spark, duckdb \(got "oracle"\)$/],
      [['--ddl', 'athena', '../etc'], /not a valid namespace name/],
    ] as const) {
      const { target, calls } = stubLake(states);
      await assert.rejects(ddl([...argv], target), (err: Error) => err instanceof UsageError && message.test(err.message));
      assert.deepEqual(calls, []);
    }
    const { target, calls } = stubLake(states, false);
    await assert.rejects(ddl(['--ddl', 'athena'], target), (err: Error) => {
      assert.ok(err instanceof UsageError);
      assert.equal(err.message, `--ddl prints the statements for tables synced as Parquet files to object storage (--to s3://bucket/prefix); ${LABEL} is not such a target`);
      return true;
    });
    assert.deepEqual(calls, []);
  });

  describe('through the dispatcher', () => {
    let tmp: string;
    before(() => {
      tmp = mkdtempSync(path.join(os.tmpdir(), 'dq-ddl-cli-'));
    });
    after(() => rmSync(tmp, { recursive: true, force: true }));

    it('a DuckDB file as the target, or an unknown engine, is a usage error that creates nothing', async () => {
      const file = path.join(tmp, 'sync.duckdb');
      const notLake = await runDq(['sync-status', '--to', file, '--ddl', 'duckdb'], { env: { HOME: tmp }, cwd: tmp });
      assert.equal(notLake.code, 2, notLake.stderr);
      assert.equal(notLake.stdout, '');
      assert.match(notLake.stderr, /^dq: usage: --ddl prints the statements for tables synced as Parquet files to object storage \(--to s3:\/\/bucket\/prefix\); .*sync\.duckdb is not such a target/);
      assert.equal(existsSync(file), false);

      const engine = await runDq(['sync-status', '--to', file, '--ddl', 'hive'], { env: { HOME: tmp }, cwd: tmp });
      assert.equal(engine.code, 2);
      assert.match(engine.stderr, /^dq: usage: --ddl takes athena, trino, spark, duckdb \(got "hive"\)/);

      const extra = await runDq(['sync-status', '--to', file, 'canvas'], { env: { HOME: tmp }, cwd: tmp });
      assert.equal(extra.code, 2);
      assert.match(extra.stderr, /unexpected argument "canvas"/);
    });
  });
});

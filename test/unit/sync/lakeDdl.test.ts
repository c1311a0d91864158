// The statements `dq sync-status --ddl` prints for a lake table, engine by engine, as golden
// texts: a table with every column type, a key, a dotted field, a column and a table whose names
// need quoting, and a schema change that added a column. Names and keys that come from the store
// never break out of their quotes or comments.

import * as assert from 'node:assert/strict';
import { ddlText, lakeDdl, type DdlEngine } from '../../../src/sync/lakeDdl';
import type { LakeState } from '../../../src/sync/lakeState';
import { EVERY_TYPE_LOCATION, everyTypeState } from '../../support/lakeStates';

/** The table over the manifest that Athena and Trino read, made by the same statement for both. */
const MANIFEST_TABLE = `CREATE EXTERNAL TABLE \`canvas__user_logins\` (
  \`id\` bigint COMMENT 'key.id',
  \`order\` int COMMENT 'value.order',
  \`score\` double COMMENT 'value.score',
  \`active\` boolean COMMENT 'value.active',
  \`created_at\` timestamp COMMENT 'value.created_at',
  \`born_on\` date COMMENT 'value.born_on',
  \`address_city\` string COMMENT 'value.address.city',
  \`settings\` string COMMENT 'value.settings',
  \`email\` string COMMENT 'value.email'
)
ROW FORMAT SERDE 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe'
STORED AS INPUTFORMAT 'org.apache.hadoop.hive.ql.io.SymlinkTextInputFormat'
OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat'
LOCATION 's3://dq-lake/lake/canvas/user-logins/_symlink_format_manifest/';`;

const GOLDEN: Record<DdlEngine, string> = {
  athena: `-- canvas.user-logins at 2026-11-01T04:00:00.000Z, schema v3, key (id), 2 files, 3 rows
-- Athena (Glue catalog): reads the files the manifest lists, so a sync needs no new DDL; run it in the database the query editor uses
${MANIFEST_TABLE}

-- schema v3 (2026-11-01T04:02:10.000Z) added email; for a table created before it, add them
ALTER TABLE \`canvas__user_logins\` ADD COLUMNS (\`email\` string COMMENT 'value.email');
`,
  trino: `-- canvas.user-logins at 2026-11-01T04:00:00.000Z, schema v3, key (id), 2 files, 3 rows
-- Trino's Hive connector reads a symlink-manifest table but cannot create one: run this CREATE in Hive, Spark SQL with Hive support or Athena,
-- on the metastore (Hive metastore or Glue) of Trino's Hive catalog; then in Trino: SELECT * FROM hive.<schema>."canvas__user_logins"
-- Trino reads the timestamps as timestamp(3), or timestamp(6) with the catalog's hive.timestamp-precision=MICROSECONDS
${MANIFEST_TABLE}

-- schema v3 (2026-11-01T04:02:10.000Z) added email; for a table created before it, add them in Trino (in the schema that holds the table)
ALTER TABLE "canvas__user_logins" ADD COLUMN "email" varchar;
`,
  spark: `-- canvas.user-logins at 2026-11-01T04:00:00.000Z, schema v3, key (id), 2 files, 3 rows
-- Spark reads no Parquet through a symlink manifest: a temporary view over the files of this state (needs hadoop-aws for s3a://);
-- make it again after each sync
CREATE OR REPLACE TEMPORARY VIEW \`canvas__user_logins\` (
  \`id\` BIGINT,
  \`order\` INT,
  \`score\` DOUBLE,
  \`active\` BOOLEAN,
  \`created_at\` TIMESTAMP,
  \`born_on\` DATE,
  \`address_city\` STRING,
  \`settings\` STRING,
  \`email\` STRING
)
USING parquet OPTIONS (path 's3a://dq-lake/lake/canvas/user-logins/data/{r1-0.parquet,r2-0.parquet}');

-- schema v3 (2026-11-01T04:02:10.000Z) added email; the view above has them: a view made before it gains them when made again
`,
  duckdb: `-- canvas.user-logins at 2026-11-01T04:00:00.000Z, schema v3, key (id), 2 files, 3 rows
-- DuckDB: needs the httpfs extension and S3 credentials (CREATE SECRET (TYPE s3, PROVIDER credential_chain)); the view lists this state's files: make it again after each sync
CREATE SCHEMA IF NOT EXISTS "canvas";
CREATE OR REPLACE VIEW "canvas"."user-logins" AS
SELECT * FROM (SELECT CAST(NULL AS BIGINT) AS "id", CAST(NULL AS INTEGER) AS "order", CAST(NULL AS DOUBLE) AS "score", CAST(NULL AS BOOLEAN) AS "active", CAST(NULL AS TIMESTAMPTZ) AS "created_at", CAST(NULL AS DATE) AS "born_on", CAST(NULL AS VARCHAR) AS "address_city", CAST(NULL AS VARCHAR) AS "settings", CAST(NULL AS VARCHAR) AS "email" WHERE false)
UNION ALL BY NAME
SELECT * FROM read_parquet(['s3://dq-lake/lake/canvas/user-logins/data/r1-0.parquet', 's3://dq-lake/lake/canvas/user-logins/data/r2-0.parquet'], union_by_name = true);

-- schema v3 (2026-11-01T04:02:10.000Z) added email; the view above has them: a view made before it gains them when made again
`,
};

describe('lake DDL', () => {
  for (const engine of Object.keys(GOLDEN) as DdlEngine[]) {
    it(`${engine}: the statements for a table with every type, a key, a dotted field, quoted names and a schema change`, () => {
      assert.equal(ddlText(lakeDdl(engine, everyTypeState(), EVERY_TYPE_LOCATION)), GOLDEN[engine]);
    });
  }

  it('names the table as each engine takes it, and keeps the changes apart in JSON', () => {
    const names = (Object.keys(GOLDEN) as DdlEngine[]).map((e) => lakeDdl(e, everyTypeState(), EVERY_TYPE_LOCATION).name);
    assert.deepEqual(names, ['canvas__user_logins', 'canvas__user_logins', 'canvas__user_logins', 'canvas.user-logins']);
    const athena = lakeDdl('athena', everyTypeState(), EVERY_TYPE_LOCATION);
    assert.deepEqual(athena.schemaChanges.map((c) => [c.schemaVersion, c.added, c.statements.length]), [[3, ['email'], 1]]);
    const trino = lakeDdl('trino', { ...everyTypeState(), schemaChanges: [{ schemaVersion: 4, at: '2026-11-02T00:00:00.000Z', added: ['order', 'email'] }] }, EVERY_TYPE_LOCATION);
    assert.deepEqual(trino.schemaChanges[0].statements, [
      'ALTER TABLE "canvas__user_logins" ADD COLUMN "order" integer',
      'ALTER TABLE "canvas__user_logins" ADD COLUMN "email" varchar',
    ]);
  });

  it('a table with no files yet: the views read as no rows of the right columns, the manifest tables read the empty manifest', () => {
    const empty: LakeState = { ...everyTypeState(), files: [], rows: 0, schemaChanges: [] };
    assert.equal(
      lakeDdl('spark', empty, EVERY_TYPE_LOCATION).statements[0],
      'CREATE OR REPLACE TEMPORARY VIEW `canvas__user_logins` AS\nSELECT CAST(NULL AS BIGINT) AS `id`, CAST(NULL AS INT) AS `order`, CAST(NULL AS DOUBLE) AS `score`, ' +
        'CAST(NULL AS BOOLEAN) AS `active`, CAST(NULL AS TIMESTAMP) AS `created_at`, CAST(NULL AS DATE) AS `born_on`, CAST(NULL AS STRING) AS `address_city`, ' +
        'CAST(NULL AS STRING) AS `settings`, CAST(NULL AS STRING) AS `email` WHERE false',
    );
    assert.match(lakeDdl('duckdb', empty, EVERY_TYPE_LOCATION).statements[1], /^CREATE OR REPLACE VIEW "canvas"\."user-logins" AS\nSELECT CAST\(NULL AS BIGINT\) AS "id", .* WHERE false$/);
    assert.doesNotMatch(ddlText(lakeDdl('duckdb', empty, EVERY_TYPE_LOCATION)), /read_parquet/);
    assert.match(ddlText(lakeDdl('athena', empty, EVERY_TYPE_LOCATION)), /LOCATION 's3:\/\/dq-lake\/lake\/canvas\/user-logins\/_symlink_format_manifest\/';/);
  });

  it('names and keys from a tampered state stay inside their quotes, and text from it never leaves a comment', () => {
    const hostile: LakeState = {
      ...everyTypeState({ before: "lake/x'y/data/a,b{1}.parquet", after: "lake/x'y/data/c\\d.parquet" }),
      namespace: 'ns"`\'',
      table: 'drop table x; select 1',
      point: '2026-11-01T04:00:00Z\nDROP TABLE users; --',
      columns: [
        { name: 'a`b"c', path: ['value', "it's\\"], type: 'text', key: true },
        { name: 'plain', path: ['value', 'plain'], type: 'bigint', key: false },
      ],
      schemaChanges: [{ schemaVersion: 4, at: '2026\nDROP TABLE t', added: ['plain'] }],
    };
    const athena = ddlText(lakeDdl('athena', hostile, "s3://dq-lake/lake/x'y/"));
    assert.match(athena, /CREATE EXTERNAL TABLE `ns_____drop_table_x__select_1` \(/);
    assert.match(athena, /  `a``b"c` string COMMENT 'value\.it\\'s\\\\'/);
    assert.match(athena, /LOCATION 's3:\/\/dq-lake\/lake\/x\\'y\/_symlink_format_manifest\/';/);
    const trino = ddlText(lakeDdl('trino', hostile, "s3://dq-lake/lake/x'y/"));
    assert.match(trino, /ALTER TABLE "ns_____drop_table_x__select_1" ADD COLUMN "plain" bigint;/);
    const spark = ddlText(lakeDdl('spark', hostile, "s3://dq-lake/lake/x'y/"));
    assert.match(spark, /  `a``b"c` STRING,/);
    assert.match(spark, /USING parquet OPTIONS \(path 's3a:\/\/dq-lake\/lake\/x\\'y\/data\/\{a\\\\,b\\\\\{1\\\\\}\.parquet,c\\\\\\\\d\.parquet\}'\);/);
    const duckdb = ddlText(lakeDdl('duckdb', hostile, "s3://dq-lake/lake/x'y/"));
    assert.match(duckdb, /CREATE SCHEMA IF NOT EXISTS "ns""`'";/);
    assert.match(duckdb, /CREATE OR REPLACE VIEW "ns""`'"\."drop table x; select 1" AS/);
    assert.match(duckdb, /\['s3:\/\/dq-lake\/lake\/x''y\/data\/a,b\{1\}\.parquet', 's3:\/\/dq-lake\/lake\/x''y\/data\/c\\d\.parquet'\]/);
    for (const text of [athena, trino, spark, duckdb]) {
      // every line a comment, a blank line or part of a statement: no line of the state's text starts one
      for (const line of text.split('\n')) assert.doesNotMatch(line, /^DROP/i, line);
    }
  });

  it('refuses a file DuckDB would read as a pattern, and a location that is not s3://', () => {
    const globbed = everyTypeState({ before: 'lake/canvas/user-logins/data/r[1].parquet', after: 'lake/canvas/user-logins/data/r2.parquet' });
    assert.throws(() => lakeDdl('duckdb', globbed, EVERY_TYPE_LOCATION), (err: Error & { kind?: string }) => {
      assert.match(err.message, /DuckDB cannot be given the file s3:\/\/dq-lake\/lake\/canvas\/user-logins\/data\/r\[1\]\.parquet: its name holds a character DuckDB reads as a pattern/);
      return true;
    });
    assert.match(ddlText(lakeDdl('spark', globbed, EVERY_TYPE_LOCATION)), /\{r\\\\\[1\\\\\]\.parquet,r2\.parquet\}/);
    assert.throws(() => lakeDdl('athena', everyTypeState(), '/local/folder/'), /is not an s3:\/\/bucket\/prefix\/ URL/);
  });
});

// Schema changes between two syncs of a table: what is applied in place and what needs a
// fresh snapshot, starting from a real sample schema (canvas.users) changed the ways the
// service's schemas change in the wild.

import * as assert from 'node:assert/strict';
import type { JsonSchema, SchemaEnvelope } from '../../../src/core/contract';
import { SampleCatalog } from '../../../src/emulator/sampleData/sampleCatalog';
import { tableSchema } from '../../../src/emulator/sampleData/tableModel';
import { compareSchemas } from '../../../src/sync/schemaChanges';

const def = new SampleCatalog().table('canvas', 'users')!;

function users(change: (schema: JsonSchema) => void = () => undefined): SchemaEnvelope {
  const schema = JSON.parse(JSON.stringify(tableSchema(def))) as JsonSchema;
  change(schema);
  return { version: def.version, schema };
}

function valueProps(schema: JsonSchema): Record<string, JsonSchema> {
  return schema.properties!.value.properties!;
}

describe('schema changes', () => {
  it('finds nothing to do for the same schema', () => {
    assert.deepEqual(compareSchemas(users(), users()), { added: [], incompatible: [], notes: [] });
  });

  it('adds a new column and a new member of a nested object in place', () => {
    const change = compareSchemas(
      users(),
      users((s) => {
        valueProps(s).nickname = { type: 'string' };
        valueProps(s).preferences.properties!.language = { type: 'string', enum: ['en', 'fr'] };
      }),
    );
    assert.deepEqual(change.incompatible, []);
    assert.deepEqual(
      change.added.map((c) => [c.name, c.path.join('/'), c.type]),
      [
        ['preferences.language', 'value/preferences/language', 'text'],
        ['nickname', 'value/nickname', 'text'],
      ],
    );
  });

  it('takes new enum values and a column that became optional in place, and says so', () => {
    const change = compareSchemas(
      users(),
      users((s) => {
        s.definitions!.workflow.enum = [...(s.definitions!.workflow.enum as string[]), 'suspended'];
        s.properties!.value.required = (s.properties!.value.required ?? []).filter((n) => n !== 'name');
      }),
    );
    assert.deepEqual(change.incompatible, []);
    assert.deepEqual(change.added, []);
    assert.ok(change.notes.some((n) => /"workflow_state" has new values "suspended"/.test(n)), change.notes.join('; '));
    assert.ok(change.notes.some((n) => /"name" is no longer required/.test(n)), change.notes.join('; '));
  });

  it('needs a snapshot for a removed column, naming it', () => {
    const change = compareSchemas(users(), users((s) => delete valueProps(s).locale));
    assert.deepEqual(change.incompatible, ['column "locale" was removed']);
  });

  it('needs a snapshot for a changed type, naming the column and both types', () => {
    const change = compareSchemas(users(), users((s) => (valueProps(s).login_count = { type: 'string' })));
    assert.deepEqual(change.incompatible, ['column "login_count" changed type from integer to text']);
  });

  it('needs a snapshot when a nested object becomes free-form: its member columns are gone', () => {
    const change = compareSchemas(users(), users((s) => (valueProps(s).preferences = { type: 'object', additionalProperties: true })));
    assert.deepEqual(change.incompatible, [
      'column "preferences.high_contrast" was removed',
      'column "preferences.font_size" was removed',
      'column "preferences.theme" was removed',
    ]);
    assert.deepEqual(change.added.map((c) => [c.name, c.type]), [['preferences', 'json']]);
  });

  it('needs a snapshot when the key columns change', () => {
    const change = compareSchemas(
      users(),
      users((s) => {
        s.properties!.key.properties!.shard = { type: 'integer', format: 'int32' };
      }),
    );
    assert.deepEqual(change.incompatible, ['the key columns changed from (id bigint) to (id bigint, shard integer)']);
    assert.deepEqual(change.added, [], 'a key column is never added in place');
  });
});

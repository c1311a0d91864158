import * as assert from 'node:assert/strict';
import { columnsOf, resolveRef, SchemaError, typeLabel } from '../../../src/core/schema';
import type { SchemaEnvelope } from '../../../src/core/contract';

const envelope: SchemaEnvelope = {
  version: 3,
  schema: {
    type: 'object',
    definitions: {
      timestamp: { type: 'string', format: 'date-time', description: 'UTC time' },
      state: { type: 'string', enum: ['active', 'deleted'] },
    },
    properties: {
      key: {
        type: 'object',
        properties: { course_id: { type: 'integer', format: 'int64' }, user_id: { type: 'integer', format: 'int64' } },
      },
      value: {
        type: 'object',
        required: ['state'],
        properties: {
          state: { $ref: '#/definitions/state', description: 'Enrollment state' },
          created_at: { $ref: '#/definitions/timestamp' },
          grade: { oneOf: [{ type: 'number' }, { type: 'null' }] },
          tags: { type: 'array', items: { type: 'string', maxLength: 64 } },
          address: { type: 'object', properties: { city: { type: 'string', maxLength: 80 } } },
          visible: { type: 'boolean', default: true },
        },
      },
      meta: { type: 'object', properties: { action: { type: 'string' } } },
    },
  },
};

describe('schema columns', () => {
  it('lists every part of a composite key as a required key column, before the value columns', () => {
    const cols = columnsOf(envelope);
    assert.deepEqual(
      cols.filter((c) => c.part === 'key').map((c) => [c.name, c.type, c.required]),
      [
        ['course_id', 'int64', true],
        ['user_id', 'int64', true],
      ],
    );
    assert.equal(cols[0].part, 'key');
    assert.ok(!cols.some((c) => c.name === 'action'), 'meta fields are not columns');
  });

  it('resolves $ref and keeps the referring description over the definition', () => {
    const state = columnsOf(envelope).find((c) => c.name === 'state');
    assert.equal(state?.type, 'enum');
    assert.deepEqual(state?.enumValues, ['active', 'deleted']);
    assert.equal(state?.description, 'Enrollment state');
    assert.equal(state?.required, true);
    const created = columnsOf(envelope).find((c) => c.name === 'created_at');
    assert.equal(created?.type, 'date-time');
    assert.equal(created?.description, 'UTC time');
    assert.equal(created?.required, false);
  });

  it('labels nullable unions, arrays and nested object members as CSV headers flatten them', () => {
    const byName = new Map(columnsOf(envelope).map((c) => [c.name, c]));
    assert.equal(byName.get('grade')?.type, 'number');
    assert.equal(byName.get('tags')?.type, 'array<string>');
    assert.equal(byName.get('address')?.type, 'object');
    assert.equal(byName.get('address.city')?.maxLength, 80);
    assert.equal(byName.get('visible')?.defaultValue, true);
  });

  it('resolves $defs pointers and reports a dangling or cyclic reference clearly', () => {
    const root = { $defs: { a: { $ref: '#/$defs/b' }, b: { type: 'integer', format: 'int32' }, loop: { $ref: '#/$defs/loop' } } };
    assert.equal(typeLabel(root, { $ref: '#/$defs/a' }), 'int32');
    assert.throws(() => resolveRef(root, { $ref: '#/$defs/missing' }), SchemaError);
    assert.throws(() => resolveRef(root, { $ref: '#/$defs/loop' }), /refers to itself/);
  });
});

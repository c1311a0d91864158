// Schemas a hostile or broken service might answer with, for tests in every layer.

import type { JsonSchema, SchemaEnvelope } from '../../src/core/contract';

/** A table envelope with one integer key column `id` and the given value schema (`extra` joins the root). */
export function envelopeWith(value: JsonSchema, extra: JsonSchema = {}): SchemaEnvelope {
  return {
    version: 1,
    schema: { type: 'object', ...extra, properties: { key: { type: 'object', properties: { id: { type: 'integer', format: 'int64' } } }, value } },
  };
}

/**
 * `levels` definitions, each an object of `fanOut` members that all refer to the next one:
 * a schema of a few kilobytes whose columns number fanOut + fanOut² + ... (millions for 8 and 12).
 */
export function explodingSchema(levels: number, fanOut: number): SchemaEnvelope {
  const defs: Record<string, JsonSchema> = {};
  for (let level = 0; level < levels; level++) {
    const next: JsonSchema = level + 1 < levels ? { $ref: `#/$defs/d${level + 1}` } : { type: 'string' };
    defs[`d${level}`] = { type: 'object', properties: Object.fromEntries(Array.from({ length: fanOut }, (_, i) => [`m${i}`, next])) };
  }
  return envelopeWith({ $ref: '#/$defs/d0' }, { $defs: defs });
}

// The `catalog` namespace: a course catalog storefront (listings and orders).

import * as c from './columnBuilders';
import type { TableDef } from './tableModel';
import { FIRST_NAMES, LAST_NAMES, LEVELS, SUBJECTS } from './vocabulary';

const NS = 'catalog';

export function catalogTables(): TableDef[] {
  const products: TableDef = {
    namespace: NS,
    name: 'products',
    version: 1,
    description: 'Courses and programs offered in the catalog',
    history: 'entity',
    rowCount: 80,
    key: [c.int64('id', ({ index }) => 1 + index)],
    value: [
      c.string('title', ({ rng }) => `${rng.pick(LEVELS)} ${rng.pick(SUBJECTS)}`, { maxLength: 255, required: true }),
      c.enumeration('type', ['Course', 'Program'], ({ rng }) => (rng.chance(0.8) ? 'Course' : 'Program'), { required: true }),
      c.number('price', ({ rng }) => (rng.chance(0.2) ? 0 : rng.int(49, 999) + 0.99)),
      c.string('currency', () => 'USD', { maxLength: 3 }),
      c.boolean('visible', ({ rng }) => rng.chance(0.9)),
      c.int32('seats', ({ rng }) => (rng.chance(0.3) ? null : rng.int(10, 300))),
      c.dateTime('updated_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };
  const orders: TableDef = {
    namespace: NS,
    name: 'orders',
    version: 2,
    description: 'Purchases and free registrations',
    history: 'entity',
    rowCount: 600,
    defsKeyword: '$defs',
    defs: {
      money: {
        type: 'object',
        properties: { amount: { type: 'number' }, currency: { type: 'string', maxLength: 3 } },
        required: ['amount'],
      },
    },
    key: [c.int64('id', ({ index }) => 50_000 + index)],
    value: [
      c.int64('product_id', ({ rng }) => rng.int(1, 80), { required: true }),
      c.string('buyer', ({ rng }) => `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`),
      c.enumeration('status', ['pending', 'paid', 'refunded', 'cancelled'], ({ rng }) => rng.pick(['paid', 'paid', 'pending', 'refunded']), { required: true }),
      c.ref('total', 'json', '#/$defs/money', ({ rng }) => ({ amount: rng.int(0, 999) + 0.5, currency: 'USD' })),
      c.array('coupon_codes', { type: 'string', maxLength: 32 }, ({ rng }) => (rng.chance(0.8) ? null : ['WELCOME10'])),
      c.dateTime('created_at', ({ changedAt }) => c.iso(changedAt), { required: true }),
    ],
  };
  return [products, orders];
}

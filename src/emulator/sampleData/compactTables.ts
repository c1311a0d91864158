// Sample tables written compactly: a table is its name, a line about it, a row count and its
// columns as words `name:type` (`name?:type` for a column that may be null, `*name:type` for
// the key column; without one the key is `id`, an int64). Types:
//   i64 i32 f64 bool ts date json str s<N> uuid   scalars (s255: a string of at most 255)
//   >table        the id of a row of that table (an int64)
//   {a,b,c}       an enum; the schema adds `__dap_unspecified__`, as the service's enums have
//   [type]        an array of a scalar type
//   (columns)     a fixed object whose members are columns written the same way
// Values come from each row's generator, shaped by the column's type and name (an `updated_at`
// is the row's last change, a `created_at` before it, a `title` reads like one), so a table of
// the service's list needs no code of its own.

import type { JsonSchema } from '../../core/contract';
import * as c from './columnBuilders';
import type { ColumnDef, RowContext, TableDef } from './tableModel';
import { ASSIGNMENT_WORDS, FIRST_NAMES, LAST_NAMES, SUBJECTS } from './vocabulary';

export interface CompactTable {
  name: string;
  about: string;
  rows: number;
  columns: string;
}

/** The ids of a table's rows: first, first + 1, ... first + count - 1. */
export interface IdRange {
  first: number;
  count: number;
}

export const UNSPECIFIED = '__dap_unspecified__';
const DAY = 86_400_000;
const SCALARS = new Set(['i64', 'i32', 'f64', 'bool', 'ts', 'date', 'json', 'str', 'uuid']);

interface Word {
  name: string;
  nullable: boolean;
  key: boolean;
  type: string;
}

type Gen = (ctx: RowContext) => unknown;

interface Build {
  table: string;
  /** the id range of a table, for `>table` columns */
  range: (table: string) => IdRange;
}

/** The table a compact description stands for; its ids are those of `own`. */
export function compactTable(namespace: string, spec: CompactTable, own: IdRange, range: (table: string) => IdRange | undefined): TableDef {
  const where = `${namespace}.${spec.name}`;
  if (spec.rows > own.count) throw new Error(`${where}: ${spec.rows} rows do not fit its ${own.count} ids`);
  const build: Build = {
    table: spec.name,
    range: (table) => {
      const found = range(table);
      if (!found) throw new Error(`${where} refers to ${table}, which is not a table of ${namespace}`);
      return found;
    },
  };
  const all = splitWords(spec.columns, where).map((w) => parseWord(w, where));
  const keyWords = all.filter((w) => w.key);
  const key = keyWords.length > 0 ? keyWords.map((w) => keyColumn(w, own, build, spec.rows, where)) : [c.int64('id', ({ index }) => own.first + index)];
  const value = all.filter((w) => !w.key).map((w) => column(w, build, where));
  return { namespace, name: spec.name, version: 1, description: spec.about, history: 'entity', rowCount: spec.rows, key, value };
}

/** Words at the top level of a column list: spaces inside `( )` belong to an object's members. */
function splitWords(text: string, where: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let word = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')' && --depth < 0) throw new Error(`${where}: unbalanced ")" in "${text}"`);
    if (/\s/.test(ch) && depth === 0) {
      if (word) out.push(word);
      word = '';
    } else {
      word += ch;
    }
  }
  if (depth !== 0) throw new Error(`${where}: unbalanced "(" in "${text}"`);
  if (word) out.push(word);
  return out;
}

function parseWord(word: string, where: string): Word {
  const m = /^(\*)?([a-z_][a-z0-9_]*)(\?)?:([\s\S]+)$/.exec(word);
  if (!m) throw new Error(`${where}: cannot read the column "${word}"`);
  return { key: m[1] === '*', name: m[2], nullable: m[3] === '?', type: m[4] };
}

function keyColumn(w: Word, own: IdRange, build: Build, rows: number, where: string): ColumnDef {
  if (w.nullable) throw new Error(`${where}: the key column ${w.name} cannot be null`);
  const ref = /^>(\w+)$/.exec(w.type);
  if (w.type !== 'i64' && !ref) throw new Error(`${where}: the key column ${w.name} must be i64 or >table`);
  const ids = ref ? build.range(ref[1]) : own;
  if (rows > ids.count) throw new Error(`${where}: ${rows} rows need more ids than ${ref?.[1]} has`);
  return c.int64(w.name, ({ index }) => ids.first + index, ref ? { description: `The id of a row of ${ref[1]}` } : undefined);
}

function column(w: Word, build: Build, where: string): ColumnDef {
  const t = w.type;
  const extra = { required: !w.nullable };
  const object = /^\((.*)\)$/s.exec(t);
  if (object) {
    const fields = splitWords(object[1], where).map((m) => column(parseWord(m, where), build, where));
    return c.object(w.name, fields, { ...extra, omitWhen: w.nullable ? ({ rng }) => rng.chance(0.15) : undefined });
  }
  const gen = nullable(w, valueOf(w.name, t, build, where));
  const ref = /^>(\w+)$/.exec(t);
  if (ref) {
    build.range(ref[1]); // refused now, not when a row is made
    return c.int64(w.name, gen, { ...extra, description: `The id of a row of ${ref[1]}` });
  }
  const values = /^\{(.+)\}$/.exec(t);
  if (values) return c.enumeration(w.name, [UNSPECIFIED, ...values[1].split(',')], gen, extra);
  const items = /^\[(.+)\]$/.exec(t);
  if (items) return c.array(w.name, scalarSchema(items[1], where), gen, extra);
  const bounded = /^s(\d+)$/.exec(t);
  if (bounded) return c.string(w.name, gen, { ...extra, maxLength: Number(bounded[1]) });
  switch (t) {
    case 'i64':
      return c.int64(w.name, gen, extra);
    case 'i32':
      return c.int32(w.name, gen, extra);
    case 'f64':
      return c.number(w.name, gen, extra);
    case 'bool':
      return c.boolean(w.name, gen, extra);
    case 'ts':
      return c.dateTime(w.name, gen, extra);
    case 'date':
      return c.string(w.name, gen, { ...extra, description: 'A date, YYYY-MM-DD' });
    case 'json':
      return c.freeObject(w.name, gen, extra);
    case 'str':
      return c.string(w.name, gen, extra);
    case 'uuid':
      return c.string(w.name, gen, { ...extra, maxLength: 36 });
  }
  throw new Error(`${where}: unknown type "${t}" of ${w.name}`);
}

function scalarSchema(type: string, where: string): JsonSchema {
  const bounded = /^s(\d+)$/.exec(type);
  if (bounded) return { type: 'string', maxLength: Number(bounded[1]) };
  switch (type) {
    case 'i64':
      return { type: 'integer', format: 'int64' };
    case 'i32':
      return { type: 'integer', format: 'int32' };
    case 'f64':
      return { type: 'number' };
    case 'bool':
      return { type: 'boolean' };
    case 'str':
      return { type: 'string' };
  }
  throw new Error(`${where}: arrays of ${type} are not described`);
}

/** A column that may be null is null in some rows (a `deleted_at` in most). */
function nullable(w: Word, gen: Gen): Gen {
  if (!w.nullable) return gen;
  const share = w.name === 'deleted_at' ? 0.9 : 0.15;
  return (ctx) => (ctx.rng.chance(share) ? null : gen(ctx));
}

function valueOf(name: string, type: string, build: Build, where: string): Gen {
  const ref = /^>(\w+)$/.exec(type);
  if (ref) {
    const target = ref[1];
    return ({ rng }) => {
      const ids = build.range(target);
      return ids.first + rng.int(0, ids.count - 1);
    };
  }
  const values = /^\{(.+)\}$/.exec(type);
  if (values) {
    const members = values[1].split(',');
    return ({ rng }) => rng.pick(members);
  }
  const items = /^\[(.+)\]$/.exec(type);
  if (items) {
    const item = valueOf(name, items[1], build, where);
    return (ctx) => Array.from({ length: ctx.rng.int(0, 3) }, () => item(ctx));
  }
  const bounded = /^s(\d+)$/.exec(type);
  if (bounded) {
    const max = Number(bounded[1]);
    return (ctx) => text(name, build.table, ctx).slice(0, max);
  }
  if (!SCALARS.has(type)) throw new Error(`${where}: unknown type "${type}" of ${name}`);
  switch (type) {
    case 'i64':
    case 'i32':
      return ({ rng }) => integer(name, rng);
    case 'f64':
      return ({ rng }) => Math.round(rng.next() * 10_000) / 100;
    case 'bool':
      return ({ rng }) => rng.chance(0.5);
    case 'ts':
      return (ctx) => c.iso(time(name, ctx));
    case 'date':
      return (ctx) => c.iso(time(name, ctx)).slice(0, 10);
    case 'json':
      return ({ rng, index }) => (rng.chance(0.5) ? { [name]: rng.pick(['all', 'some', 'none']), n: index % 7 } : { items: [rng.int(1, 9), rng.int(10, 99)] });
    case 'uuid':
      return ({ rng }) => rng.uuid();
    default:
      return (ctx) => text(name, build.table, ctx);
  }
}

function integer(name: string, rng: RowContext['rng']): number {
  if (name === 'position') return rng.int(1, 20);
  if (name === 'depth' || name.startsWith('drop_')) return rng.int(0, 3);
  if (/count|attempt/.test(name)) return rng.int(0, 40);
  if (/_id$/.test(name)) return rng.int(1, 99_999);
  return rng.int(0, 1000);
}

/** An `updated_at` is the row's last change, a `created_at` earlier; other times lie around it. */
function time(name: string, { rng, changedAt }: RowContext): number {
  if (name === 'updated_at') return changedAt;
  if (name === 'created_at') return changedAt - rng.int(1, 400) * DAY;
  return changedAt + rng.int(-60, 60) * DAY + rng.int(0, 86_399) * 1000;
}

function text(name: string, table: string, { rng, index }: RowContext): string {
  if (/uuid$/.test(name)) return rng.uuid();
  if (/(url|uri)$/.test(name)) return `https://canvas.example.edu/${table}/${index}`;
  if (name === 'email') return `${rng.pick(FIRST_NAMES).toLowerCase()}.${rng.pick(LAST_NAMES).toLowerCase()}@example.edu`;
  if (/_ip$/.test(name)) return `10.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
  if (/(migration_id|guid)$/.test(name)) return `g${rng.hex(16)}`;
  if (/^sis_|integration_id$/.test(name)) return `SIS-${table.slice(0, 4).toUpperCase()}-${index}`;
  if (/_code$/.test(name)) return `course_${100 + rng.int(0, 59)}`;
  if (/^(author_name|user_name|short_name)$/.test(name)) return `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
  if (/(name|title|label|subject)$/.test(name)) return `${rng.pick(SUBJECTS)} ${rng.pick(ASSIGNMENT_WORDS)} ${1 + (index % 20)}`;
  if (/(description|body|message|comment|notes|text)$/.test(name)) {
    return `<p>${rng.pick(SUBJECTS)}: see the "${rng.pick(ASSIGNMENT_WORDS).toLowerCase()}", then reply, with notes.</p>\nLine two.`;
  }
  return `${name.replace(/_/g, ' ')} ${index}`;
}

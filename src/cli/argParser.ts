// A small, strict argument parser for dq: unknown options and missing values are usage
// errors, reported before any request is made, with the nearest known option when one is close.

import { nearestName } from './nearestName';

export type OptionKind = 'string' | 'boolean' | 'number';

export interface OptionSpec {
  name: string; // long name without dashes, e.g. `base-url`
  kind: OptionKind;
  /** environment variable read when the option is not given */
  env?: string;
  description: string;
  /** value name for help, e.g. `DIR` */
  valueName?: string;
  /** `--no-<name>` turns a boolean off */
  negatable?: boolean;
  /**
   * An empty (or blank) value given on the command line is refused rather than read as "not
   * given": `--to "$UNSET"` must not quietly mean the default. (An empty environment variable
   * counts as unset, for every option.)
   */
  nonEmpty?: boolean;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type OptionValues = Record<string, string | boolean | number | undefined>;

export interface ParsedArgs {
  positionals: string[];
  options: OptionValues;
  /** names given on the command line (not from the environment) */
  given: Set<string>;
}

export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[], env: NodeJS.ProcessEnv): ParsedArgs {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const positionals: string[] = [];
  const options: OptionValues = {};
  const given = new Set<string>();
  let onlyPositionals = false;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (onlyPositionals || !arg.startsWith('--') || arg === '-') {
      if (!onlyPositionals && arg === '-h' && byName.has('help')) {
        options.help = true;
        given.add('help');
        continue;
      }
      if (!onlyPositionals && arg.startsWith('-') && arg !== '-' && !/^-\d/.test(arg)) {
        const meant = byName.has(arg.slice(1).split('=')[0]) ? `--${arg.slice(1)}` : undefined;
        throw new UsageError(`unknown option ${arg}; options use two dashes${meant ? `: ${meant}` : ''} (see dq --help)`);
      }
      positionals.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyPositionals = true;
      continue;
    }
    const eq = arg.indexOf('=');
    let name = arg.slice(2, eq === -1 ? undefined : eq);
    let inline: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    let spec = byName.get(name);
    if (!spec && name.startsWith('no-')) {
      const positive = byName.get(name.slice(3));
      if (positive?.kind === 'boolean' && positive.negatable) {
        if (inline !== undefined) throw new UsageError(`--${name} takes no value`);
        options[positive.name] = false;
        given.add(positive.name);
        continue;
      }
    }
    if (!spec) throw new UsageError(`unknown option --${name}${didYouMean(name, specs)} (see dq --help)`);
    name = spec.name;
    if (spec.kind === 'boolean') {
      if (inline !== undefined && inline !== 'true' && inline !== 'false') {
        throw new UsageError(`--${name} takes no value`);
      }
      options[name] = inline === undefined ? true : inline === 'true';
      given.add(name);
      continue;
    }
    if (inline === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) {
        throw new UsageError(`--${name} needs a value${spec.valueName ? ` (${spec.valueName})` : ''}`);
      }
      inline = next;
      i++;
    }
    if (spec.nonEmpty && inline.trim() === '') {
      throw new UsageError(
        `--${name} is empty; give ${spec.valueName ? `a ${spec.valueName}` : 'a value'}, or leave --${name} out for its default (is a variable in the command unset?)`,
      );
    }
    options[name] = convert(spec, inline, `--${name}`);
    given.add(name);
  }

  // help is shown whatever the environment holds
  if (options.help === true) return { positionals, options, given };
  for (const spec of specs) {
    if (options[spec.name] !== undefined || !spec.env) continue;
    const fromEnv = env[spec.env];
    if (fromEnv === undefined || fromEnv === '') continue;
    options[spec.name] = convert(spec, fromEnv, spec.env);
  }
  return { positionals, options, given };
}

/** `; did you mean --json?` when a known option is close to the one typed, else ''. */
function didYouMean(typed: string, specs: readonly OptionSpec[]): string {
  const names = specs.flatMap((s) => (s.kind === 'boolean' && s.negatable ? [s.name, `no-${s.name}`] : [s.name]));
  const meant = nearestName(typed, names);
  return meant ? `; did you mean --${meant}?` : '';
}

function convert(spec: OptionSpec, raw: string, source: string): string | boolean | number {
  switch (spec.kind) {
    case 'string':
      return raw;
    case 'boolean':
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      throw new UsageError(`${source} must be true or false, not "${raw}"`);
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`${source} must be a number, not "${raw}"`);
      return n;
    }
  }
}

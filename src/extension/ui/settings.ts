// Every setting the extension reads, in one table: its name, type and default, the defaults
// being those of package.json (a unit test holds the two together). `read` gives a setting's
// value typed, or its default when the value is missing or of another type; the VS Code side
// (vscodeSettings.ts) only hands it the configuration. No `vscode` import.

export type SettingType = 'string' | 'boolean' | 'integer' | 'object' | 'array';

export interface SettingSpec {
  type: SettingType;
  default: unknown;
}

/** The extension's settings, as package.json declares them. */
export const SETTINGS = {
  'dataQuery.connections': { type: 'array', default: [] },
  'dataQuery.download.folder': { type: 'string', default: '' },
  'dataQuery.download.decompress': { type: 'boolean', default: false },
  'dataQuery.download.sha256': { type: 'boolean', default: false },
  'dataQuery.download.concurrency': { type: 'integer', default: 4 },
  'dataQuery.query.defaultFormat': { type: 'string', default: 'jsonl' },
  'dataQuery.query.downloadAutomatically': { type: 'boolean', default: true },
  'dataQuery.jobs.keepFinishedDays': { type: 'integer', default: 7 },
  'dataQuery.preview.memoryLimitMb': { type: 'integer', default: 256 },
  'dataQuery.preview.prepareAfterDownload': { type: 'boolean', default: true },
  'dataQuery.preview.keptCopiesMb': { type: 'integer', default: 4096 },
  'dataQuery.preview.columnProfiles': { type: 'boolean', default: true },
  'dataQuery.sync.target': { type: 'string', default: '' },
  'dataQuery.rateLimits': { type: 'object', default: {} },
} as const satisfies Record<string, SettingSpec>;

/** VS Code's own settings the extension reads (the proxy): not declared by package.json. */
export const EDITOR_SETTINGS = {
  'http.proxy': { type: 'string', default: '' },
  'http.noProxy': { type: 'array', default: [] },
  'http.proxyStrictSSL': { type: 'boolean', default: true },
} as const satisfies Record<string, SettingSpec>;

const ALL: Record<SettingName, SettingSpec> = { ...SETTINGS, ...EDITOR_SETTINGS };

export type SettingName = keyof typeof SETTINGS | keyof typeof EDITOR_SETTINGS;

interface ValueOfType {
  string: string;
  boolean: boolean;
  integer: number;
  object: Record<string, unknown>;
  array: unknown[];
}

type Specs = typeof SETTINGS & typeof EDITOR_SETTINGS;

export type SettingValue<N extends SettingName> = ValueOfType[Specs[N]['type']];

/** What `read` needs of a configuration: VS Code's WorkspaceConfiguration, or a plain stand-in. */
export interface ConfigurationSource {
  get<T>(section: string): T | undefined;
}

/** The setting's value when it has the declared type, else its default. */
export function read<N extends SettingName>(config: ConfigurationSource, name: N): SettingValue<N> {
  const spec = ALL[name];
  const value = config.get<unknown>(name);
  return (hasType(value, spec.type) ? value : structuredClone(spec.default)) as SettingValue<N>;
}

/**
 * The value as it is, for a setting whose own parser explains a value of the wrong type to
 * the user (the connections list, the sync target). Only names of the table are read.
 */
export function readAsIs(config: ConfigurationSource, name: SettingName): unknown {
  return config.get<unknown>(name);
}

function hasType(value: unknown, type: SettingType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      // range and whole-number checks belong to the reader of each setting
      return typeof value === 'number';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
  }
}

// What a connection is, as written in the `dataQuery.connections` setting, and how a raw
// setting value becomes a checked list. Pure: no `vscode` import, so plain tests can use it.
// Credentials never appear here; they live in SecretStorage keyed by the connection name.

import { isLoopbackHost } from '../../client/serviceUrls';
import { parseBaseUrl } from '../../core/httpUrl';
import { isRecord } from '../../core/isRecord';

export const DEFAULT_DATA_PREFIX = 'dap';
export const DEFAULT_NAMESPACES: readonly string[] = ['canvas', 'canvas_logs', 'catalog', 'new_quizzes'];
export const SAMPLE_CONNECTION_NAME = 'Sample data';

export interface RemoteConnection {
  kind: 'remote';
  name: string;
  baseUrl: string;
  dataPrefix: string;
  namespaces: string[];
  scope?: string;
  allowInsecureHttp: boolean;
}

/** Runs the bundled emulator in the extension host; its credentials are generated. */
export interface SampleConnection {
  kind: 'sample';
  name: string;
}

export type Connection = RemoteConnection | SampleConnection;

/** Whose data a connection reaches: its name and the service and account it points at. */
export function connectionIdentity(connection: Connection): string {
  return JSON.stringify(connection.kind === 'sample' ? [connection.name] : [connection.name, connection.baseUrl, connection.dataPrefix, connection.scope ?? null]);
}

export interface ParsedConnections {
  connections: Connection[];
  /** one sentence per entry that was skipped, saying how to fix it */
  problems: string[];
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Checks a base URL typed by a person; returns a message when it cannot be used. */
export function checkBaseUrl(value: string): string | undefined {
  return parseBaseUrl(value).problem;
}

/** The host of a plain-http base URL that is not this machine: using it needs an explicit opt-in. */
export function insecureHost(baseUrl: string): string | undefined {
  const url = parseBaseUrl(baseUrl).url;
  return url?.protocol === 'http:' && !isLoopbackHost(url.hostname) ? url.host : undefined;
}

export function parseConnections(raw: unknown): ParsedConnections {
  const connections: Connection[] = [];
  const problems: string[] = [];
  if (raw === undefined || raw === null) return { connections, problems };
  if (!Array.isArray(raw)) {
    return { connections, problems: ['The setting dataQuery.connections must be a list; open your settings and fix it.'] };
  }
  const seen = new Set<string>();
  raw.forEach((entry, index) => {
    const where = `dataQuery.connections entry ${index + 1}`;
    if (!isRecord(entry)) {
      problems.push(`${where} is not an object and was skipped.`);
      return;
    }
    const name = nonEmptyString(entry.name);
    if (!name) {
      problems.push(`${where} has no "name" and was skipped.`);
      return;
    }
    if (seen.has(name)) {
      problems.push(`${where}: the name "${name}" is used twice; rename one of them.`);
      return;
    }
    if (entry.sample === true) {
      seen.add(name);
      connections.push({ kind: 'sample', name });
      return;
    }
    const baseUrl = nonEmptyString(entry.baseUrl);
    const urlProblem = baseUrl ? checkBaseUrl(baseUrl) : 'it needs a "baseUrl" (or "sample": true).';
    if (!baseUrl || urlProblem) {
      problems.push(`Connection "${name}" was skipped: ${urlProblem}`);
      return;
    }
    const namespaces = Array.isArray(entry.namespaces)
      ? entry.namespaces.map(nonEmptyString).filter((n): n is string => n !== undefined)
      : [...DEFAULT_NAMESPACES];
    seen.add(name);
    connections.push({
      kind: 'remote',
      name,
      baseUrl: baseUrl.replace(/\/+$/, ''),
      dataPrefix: nonEmptyString(entry.dataPrefix)?.replace(/^\/+|\/+$/g, '') ?? DEFAULT_DATA_PREFIX,
      namespaces,
      scope: nonEmptyString(entry.scope),
      allowInsecureHttp: entry.allowInsecureHttp === true,
    });
  });
  return { connections, problems };
}

/** The setting entry for a connection, leaving defaults out so settings stay short. */
export function toSettingEntry(connection: Connection): Record<string, unknown> {
  if (connection.kind === 'sample') return { name: connection.name, sample: true };
  const entry: Record<string, unknown> = { name: connection.name, baseUrl: connection.baseUrl };
  if (connection.dataPrefix !== DEFAULT_DATA_PREFIX) entry.dataPrefix = connection.dataPrefix;
  const defaults = DEFAULT_NAMESPACES.join('\n');
  if (connection.namespaces.join('\n') !== defaults) entry.namespaces = connection.namespaces;
  if (connection.scope) entry.scope = connection.scope;
  if (connection.allowInsecureHttp) entry.allowInsecureHttp = true;
  return entry;
}

/** A name not yet taken: `base`, else `base 2`, `base 3`, ... */
export function uniqueName(base: string, taken: Iterable<string>): string {
  const names = new Set(taken);
  if (!names.has(base)) return base;
  for (let i = 2; ; i++) if (!names.has(`${base} ${i}`)) return `${base} ${i}`;
}

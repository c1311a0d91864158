// The argument objects of the connection commands, checked before anything is asked or sent:
// each check resolves to what the command needs, or throws a usage error that says what to
// pass. Pure: no `vscode` import.

import { DqError } from '../../client/errors';
import type { Credentials } from '../../client/types';
import { isRecord } from '../../core/isRecord';
import { checkBaseUrl, insecureHost, parseConnections, type Connection, type RemoteConnection } from './connectionConfig';

/** The argument object of `dataQuery.addConnection`. */
export interface AddConnectionArgs {
  name: string;
  baseUrl: string;
  dataPrefix?: string;
  namespaces?: string[];
  scope?: string;
  clientId: string;
  clientSecret: string;
  /** permits plain http:// to a host other than this machine */
  allowInsecureHttp?: true;
}

/**
 * The connection and credentials an Add Connection argument object names, or a usage error
 * saying what to change. `taken`: the names already in use.
 */
export function checkAddConnectionArgs(args: unknown, taken: string[]): { connection: RemoteConnection; credentials: Credentials } {
  const usage = (message: string): DqError => new DqError('usage', message);
  if (!isRecord(args)) throw usage('pass an object {name, baseUrl, clientId, clientSecret, dataPrefix?, namespaces?, scope?, allowInsecureHttp?}.');
  const { name, baseUrl, dataPrefix, namespaces, scope, clientId, clientSecret, allowInsecureHttp } = args;
  if (typeof name !== 'string' || !name.trim()) throw usage('pass a "name" for the connection.');
  if (taken.includes(name.trim())) throw usage(`a connection named "${name.trim()}" already exists; pass another name.`);
  if (typeof baseUrl !== 'string') throw usage('pass a "baseUrl" such as https://api.example.com.');
  const urlProblem = checkBaseUrl(baseUrl);
  if (urlProblem) throw usage(urlProblem);
  if (typeof clientId !== 'string' || !clientId.trim() || typeof clientSecret !== 'string' || !clientSecret.trim()) {
    throw usage('pass the "clientId" and "clientSecret" of the connection.');
  }
  const host = insecureHost(baseUrl);
  if (host && allowInsecureHttp !== true) {
    throw new DqError(
      'insecure',
      `Refusing plain http to ${host}: the client secret, tokens and data would travel unencrypted. Use https://, or pass allowInsecureHttp: true if you trust every network in between.`,
    );
  }
  const [connection] = parseConnections([{ name, baseUrl, dataPrefix, namespaces, scope, allowInsecureHttp }]).connections;
  return { connection: connection as RemoteConnection, credentials: { clientId: clientId.trim(), clientSecret } };
}

/** `{connection, clientId, clientSecret}`: the remote connection of that name and the credentials, the ID trimmed. */
export function checkCredentialArgs(args: Record<string, unknown>, connections: readonly Connection[]): { connection: RemoteConnection; credentials: Credentials } {
  const usage = (message: string): DqError => new DqError('usage', message);
  const { connection: name, clientId, clientSecret } = args;
  if (typeof name !== 'string') throw usage('pass an object {connection, clientId, clientSecret}.');
  const connection = connections.find((c) => c.name === name.trim());
  if (connection?.kind !== 'remote') throw usage(`there is no connection to a service named "${name.trim()}".`);
  if (typeof clientId !== 'string' || !clientId.trim() || typeof clientSecret !== 'string' || !clientSecret.trim()) {
    throw usage('pass the "clientId" and "clientSecret" of the connection.');
  }
  return { connection, credentials: { clientId: clientId.trim(), clientSecret } };
}

/** `{connection}`: the name of a connection, trimmed. */
export function connectionNameArg(args: Record<string, unknown>): string {
  if (typeof args.connection !== 'string') throw new DqError('usage', 'pass an object {connection}.');
  return args.connection.trim();
}

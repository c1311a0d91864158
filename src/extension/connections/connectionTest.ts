// Tests a connection before anything is saved: a token request with the credentials typed or
// passed, under a progress notification with Cancel.

import * as vscode from 'vscode';
import { cancelledError, DqError, isCancelled, isDqError } from '../../client/errors';
import type { Credentials } from '../../client/types';
import type { Logger } from '../../core/logger';
import type { ClientPool } from './clientPool';
import type { RemoteConnection } from './connectionConfig';

/**
 * Asks the connection's service for a token with `credentials`. Resolves undefined on
 * success, or an error whose message says what went wrong (kind `cancelled` when stopped).
 * `doing` names the work in the cancelled message, e.g. "Adding the connection".
 */
export async function testConnection(
  pool: ClientPool,
  connection: RemoteConnection,
  credentials: Credentials,
  logger: Logger,
  doing: string,
): Promise<DqError | undefined> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Testing the connection "${connection.name}"…`, cancellable: true },
    async (_progress, token) => {
      const abort = new AbortController();
      const listener = token.onCancellationRequested(() => abort.abort());
      const { client, dispose } = pool.transient(connection, credentials);
      try {
        await client.testConnection({ signal: abort.signal });
        logger.info(`Connection "${connection.name}" answered with a token.`);
        return undefined;
      } catch (err) {
        if (isCancelled(err) || abort.signal.aborted) return cancelledError(`${doing} "${connection.name}"`, { after: '.' });
        const message = isDqError(err) ? [err.message, err.hint].filter(Boolean).join(' ') : err instanceof Error ? err.message : String(err);
        logger.warn(`Testing "${connection.name}" failed: ${isDqError(err) ? err.describe() : message}`);
        return new DqError(isDqError(err) ? err.kind : 'network', `Could not connect to "${connection.name}": ${message}`);
      } finally {
        listener.dispose();
        await dispose();
      }
    },
  );
}

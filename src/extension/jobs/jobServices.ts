// What the job commands, the Jobs view and the status bar share: the model, the runner, the
// connections and a way to a connection's client.

import { DqError } from '../../client/errors';
import type { Logger } from '../../core/logger';
import type { JobClient, JobRunner } from '../../jobs/jobRunner';
import type { JobsModel } from '../../jobs/jobsModel';
import type { SincePointStore } from '../../jobs/sincePoints';
import type { ClientPool, ExplorerClient } from '../connections/clientPool';
import type { Connection } from '../connections/connectionConfig';
import type { ConnectionStore } from '../connections/connectionStore';
import type { SchemaModel } from '../schema/schemaModel';

export interface JobServices {
  model: JobsModel;
  runner: JobRunner;
  sincePoints: SincePointStore;
  store: ConnectionStore;
  pool: ClientPool;
  /** table lists and schemas, kept with their ages */
  schemas: SchemaModel;
  logger: Logger;
  clientFor(connection: string): Promise<JobClient>;
  resultsRoot(): Promise<string>;
}

/** A connection from settings by name, or an error naming the ones there are. */
export function findConnection(store: ConnectionStore, name: string): Connection {
  const connection = store.list().find((c) => c.name === name);
  if (connection) return connection;
  const known = store.list().map((c) => `"${c.name}"`).join(', ');
  throw new DqError('usage', `There is no connection named "${name}".`, {
    hint: known ? `Use one of ${known}, or add it with "Data Query: Add Connection".` : 'Add one with "Data Query: Add Connection" or "Data Query: Try Sample Data".',
  });
}

/** The shared client of a connection from settings, by name. */
export function clientByName(store: ConnectionStore, pool: ClientPool): (name: string) => Promise<ExplorerClient> {
  return async (name) => {
    const { client } = await pool.session(findConnection(store, name));
    return client;
  };
}

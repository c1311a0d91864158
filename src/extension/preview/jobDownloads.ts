// The downloaded jobs of the jobs model, with their table's schema fetched from the job's
// connection when a preview or the console needs it.

import type { SchemaEnvelope } from '../../core/contract';
import type { Logger } from '../../core/logger';
import type { JobEntry } from '../../jobs/jobEntry';
import type { JobsModel } from '../../jobs/jobsModel';
import type { ClientPool } from '../connections/clientPool';
import type { ConnectionStore } from '../connections/connectionStore';
import { clientByName } from '../jobs/jobServices';
import type { DownloadedJob, DownloadedJobsProvider } from './downloadedJobs';

export type SchemaFetcher = (connection: string, namespace: string, table: string) => Promise<SchemaEnvelope>;

/** A table's schema from the shared client of the named connection. */
export function schemaFromConnections(store: ConnectionStore, pool: ClientPool): SchemaFetcher {
  const clientFor = clientByName(store, pool);
  return async (connection, namespace, table) => {
    const client = await clientFor(connection);
    return client.getSchema(namespace, table);
  };
}

export function jobDownloads(model: Pick<JobsModel, 'list'>, fetchSchema: SchemaFetcher, logger: Logger): DownloadedJobsProvider {
  const downloaded = (e: JobEntry): e is JobEntry & { jobId: string } => e.state === 'complete' && e.jobId !== undefined && e.files.length > 0;
  return () =>
    model
      .list()
      .filter(downloaded)
      .map(
        (e): DownloadedJob => ({
          key: e.key,
          connection: e.connection,
          namespace: e.namespace,
          table: e.table,
          jobId: e.jobId,
          paths: e.files.map((f) => f.path),
          createdAt: e.createdAt,
          schema: () =>
            fetchSchema(e.connection, e.namespace, e.table).catch((err: unknown) => {
              logger.warn(`The schema of ${e.namespace}.${e.table} could not be fetched, so its column types are inferred: ${err instanceof Error ? err.message : String(err)}`);
              return undefined;
            }),
        }),
      );
}

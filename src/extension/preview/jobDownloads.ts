// The downloaded jobs of the jobs model, with their table's schema when a preview or the
// console needs it: the kept copy, or the service's if it answers soon (results open either way).

import type { SchemaEnvelope } from '../../core/contract';
import type { Logger } from '../../core/logger';
import type { ResultFormat } from '../../engine/engineProtocol';
import type { JobEntry } from '../../jobs/jobEntry';
import type { JobsModel } from '../../jobs/jobsModel';
import type { ConnectionStore } from '../connections/connectionStore';
import type { SchemaModel } from '../schema/schemaModel';
import { findConnection } from '../jobs/jobServices';
import type { DownloadedJob, DownloadedJobsProvider } from './downloadedJobs';

export type SchemaFetcher = (connection: string, namespace: string, table: string) => Promise<SchemaEnvelope>;

/** The longest a preview or a console statement waits for a schema not kept yet. */
export const SCHEMA_WAIT_MS = 5_000;

/** A table's schema through the SchemaModel, for the named connection. */
export function schemaFromConnections(store: ConnectionStore, schemas: SchemaModel, waitMs = SCHEMA_WAIT_MS): SchemaFetcher {
  return (connection, namespace, table) => Promise.resolve().then(() => schemas.schemaWithin(findConnection(store, connection), namespace, table, waitMs));
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
          format: e.request.format,
          createdAt: e.createdAt,
          schema: () =>
            fetchSchema(e.connection, e.namespace, e.table).catch((err: unknown) => {
              logger.warn(`The schema of ${e.namespace}.${e.table} could not be fetched, so ${readWithoutSchema(e.request.format)}: ${err instanceof Error ? err.message : String(err)}`);
              return undefined;
            }),
        }),
      );
}

/** How a job's files are read without their table's schema (src/engine/sourcePlan.ts), as the log says it. */
function readWithoutSchema(format: ResultFormat): string {
  switch (format) {
    case 'parquet':
      return 'its columns keep the types of its Parquet files';
    case 'jsonl':
      return 'its columns are read as text (objects and lists as JSON)';
    default:
      return 'its columns are read as text';
  }
}

// The schema features wired together: the schema pages, their commands, and following newer
// schema versions that completed jobs report. All of them read through the SchemaModel, whose
// changes the Explorer follows.

import * as vscode from 'vscode';
import type { Clock } from '../../core/clock';
import type { JobsModel } from '../../jobs/jobsModel';
import { findConnection } from '../jobs/jobServices';
import { registerSchemaCommands, type SchemaCommandDeps } from './schemaCommands';
import { SchemaPanels, type TableRef } from './schemaPanel';
import { watchCompletedJobs } from './schemaVersionWatch';

export interface SchemaFeatureDeps extends Omit<SchemaCommandDeps, 'panels'> {
  extensionUri: vscode.Uri;
  jobs: JobsModel;
  clock: Clock;
}

/** What the schema pages show, for tests that read them as a user sees them. */
export type SchemaPages = Pick<SchemaPanels, 'versionShown' | 'pageHtml'>;

export function registerSchemaFeature(deps: SchemaFeatureDeps): { pages: SchemaPages; disposables: vscode.Disposable[] } {
  const panels = new SchemaPanels(deps.extensionUri, () => deps.clock.now());
  const readAgain = async (ref: TableRef): Promise<void> => {
    const connection = findConnection(deps.store, ref.connection);
    if (!deps.schemas.heldSchema(connection, ref.namespace, ref.table) && panels.versionShown(ref) === undefined) return;
    panels.update(ref, await deps.schemas.schema(connection, ref.namespace, ref.table, { force: true, priority: 'background' }));
  };
  const disposables = [
    panels,
    ...registerSchemaCommands({ ...deps, panels }),
    watchCompletedJobs(deps.jobs, (ref) =>
      readAgain(ref).catch((err: unknown) => deps.logger.warn(`The schema of ${ref.namespace}.${ref.table} could not be read again: ${err instanceof Error ? err.message : String(err)}`)),
    ),
  ];
  return { pages: panels, disposables };
}

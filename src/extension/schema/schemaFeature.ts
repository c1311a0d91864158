// The schema features wired together: the schema pages, their commands, and following newer
// schema versions that completed jobs report.

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
  const reader = deps.explorer.schemas;
  const readAgain = async (ref: TableRef): Promise<void> => {
    const connection = findConnection(deps.store, ref.connection);
    const held = reader.cache.schema(reader.keyOf(connection), ref.namespace, ref.table);
    if (!held && panels.versionShown(ref) === undefined) return;
    const read = await reader.schema(connection, ref.namespace, ref.table, { force: true, priority: 'background' });
    panels.update(ref, read);
    if (read.value.version !== held?.value.version) deps.explorer.schemaChanged(ref.connection, ref.namespace, ref.table);
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

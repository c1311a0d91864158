// Query Table, Query Changes Since (a job's point) and Run Again. From the palette the
// quick picks walk connection > namespace > table > format > snapshot or incremental, the
// incremental pre-selected when this connection has a point on the table.

import * as vscode from 'vscode';
import { DqError } from '../../client/errors';
import { FORMATS, type CreateJobRequest, type Format } from '../../core/contract';
import { dataPoint, tableName, type JobEntry, type QueryParams } from '../../jobs/jobEntry';
import { parseQueryArgs } from '../../jobs/queryArgs';
import { formatPoint, queueText } from '../../jobs/statusTexts';
import type { TableNode } from '../explorer/explorerNodes';
import { Commands } from '../ui/ids';
import { followInNotification, type RecoveryActions } from './jobProgress';
import { findConnection, type JobServices } from './jobServices';
import { readQuerySettings } from './jobSettings';
import { runPickSteps, type PickItem, type PickStep } from '../ui/multiStepPick';
import type { ErrorAction } from '../ui/presentError';
import { optionalBoolean, registerArgsOrInteractiveCommand } from '../ui/commands';
import { commandResult, jobFromArgs, jobFromNode } from './jobCommandSupport';

interface QueryDraft {
  connection?: string;
  namespace?: string;
  table?: string;
  format?: Format;
  since?: string | null;
}

export function registerQueryCommands(services: JobServices): vscode.Disposable[] {
  const { logger, model } = services;
  const start = (params: QueryParams, download = readQuerySettings().downloadAutomatically): Promise<unknown> => {
    const { entry, done } = services.runner.query(params, download);
    return followInNotification(services, entry, done, recovery(services, start));
  };
  return [
    registerArgsOrInteractiveCommand(Commands.queryTable, 'Query Table', logger, {
      fromArgs: async (args) => {
        const { params, download } = parseQueryArgs(args, { format: readQuerySettings().defaultFormat, download: readQuerySettings().downloadAutomatically });
        findConnection(services.store, params.connection);
        return commandResult(await services.runner.query(params, download).done);
      },
      interactive: async (node) => {
        const params = await askForQuery(services, node as TableNode | undefined);
        return params && start(params);
      },
    }),
    registerArgsOrInteractiveCommand(Commands.queryChangesSince, 'Query Changes Since', logger, {
      fromArgs: async (args) => commandResult(await services.runner.query(changesSince(jobFromArgs(model, args)), optionalBoolean(args, 'download') ?? readQuerySettings().downloadAutomatically).done),
      interactive: async (node) => {
        const entry = await jobFromNode(model, node, 'Query Changes Since', (e) => dataPoint(e) !== undefined);
        return entry && start(changesSince(entry));
      },
    }),
    registerArgsOrInteractiveCommand(Commands.rerunJob, 'Run Again', logger, {
      fromArgs: async (args) => commandResult(await services.runner.query(again(jobFromArgs(model, args)), optionalBoolean(args, 'download') ?? readQuerySettings().downloadAutomatically).done),
      interactive: async (node) => {
        const entry = await jobFromNode(model, node, 'Run Again');
        return entry && start(again(entry));
      },
    }),
  ];
}

function again(entry: JobEntry): QueryParams {
  return { connection: entry.connection, namespace: entry.namespace, table: entry.table, request: { ...entry.request } };
}

/** An incremental query from the job's `at` (snapshot) or `until` (incremental). */
function changesSince(entry: JobEntry): QueryParams {
  const point = dataPoint(entry);
  if (!point) throw new DqError('usage', `The job of ${tableName(entry)} has no point in time to continue from yet.`, { hint: 'Wait for it to complete.' });
  const request: CreateJobRequest = { format: entry.request.format, since: point };
  if (entry.request.mode) request.mode = entry.request.mode;
  return { connection: entry.connection, namespace: entry.namespace, table: entry.table, request };
}

function recovery(services: JobServices, start: (params: QueryParams) => Promise<unknown>): RecoveryActions {
  return (entry, kind) => {
    const actions: ErrorAction[] = [];
    if (kind === 'snapshotRequired') {
      const { since: _since, until: _until, ...snapshot } = entry.request;
      actions.push({ title: 'Run Snapshot', run: () => start({ ...again(entry), request: snapshot }) });
    } else if (kind !== 'usage' && kind !== 'auth') {
      // an auth failure's step, Set Credentials, is the one describeFailure gives every auth failure
      actions.push({ title: 'Run Again', run: () => start(again(entry)) });
    }
    if (services.model.get(entry.key)) actions.push({ title: 'Show Jobs', run: () => vscode.commands.executeCommand(Commands.showJobs) });
    return actions;
  };
}

async function askForQuery(services: JobServices, node: TableNode | undefined): Promise<QueryParams | undefined> {
  const draft: QueryDraft = node ? { connection: node.connection.name, namespace: node.namespace, table: node.table } : {};
  const recent = services.model.list()[0];
  const steps: PickStep<QueryDraft>[] = [
    {
      placeholder: 'Connection',
      skip: (d) => d.connection !== undefined,
      items: async () => {
        const items = services.store.list().map((c): PickItem<QueryDraft> => ({ label: c.name, isDefault: c.name === recent?.connection, apply: (d) => (d.connection = c.name) }));
        if (items.length === 0) throw new DqError('usage', 'There is no connection yet.', { hint: 'Add one with "Data Query: Add Connection", or "Data Query: Try Sample Data".' });
        return items;
      },
    },
    {
      placeholder: 'Namespace',
      skip: (d) => d.namespace !== undefined,
      items: async (d) => {
        const { namespaces } = await services.pool.session(findConnection(services.store, d.connection as string));
        return namespaces.map((n) => ({ label: n, isDefault: n === recent?.namespace, apply: (s: QueryDraft) => (s.namespace = n) }));
      },
    },
    {
      placeholder: 'Table',
      skip: (d) => d.table !== undefined,
      items: async (d, note, signal) => {
        const tables = await services.schemas.tables(findConnection(services.store, d.connection as string), d.namespace as string, signal, (wait) =>
          note(`Listing tables: ${queueText({ ...wait, until: Date.now() + wait.waitMs }, Date.now())}`),
        );
        return [...tables].sort().map((t) => ({ label: t, isDefault: t === recent?.table, apply: (s: QueryDraft) => (s.table = t) }));
      },
    },
    {
      placeholder: 'Format of the result files',
      items: async () => {
        const preferred = readQuerySettings().defaultFormat;
        return FORMATS.map((f) => ({ label: f, description: f === preferred ? 'default' : undefined, isDefault: f === preferred, apply: (s: QueryDraft) => (s.format = f) }));
      },
    },
    {
      placeholder: 'Snapshot or changes',
      items: async (d) => {
        const point = services.sincePoints.get(d.connection as string, d.namespace as string, d.table as string);
        const snapshot: PickItem<QueryDraft> = { label: 'Snapshot', detail: 'The whole table as it is now', apply: (s) => (s.since = null) };
        if (!point) return [{ ...snapshot, isDefault: true }];
        const changes: PickItem<QueryDraft> = { label: `Changes since ${formatPoint(point)}`, detail: 'Only what changed after the last query of this table', isDefault: true, apply: (s) => (s.since = point) };
        return [changes, snapshot];
      },
    },
  ];
  const done = await runPickSteps('Query Table', draft, steps);
  if (!done) return undefined;
  const request: CreateJobRequest = { format: done.format ?? 'jsonl' };
  if (done.since) request.since = done.since;
  return { connection: done.connection as string, namespace: done.namespace as string, table: done.table as string, request };
}

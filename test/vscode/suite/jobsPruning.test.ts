// dataQuery.jobs.keepFinishedDays in a window left open: lowering the setting takes finished
// jobs older than the new number of days out of the Jobs list at once, without a reload, and
// leaves the newer ones. The jobs are real ones of an emulator; one of them is made to have
// finished days ago, as it would be in a workspace kept open that long.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { activateExtension, addEmulatorConnection, setConnections } from './vscodeHelpers';

const SERVICE = 'Pruning emulator';
const DAY_MS = 24 * 60 * 60 * 1000;

interface QueryOutcome {
  job: { id: string; status: string };
}

function query(table: string): Thenable<QueryOutcome> {
  return vscode.commands.executeCommand<QueryOutcome>('dataQuery.queryTable', { connection: SERVICE, namespace: 'canvas', table, download: false });
}

function keepFinishedDays(days: number | undefined): Thenable<void> {
  return vscode.workspace.getConfiguration('dataQuery').update('jobs.keepFinishedDays', days, vscode.ConfigurationTarget.Global);
}

/** Sets the days and settles once the window has told its listeners (the extension's, registered before this one, first). */
async function keepFinishedDaysSeen(days: number): Promise<void> {
  const seen = new Promise<void>((resolve) => {
    const listening = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('dataQuery.jobs.keepFinishedDays')) return;
      listening.dispose();
      resolve();
    });
  });
  await keepFinishedDays(days);
  await seen;
}

describe('Finished jobs leave the Jobs list when keepFinishedDays is lowered', function () {
  this.timeout(120_000);
  let service: RunningEmulator;

  before(async () => {
    service = await startEmulator({ port: 0, jobDelayMs: 100, limits: false, namespaces: ['canvas'] });
  });

  after(async () => {
    await keepFinishedDays(undefined);
    await setConnections(undefined);
    await service?.close();
  });

  it('takes a job finished three days ago out of the list once the setting says two, and keeps today\'s', async () => {
    const { api } = await activateExtension();
    await setConnections([]);
    await addEmulatorConnection(service, SERVICE);
    const old = await query('accounts');
    const recent = await query('courses');
    assert.equal(old.job.status, 'complete');
    assert.equal(recent.job.status, 'complete');

    const oldEntry = api.jobs.find(SERVICE, old.job.id);
    assert.ok(oldEntry, 'the first job is listed');
    api.jobs.update(oldEntry.key, { updatedAt: Date.now() - 3 * DAY_MS });
    await keepFinishedDaysSeen(3 + 1);
    assert.ok(api.jobs.find(SERVICE, old.job.id), 'kept while the setting allows four days, once the window has applied it');

    await keepFinishedDaysSeen(2);
    assert.equal(vscode.workspace.getConfiguration('dataQuery').get('jobs.keepFinishedDays'), 2, 'the window has the new setting');
    assert.equal(api.jobs.find(SERVICE, old.job.id), undefined, 'the job finished three days ago left the Jobs list');
    assert.ok(api.jobs.find(SERVICE, recent.job.id), 'the job finished today stays');
  });
});

// Credentials of a connection and the service they were saved for, against emulators: a
// base URL edited in the settings does not receive the stored secret until its owner agrees
// (a modal naming both hosts), secrets of entries deleted by hand are deleted too, Set
// Credentials refuses blank values and tests before storing, Add Connection's optional last
// step sets the data prefix and namespaces, and Edit Connection in Settings opens the entry.
// Prompts are answered by replacing VS Code's prompt functions (and its input boxes and quick
// picks, with the stand-ins of fakeQuickInputs.ts) with a script, as a person would answer
// them; everything behind them (settings, SecretStorage, HTTP) is real.

import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { FakeQuickInputs, type FakeWidget } from '../../support/fakeQuickInputs';
import type { ExplorerNode } from '../../../src/extension/explorer/explorerNodes';
import type { DataQueryExtensionApi } from '../../../src/extension/extension';
import { activateExtension, addEmulatorConnection, connectionsSetting, labels, nextRedraw, requestsOf, setConnections } from './vscodeHelpers';

const SHARED = { clientId: 'shared-client', clientSecret: 'shared-secret-value' };

/** One prompt as the extension showed it. */
interface Prompt {
  kind: 'input' | 'pick' | 'warning' | 'error';
  title?: string;
  message?: string;
  detail?: string;
  modal?: boolean;
  value?: string;
  choices: string[];
  validate?: (value: string) => unknown;
}

type Script = (prompt: Prompt) => unknown;

/**
 * Answers the extension's prompts with `script` until the returned function is called. An
 * input box or quick pick made with createInputBox or createQuickPick is asked about with its
 * heading (title and step counter, as VS Code draws it) once its items have loaded: a string
 * answer is typed or picked and Enter pressed, undefined presses Escape.
 */
function answerPrompts(script: Script): { asked: Prompt[]; restore(): void } {
  const window = vscode.window as unknown as Record<string, unknown>;
  const names = ['showInputBox', 'showQuickPick', 'showWarningMessage', 'showErrorMessage', 'showInformationMessage', 'createInputBox', 'createQuickPick'] as const;
  const originals = new Map(names.map((n) => [n, window[n]]));
  const asked: Prompt[] = [];
  const failures: unknown[] = [];
  const ask = (prompt: Prompt): unknown => {
    asked.push(prompt);
    return script(prompt);
  };
  window.showInputBox = async (options: vscode.InputBoxOptions = {}) =>
    ask({ kind: 'input', title: options.title, value: options.value, choices: [], validate: options.validateInput });
  window.showQuickPick = async (items: readonly (string | vscode.QuickPickItem)[] | Thenable<readonly (string | vscode.QuickPickItem)[]>, options: vscode.QuickPickOptions = {}) => {
    const list = await items;
    const label = (i: string | vscode.QuickPickItem): string => (typeof i === 'string' ? i : i.label);
    const chosen = ask({ kind: 'pick', title: options.title, choices: list.map(label) });
    return list.find((i) => label(i) === chosen);
  };
  const quickInputs = new FakeQuickInputs(vscode.QuickInputButtons.Back);
  const answer = async (widget: FakeWidget): Promise<void> => {
    // the extension goes on after show() returns; answer once it has
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (widget.kind === 'pick') await widget.loaded();
    const chosen = ask({ kind: widget.kind, title: widget.heading, value: widget.value, choices: widget.kind === 'pick' ? widget.labels : [] });
    if (typeof chosen !== 'string') widget.escape();
    else if (widget.kind === 'pick') await widget.choose(chosen);
    else widget.enter(chosen);
  };
  const answering = quickInputs.onDidShow((widget) => {
    answer(widget).catch((err: unknown) => {
      failures.push(err);
      if (widget.visible) widget.escape();
    });
  });
  window.createInputBox = () => quickInputs.createInputBox();
  window.createQuickPick = () => quickInputs.createQuickPick();
  const message =
    (kind: 'warning' | 'error') =>
    async (text: string, ...rest: unknown[]) => {
      const options = typeof rest[0] === 'object' && rest[0] !== null ? (rest.shift() as vscode.MessageOptions) : {};
      return ask({ kind, message: text, detail: options.detail, modal: options.modal, choices: rest.map(String) });
    };
  window.showWarningMessage = message('warning');
  window.showErrorMessage = message('error');
  window.showInformationMessage = async () => undefined;
  return {
    asked,
    restore: () => {
      answering.dispose();
      for (const [n, f] of originals) window[n] = f;
      if (failures.length > 0) throw failures[0];
    },
  };
}

/** Sets the connections and settles once the window has told its listeners (the extension's first). */
async function setConnectionsSeen(value: unknown[]): Promise<void> {
  const seen = new Promise<void>((resolve) => {
    const listening = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('dataQuery.connections')) return;
      listening.dispose();
      resolve();
    });
  });
  await setConnections(value);
  await seen;
}

async function connectionNode(api: DataQueryExtensionApi, name: string): Promise<ExplorerNode> {
  const node = (await api.explorer.getChildren()).find((n) => labels(api, [n])[0] === name);
  assert.ok(node?.kind === 'connection', `the explorer shows "${name}"`);
  return node;
}

function hostOf(emulator: RunningEmulator): string {
  return new URL(emulator.baseUrl).host;
}

describe('Connection credentials and the service they were saved for', function () {
  this.timeout(120_000);
  let first: RunningEmulator;
  let second: RunningEmulator;
  let script: ReturnType<typeof answerPrompts> | undefined;

  before(async () => {
    first = await startEmulator({ port: 0, ...SHARED, namespaces: ['canvas'], limits: false });
    second = await startEmulator({ port: 0, ...SHARED, namespaces: ['canvas'], limits: false, prefix: 'gw' });
  });

  afterEach(async () => {
    script?.restore();
    script = undefined;
    await setConnections(undefined);
  });

  after(async () => {
    await first?.close();
    await second?.close();
  });

  it('keeps the stored secret from a base URL edited in the settings, and sends it there only after a modal naming both hosts', async () => {
    const { api } = await activateExtension();
    await setConnectionsSeen([]);
    await addEmulatorConnection(first, 'Moved', { namespaces: ['canvas'] });
    // the base URL is changed by hand in settings.json, to another service
    await setConnectionsSeen([{ name: 'Moved', baseUrl: second.baseUrl, dataPrefix: 'gw', namespaces: ['canvas'] }]);
    const signIns = requestsOf(second, 'token');

    const moved = await connectionNode(api, 'Moved');
    const item = api.explorer.getTreeItem(moved);
    assert.equal(item.command?.command, 'dataQuery.setCredentials', 'the connection asks for credentials instead of opening');
    assert.match(String(item.description), /credentials saved for another URL/, 'the node says why, not "no credentials"');
    const tip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : String(item.tooltip);
    assert.ok(tip.includes(first.baseUrl.replace(/\/+$/, '')), `the tooltip names where they were saved: ${tip}`);
    // what a listing would do: the client refuses to sign in with credentials saved elsewhere
    const [canvas] = await api.explorer.getChildren(moved);
    const [error] = await api.explorer.getChildren(canvas);
    assert.equal(error.kind, 'error');
    assert.match(labels(api, [error])[0], new RegExp(`saved for ${first.baseUrl.replace(/[.]/g, '\\.')}`));
    assert.equal(requestsOf(second, 'token'), signIns, 'the secret was not sent to the new host');

    script = answerPrompts((prompt) => (prompt.kind === 'warning' ? prompt.choices[0] : undefined));
    const redrawn = nextRedraw(api, undefined as unknown as ExplorerNode);
    await vscode.commands.executeCommand('dataQuery.setCredentials', moved);
    const [modal] = script.asked;
    assert.equal(modal?.kind, 'warning');
    assert.equal(modal.modal, true, 'a modal confirmation');
    const shown = `${modal.message} ${modal.detail}`;
    assert.ok(shown.includes(hostOf(first)) && shown.includes(hostOf(second)), `both hosts are named: ${shown}`);
    assert.deepEqual(modal.choices, [`Use Them with ${hostOf(second)}`, 'Enter New Credentials']);
    assert.ok(requestsOf(second, 'token') > signIns, 'agreed: tested at the new host');
    await redrawn;

    const tables = await api.explorer.getChildren((await api.explorer.getChildren(await connectionNode(api, 'Moved')))[0]);
    assert.ok(tables.length > 0 && tables.every((t) => t.kind === 'table'), `tables, not ${labels(api, tables).join(', ')}`);
  });

  it('keeps the stored secret of an entry gone from the settings for a moment (a name being retyped), for the URL it was saved for', async () => {
    const { api } = await activateExtension();
    await setConnectionsSeen([]);
    await addEmulatorConnection(first, 'Retyped', { namespaces: ['canvas'] });
    // settings.json saved while the name was being edited, then put back
    await setConnectionsSeen([{ name: 'Retype', baseUrl: first.baseUrl, namespaces: ['canvas'] }]);
    await setConnectionsSeen([{ name: 'Retyped', baseUrl: first.baseUrl, namespaces: ['canvas'] }]);

    const node = await connectionNode(api, 'Retyped');
    assert.doesNotMatch(String(api.explorer.getTreeItem(node).description ?? ''), /credentials/, 'its credentials are still there');
    const [canvas] = await api.explorer.getChildren(node);
    const tables = await api.explorer.getChildren(canvas);
    assert.ok(tables.length > 0 && tables.every((t) => t.kind === 'table'), `tables, not ${labels(api, tables).join(', ')}`);
  });

  it('Set Credentials refuses blank values, trims the ID, and stores only credentials that sign in', async () => {
    const { api } = await activateExtension();
    await setConnectionsSeen([{ name: 'Needs keys', baseUrl: first.baseUrl, namespaces: ['canvas'] }]);
    const node = await connectionNode(api, 'Needs keys');
    let attempt = 0;
    let failure: string | undefined;
    script = answerPrompts((prompt) => {
      if (prompt.kind === 'input' && prompt.title?.includes('(1/2)')) {
        attempt++;
        // a third round means the second failed too: stop there
        return attempt === 1 ? `  ${SHARED.clientId}  ` : attempt === 2 ? prompt.value : undefined;
      }
      if (prompt.kind === 'input') return attempt === 1 ? 'not-the-secret' : SHARED.clientSecret;
      if (prompt.kind === 'error') {
        failure ??= prompt.message;
        return 'Edit and Retry';
      }
      return undefined;
    });
    const signIns = requestsOf(first, 'token');
    await vscode.commands.executeCommand('dataQuery.setCredentials', node);
    script.restore();

    const [idBox, secretBox] = script.asked;
    assert.ok(idBox.validate && secretBox.validate);
    assert.ok(await idBox.validate('   '), 'a blank client ID is refused in the box');
    assert.equal(await idBox.validate(' id '), undefined);
    assert.ok(await secretBox.validate('  '), 'a blank secret is refused in the box');
    assert.match(failure ?? '', /Could not connect to "Needs keys"/, 'a wrong secret is reported');
    const retryBox = script.asked.filter((p) => p.kind === 'input')[2];
    assert.equal(retryBox.value, SHARED.clientId, 'Edit and Retry shows the ID typed, trimmed');
    assert.ok(requestsOf(first, 'token') >= signIns + 2, 'both attempts were tested with a token request');

    const after = await connectionNode(api, 'Needs keys');
    assert.doesNotMatch(String(api.explorer.getTreeItem(after).description), /no credentials/);
    const tables = await api.explorer.getChildren((await api.explorer.getChildren(after))[0]);
    assert.ok(tables.length > 0 && tables.every((t) => t.kind === 'table'), `tables, not ${labels(api, tables).join(', ')}`);
  });

  it('Set Credentials with an argument object tests them first and stores nothing that fails', async () => {
    const { api } = await activateExtension();
    await setConnectionsSeen([{ name: 'Wrong keys', baseUrl: first.baseUrl, namespaces: ['canvas'] }]);
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('dataQuery.setCredentials', { connection: 'Wrong keys', clientId: SHARED.clientId, clientSecret: 'nope' })),
      /Could not connect to "Wrong keys"/,
    );
    assert.match(String(api.explorer.getTreeItem(await connectionNode(api, 'Wrong keys')).description), /no credentials/, 'nothing stored');
    const result = await vscode.commands.executeCommand('dataQuery.setCredentials', { connection: 'Wrong keys', clientId: ` ${SHARED.clientId} `, clientSecret: SHARED.clientSecret });
    assert.deepEqual(result, { name: 'Wrong keys' });
    assert.doesNotMatch(String(api.explorer.getTreeItem(await connectionNode(api, 'Wrong keys')).description), /no credentials/);
  });

  it('Add Connection\'s optional last step sets the data prefix and namespaces; Enter keeps the defaults', async () => {
    const { api } = await activateExtension();
    await setConnectionsSeen([{ name: 'Other', sample: true }]);
    const answers = ['Prefixed', second.baseUrl, SHARED.clientId, SHARED.clientSecret];
    let options = 0;
    // the steps are titled "Add Connection (n/5)"; a setting of the last step "Add Connection: Data prefix (5/5)"
    const step = /^Add Connection \(\d\/5\)$/;
    script = answerPrompts((prompt) => {
      if (prompt.kind === 'input' && step.test(prompt.title ?? '')) return answers.shift();
      if (prompt.kind === 'pick') {
        options++;
        return options === 1 ? 'Data prefix' : options === 2 ? 'Namespaces' : prompt.choices[0];
      }
      if (prompt.kind === 'input' && prompt.title?.startsWith('Add Connection: Data prefix')) {
        assert.equal(prompt.value, 'dap', 'the default is shown');
        return '/gw/';
      }
      if (prompt.kind === 'input' && prompt.title?.startsWith('Add Connection: Namespaces')) return ' canvas , ';
      return undefined;
    });
    await vscode.commands.executeCommand('dataQuery.addConnection');
    script.restore();
    assert.deepEqual(
      script.asked.filter((p) => p.kind !== 'input' || step.test(p.title ?? '')).map((p) => p.title),
      ['(1/5)', '(2/5)', '(3/5)', '(4/5)', '(5/5)', '(5/5)', '(5/5)'].map((s) => `Add Connection ${s}`),
    );
    assert.deepEqual(connectionsSetting(), [
      { name: 'Other', sample: true },
      { name: 'Prefixed', baseUrl: second.baseUrl, dataPrefix: 'gw', namespaces: ['canvas'] },
    ]);
    const tables = await api.explorer.getChildren((await api.explorer.getChildren(await connectionNode(api, 'Prefixed')))[0]);
    assert.ok(tables.length > 0 && tables.every((t) => t.kind === 'table'), `tables under the prefix, not ${labels(api, tables).join(', ')}`);

    const defaults = ['Defaults', first.baseUrl, SHARED.clientId, SHARED.clientSecret];
    script = answerPrompts((prompt) => (prompt.kind === 'input' ? defaults.shift() : prompt.kind === 'pick' ? prompt.choices[0] : undefined));
    await vscode.commands.executeCommand('dataQuery.addConnection');
    assert.deepEqual((connectionsSetting() as unknown[])[2], { name: 'Defaults', baseUrl: first.baseUrl });
  });

  it('Edit Connection in Settings opens the user settings.json with the connection\'s entry selected', async () => {
    const { api, extension } = await activateExtension();
    await setConnectionsSeen([
      { name: 'Sample data', sample: true },
      { name: 'To edit', baseUrl: first.baseUrl },
    ]);
    const node = await connectionNode(api, 'To edit');
    try {
      await vscode.commands.executeCommand('dataQuery.editConnection', node);
      const editor = vscode.window.activeTextEditor;
      assert.ok(editor, 'an editor is open');
      assert.match(editor.document.uri.path, /\/User\/settings\.json$/, 'the user settings.json');
      assert.equal(editor.document.getText(editor.selection), '"To edit"');
      assert.match(editor.document.lineAt(editor.selection.start.line).text, /"name"/);

      await vscode.commands.executeCommand('dataQuery.editConnection', { connection: 'Sample data' });
      const again = vscode.window.activeTextEditor;
      assert.equal(again && again.document.getText(again.selection), '"Sample data"');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
    const menus = extension.packageJSON.contributes.menus['view/item/context'] as { command: string; when: string }[];
    const entry = menus.find((m) => m.command === 'dataQuery.editConnection');
    const contextValue = String(api.explorer.getTreeItem(node).contextValue);
    assert.ok(entry && new RegExp(/viewItem =~ \/(.*)\/$/.exec(entry.when)?.[1] ?? '^$').test(contextValue), 'on the connection\'s context menu');
  });
});

// The Add Connection wizard as a person walks it: a step counter on every step, Back on each
// after the first (the earlier answer shown again, and what was typed kept going forward),
// Escape cancelling with nothing saved, the same checks as before, the optional last step, the
// opt-in for plain http and Edit and Retry. VS Code is the plain-Node stand-in of
// fakeVscode.ts; the connection store, its settings and secret storage are the real ones over
// memory, and the connection test is a fake service that knows one secret.

// first, so the modules below load the stand-in as `vscode`
import { fakeVscode, resetFakeVscode } from '../../support/fakeVscode';

import * as assert from 'node:assert/strict';
import { DqError } from '../../../src/client/errors';
import type { Credentials } from '../../../src/client/types';
import { nullLogger } from '../../../src/core/logger';
import { addConnection } from '../../../src/extension/connections/addConnectionWizard';
import type { ClientPool } from '../../../src/extension/connections/clientPool';
import type { Connection, RemoteConnection } from '../../../src/extension/connections/connectionConfig';
import { ConnectionStore } from '../../../src/extension/connections/connectionStore';
import { MemoryStorage } from '../jobs/memoryStorage';
import { MemorySecrets } from './memorySecrets';

const SECRET = 'the-secret';

/** A service that hands out a token for SECRET only; records each test of a connection. */
function fakePool(tested: { connection: RemoteConnection; credentials: Credentials }[]): ClientPool {
  const pool = {
    transient: (connection: RemoteConnection, credentials: Credentials) => {
      tested.push({ connection, credentials });
      return {
        client: {
          testConnection: async () => {
            if (credentials.clientSecret !== SECRET) throw new DqError('auth', 'The client ID or secret was not accepted.');
          },
        },
        dispose: async () => undefined,
      };
    },
  };
  return pool as unknown as ClientPool;
}

describe('Add Connection, step by step', () => {
  let secrets: MemorySecrets;
  let store: ConnectionStore;
  let tested: { connection: RemoteConnection; credentials: Credentials }[];
  let revealed: Connection[];

  beforeEach(() => {
    resetFakeVscode();
    secrets = new MemorySecrets();
    store = new ConnectionStore(secrets as never, nullLogger, new MemoryStorage() as never);
    tested = [];
    revealed = [];
  });

  afterEach(() => {
    store.dispose();
  });

  function start(): Promise<void> {
    return addConnection(store, fakePool(tested), nullLogger, async (c) => {
      revealed.push(c);
    });
  }

  const ui = () => fakeVscode.quickInputs;
  const connections = () => fakeVscode.settings.get('dataQuery.connections');

  /** Answers the first four steps; leaves the last one (the options) on screen. */
  async function answerUpToOptions(name: string, baseUrl: string, clientId = 'client-1', clientSecret = SECRET) {
    for (const answer of [name, baseUrl, clientId, clientSecret]) (await ui().nextInput()).enter(answer);
    return ui().nextPick();
  }

  it('shows the step counter on every step, and Back on every step but the first', async () => {
    const done = start();
    const name = await ui().nextInput();
    assert.equal(name.heading, 'Add Connection (1/5)');
    assert.equal(name.hasBack, false, 'no Back on the first step');
    name.enter('Prod');
    const headings: string[] = [];
    for (const answer of ['https://api.example.com', 'client-1', SECRET]) {
      const box = await ui().nextInput();
      assert.ok(box.hasBack, `Back on "${box.heading}"`);
      headings.push(box.heading);
      box.enter(answer);
    }
    const options = await ui().nextPick();
    assert.ok(options.hasBack, 'Back on the last step');
    headings.push(options.heading);
    assert.deepEqual(headings, ['(2/5)', '(3/5)', '(4/5)', '(5/5)'].map((s) => `Add Connection ${s}`));
    options.escape();
    await done;
  });

  it('goes Back from the client ID to the base URL, shows the URL typed, and adds the connection with the URL changed there', async () => {
    const done = start();
    (await ui().nextInput()).enter('Prod');
    (await ui().nextInput()).enter('https://old.example.com');
    const clientId = await ui().nextInput();
    assert.match(clientId.prompt ?? '', /Client ID/);
    clientId.type('client-1');
    clientId.back();

    const url = await ui().nextInput();
    assert.equal(url.heading, 'Add Connection (2/5)');
    assert.equal(url.value, 'https://old.example.com', 'the URL typed before');
    url.enter('https://api.example.com');
    const idAgain = await ui().nextInput();
    assert.equal(idAgain.heading, 'Add Connection (3/5)');
    assert.equal(idAgain.value, 'client-1', 'what was typed before going Back');
    idAgain.enter();
    const secret = await ui().nextInput();
    assert.equal(secret.password, true, 'the secret is hidden as it is typed');
    secret.enter(SECRET);
    await (await ui().nextPick()).enter();
    await done;

    assert.deepEqual(connections(), [{ name: 'Prod', baseUrl: 'https://api.example.com' }]);
    assert.deepEqual(
      tested.map((t) => t.connection.baseUrl),
      ['https://api.example.com'],
      'tested at the changed URL only',
    );
    assert.deepEqual(await store.getCredentials('Prod'), { clientId: 'client-1', clientSecret: SECRET });
    assert.doesNotMatch(JSON.stringify(connections()), new RegExp(SECRET), 'the secret is not in the settings');
    assert.ok(fakeVscode.messages.some((m) => m.message === 'Connection "Prod" added.'));
    assert.deepEqual(
      revealed.map((c) => c.name),
      ['Prod'],
    );
  });

  it('saves nothing when Escape is pressed on the last step: no connection, no secret, no test', async () => {
    const done = start();
    const options = await answerUpToOptions('Prod', 'https://api.example.com');
    await options.loaded();
    options.escape();
    await done;
    assert.equal(connections(), undefined, 'no connection in the settings');
    assert.equal(secrets.values.size, 0, 'no secret stored');
    assert.equal(tested.length, 0, 'nothing was sent');
    assert.equal(ui().visible, undefined, 'nothing left on screen');
  });

  it('refuses a blank or taken name and a base URL it cannot use, with the same messages as before', async () => {
    await store.add({ kind: 'sample', name: 'Taken' });
    const done = start();
    const name = await ui().nextInput();
    name.type('  ');
    assert.equal(name.validationMessage, 'Enter a name.');
    name.enter(' Taken ');
    assert.equal(name.validationMessage, 'A connection named "Taken" already exists.');
    assert.equal(ui().visible, name, 'Enter on a taken name stays on the step');
    name.enter('Fresh');
    const url = await ui().nextInput();
    assert.equal(url.value, 'https://', 'the URL starts with https://');
    url.enter('ftp://example.com');
    assert.ok(url.validationMessage, 'an ftp URL is refused');
    assert.equal(ui().visible, url);
    url.enter('https://api.example.com');
    const id = await ui().nextInput();
    id.enter('   ');
    assert.equal(id.validationMessage, 'Enter the client ID.');
    id.enter(' client-1 ');
    const secret = await ui().nextInput();
    secret.enter(' ');
    assert.equal(secret.validationMessage, 'Enter the client secret.');
    secret.escape();
    await done;
    assert.deepEqual(connections(), [{ name: 'Taken', sample: true }]);
  });

  it('edits the data prefix and namespaces on the last step, Back there changing nothing, and keeps them through Back to an earlier step', async () => {
    const done = start();
    const options = await answerUpToOptions('Prefixed', 'https://api.example.com');
    await options.loaded();
    assert.equal(options.activeItems[0]?.label, '$(check) Add "Prefixed"', 'Enter adds the connection');
    await options.choose('Data prefix');
    const prefix = await ui().nextInput();
    assert.equal(prefix.heading, 'Add Connection: Data prefix (5/5)');
    assert.equal(prefix.value, 'dap', 'the default is shown');
    prefix.enter('not valid!');
    assert.equal(prefix.validationMessage, 'Use letters, digits and . _ ~ - separated by /, e.g. dap.');
    prefix.enter('/gw/');

    const afterPrefix = await (await ui().nextPick()).loaded();
    assert.equal(afterPrefix.heading, 'Add Connection (5/5)');
    await afterPrefix.choose('Namespaces');
    const namespaces = await ui().nextInput();
    namespaces.type('catalog');
    namespaces.back();
    const unchanged = await (await ui().nextPick()).loaded();
    assert.match(String((unchanged.items[2] as { description?: string }).description), /\(default\)/, 'Back kept the default namespaces');
    await unchanged.choose('Namespaces');
    (await ui().nextInput()).enter(' canvas , ');

    // back to the secret and forward again: the options stay as edited
    const edited = await (await ui().nextPick()).loaded();
    edited.back();
    const secret = await ui().nextInput();
    assert.equal(secret.heading, 'Add Connection (4/5)');
    secret.enter();
    const again = await (await ui().nextPick()).loaded();
    assert.deepEqual(
      again.items.slice(1, 3).map((i) => (i as { description?: string }).description),
      ['gw', 'canvas'],
    );
    await again.enter();
    await done;
    assert.deepEqual(connections(), [{ name: 'Prefixed', baseUrl: 'https://api.example.com', dataPrefix: 'gw', namespaces: ['canvas'] }]);
  });

  it('asks before plain http to another machine; declined, the URL is asked again with what was typed', async () => {
    let allow = false;
    fakeVscode.answerMessage = (m) => (m.severity === 'warning' && allow ? m.choices[0] : undefined);
    const done = start();
    (await ui().nextInput()).enter('Plain');
    (await ui().nextInput()).enter('http://10.1.2.3:8080');
    const url = await ui().nextInput();
    const warning = fakeVscode.messages.find((m) => m.severity === 'warning');
    assert.ok(warning?.modal && /10\.1\.2\.3:8080/.test(warning.detail ?? ''), 'a modal naming the host');
    assert.equal(url.heading, 'Add Connection (2/5)');
    assert.equal(url.value, 'http://10.1.2.3:8080');
    allow = true;
    url.enter();
    for (const answer of ['client-1', SECRET]) (await ui().nextInput()).enter(answer);
    await (await ui().nextPick()).enter();
    await done;
    assert.deepEqual(connections(), [{ name: 'Plain', baseUrl: 'http://10.1.2.3:8080', allowInsecureHttp: true }]);
  });

  it('offers Edit and Retry after a failed test, starting again from the values typed', async () => {
    fakeVscode.answerMessage = (m) => (m.severity === 'error' ? 'Edit and Retry' : undefined);
    const done = start();
    const options = await answerUpToOptions('Retry me', 'https://api.example.com', 'client-1', 'not-the-secret');
    await options.enter();
    const name = await ui().nextInput();
    assert.equal(name.heading, 'Add Connection (1/5)');
    assert.equal(name.value, 'Retry me');
    assert.equal(name.hasBack, false);
    const failure = fakeVscode.messages.find((m) => m.severity === 'error');
    assert.match(failure?.message ?? '', /Could not connect to "Retry me"/);
    assert.doesNotMatch(failure?.message ?? '', /not-the-secret/);
    name.enter();
    (await ui().nextInput()).enter();
    const id = await ui().nextInput();
    assert.equal(id.value, 'client-1');
    id.enter();
    const secret = await ui().nextInput();
    assert.equal(secret.value, 'not-the-secret');
    secret.enter(SECRET);
    await (await ui().nextPick()).enter();
    await done;
    assert.deepEqual(connections(), [{ name: 'Retry me', baseUrl: 'https://api.example.com' }]);
    assert.deepEqual(await store.getCredentials('Retry me'), { clientId: 'client-1', clientSecret: SECRET });
  });
});

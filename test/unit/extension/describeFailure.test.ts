// One way to say a failure: the sentence, the facts for the log and the next steps from the
// map of error kind to next step, whatever shows it (a notification, a tree node, a rejection).
import * as assert from 'node:assert/strict';
import { DqError } from '../../../src/client/errors';
import { describeFailure, OPEN_CONNECTION_SETTINGS, SET_CREDENTIALS } from '../../../src/extension/ui/describeFailure';
import { Commands } from '../../../src/extension/ui/ids';

describe('describeFailure', () => {
  it('says what failed, what happened, what to do and the uuid in one sentence, with the facts apart', () => {
    const err = new DqError('server', 'The service failed', { status: 503, type: 'Unavailable', uuid: 'u-1', hint: 'Try again in a minute.' });
    const failure = describeFailure(err, { what: 'Query of canvas.users' });
    assert.equal(failure.label, 'Query of canvas.users: The service failed. Try again in a minute. (Unavailable, HTTP 503, uuid u-1)');
    assert.equal(failure.detail, err.describe());
    assert.equal(failure.kind, 'server');
    assert.equal(failure.cancelled, false);
    assert.deepEqual(failure.actions, []);
  });

  it('offers an auth failure Set Credentials wherever it happens, before the caller\'s steps and only once', () => {
    const showJobs = { title: 'Show Jobs', run: () => undefined };
    const failure = describeFailure(new DqError('auth', 'The client ID or secret was refused.'), { actions: [showJobs] });
    assert.deepEqual(failure.actions, [SET_CREDENTIALS, showJobs]);
    assert.deepEqual(SET_CREDENTIALS, { title: 'Set Credentials', command: Commands.setCredentials });
    const own = { title: 'Set Credentials', run: () => undefined };
    assert.deepEqual(describeFailure(new DqError('auth', 'No credentials.'), { actions: [own] }).actions, [own]);
  });

  it('tells a cancellation apart, and words an error that is not the client\'s by its message', () => {
    assert.equal(describeFailure(new DqError('cancelled', 'Stopped.')).cancelled, true);
    const failure = describeFailure(new Error('disk full'));
    assert.equal(failure.kind, 'unknown');
    assert.equal(failure.label, 'disk full.');
    assert.equal(failure.detail, 'disk full');
  });

  it('tells plain http on a connection of the settings to mend it there, and opens them; elsewhere the error keeps its own words', () => {
    const refused = () => new DqError('insecure', 'Refusing plain http to 10.0.0.1: credentials and data would travel unencrypted', { hint: 'Use https://.' });
    const onConnection = describeFailure(refused(), { about: { connection: 'Prod', namespace: 'canvas' } });
    assert.equal(
      onConnection.label,
      'Refusing plain http to 10.0.0.1: credentials and data would travel unencrypted. Use https:// in the connection\'s baseUrl, or set "allowInsecureHttp": true in its settings if you trust the network.',
    );
    assert.deepEqual(onConnection.actions, [OPEN_CONNECTION_SETTINGS]);
    const adding = describeFailure(new DqError('insecure', 'Refusing plain http to 10.0.0.1. Use https://, or pass allowInsecureHttp: true.'));
    assert.equal(adding.label, 'Refusing plain http to 10.0.0.1. Use https://, or pass allowInsecureHttp: true.');
    assert.deepEqual(adding.actions, []);
  });

  it('words a missing namespace or table by what the call was on, keeping the facts for the log', () => {
    const missing = new DqError('notFound', 'Listing tables failed with HTTP 404', { status: 404, details: { kind: 'namespace', id: 'canvsa' }, hint: 'Check the namespace name.' });
    const namespace = describeFailure(missing, { about: { connection: 'Prod', namespace: 'canvsa' } });
    assert.equal(namespace.label, 'The service has no namespace "canvsa": check its spelling under "namespaces" in the connection\'s settings.');
    assert.equal(namespace.detail, missing.describe());
    assert.deepEqual(namespace.actions, [OPEN_CONNECTION_SETTINGS]);
    const table = describeFailure(new DqError('notFound', 'Reading the schema failed with HTTP 404', { status: 404 }), { about: { connection: 'Prod', namespace: 'canvas', table: 'dropped' } });
    assert.equal(table.label, 'canvas.dropped no longer exists: refresh canvas to list its tables again.');
    assert.equal(describeFailure(missing).label, 'Listing tables failed with HTTP 404. Check the namespace name. (HTTP 404)', 'said as the error says it, where the call was on no namespace');
  });
});

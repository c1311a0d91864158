// One way to say a failure: the sentence, the facts for the log and the next steps from the
// map of error kind to next step, whatever shows it (a notification, a tree node, a rejection).
import * as assert from 'node:assert/strict';
import { DqError } from '../../../src/client/errors';
import { describeFailure, NEXT_STEPS } from '../../../src/extension/ui/describeFailure';
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
    assert.deepEqual(failure.actions, [NEXT_STEPS.auth, showJobs]);
    assert.deepEqual(NEXT_STEPS.auth, { title: 'Set Credentials', command: Commands.setCredentials });
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
});

// How an error reads as one line: the message ends as a sentence before the hint begins.

import * as assert from 'node:assert/strict';
import { cancelledError, DqError, isCancelled } from '../../../src/client/errors';

describe('DqError.describe', () => {
  it('ends a message without a full stop with one before the hint', () => {
    const gone = new DqError('jobExpired', 'Job 0000 no longer exists', { status: 404, hint: 'Jobs and their files are deleted about 24 hours after they start; run the query again.' });
    assert.equal(gone.describe(), 'jobExpired, HTTP 404: Job 0000 no longer exists. Jobs and their files are deleted about 24 hours after they start; run the query again.');
    const io = new DqError('io', 'Could not write a result file (folder /data): the disk is full (ENOSPC)', { hint: 'Free some space there.' });
    assert.equal(io.describe(), 'io: Could not write a result file (folder /data): the disk is full (ENOSPC). Free some space there.');
  });

  it('adds no second stop to a message that ends a sentence, and none when there is no hint', () => {
    const said = new DqError('notFound', 'The job "x" does not exist.', { hint: 'Check the job id.' });
    assert.equal(said.describe(), 'notFound: The job "x" does not exist. Check the job id.');
    const asked = new DqError('usage', 'Is that the right folder?', { hint: 'Check it.' });
    assert.equal(asked.describe(), 'usage: Is that the right folder? Check it.');
    assert.equal(new DqError('server', 'The service failed', { uuid: 'u-1' }).describe(), 'server, uuid u-1: The service failed');
  });
});

describe('cancelledError', () => {
  it('says what was cancelled, and what that left when told, as a cancellation and nothing else', () => {
    const download = cancelledError('The download', { operation: 'download' });
    assert.equal(download.describe(), 'cancelled: The download was cancelled');
    assert.equal(download.operation, 'download');
    assert.ok(isCancelled(download));
    const copy = cancelledError('Copy Result Link', { after: '; nothing was copied.' });
    assert.equal(copy.message, 'Copy Result Link was cancelled; nothing was copied.');
  });
});

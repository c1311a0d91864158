// What dq prints of a job record (dq job, dq wait, and --json of query and download, also
// on failure): a failed job's message may quote a signed link, whose query never reaches
// stdout.

import * as assert from 'node:assert/strict';
import { shownJob } from '../../../src/cli/dataCommands';
import { failureJson } from '../../../src/cli/jobFollowUp';
import { DqError } from '../../../src/client/errors';
import type { JobRecord } from '../../../src/core/contract';

const signed = 'https://objects.example.com/res/part-0.json.gz?X-Oss-Signature=OSSSECRET123&hdnts=exp~1~hmac~AKAMAISECRET';
const failed: JobRecord = { id: 'job-1', status: 'failed', error: { message: `could not write to "${signed}"`, type: 'JobFailed', uuid: 'u-1' } };

describe('dq: job records on stdout', () => {
  it('keep a failed job\'s message, type and uuid, without the signed link\'s query', () => {
    const shown = JSON.stringify(shownJob(failed));
    assert.doesNotMatch(shown, /SECRET/);
    assert.match(shown, /objects\.example\.com\/res\/part-0\.json\.gz/);
    assert.match(shown, /JobFailed/);
    assert.match(shown, /u-1/);
  });

  it('--json on failure prints the job redacted beside the error', () => {
    const printed = JSON.stringify(failureJson(failed, new DqError('jobFailed', `Job job-1 failed: could not write to "${signed}"`)));
    assert.doesNotMatch(printed, /SECRET/);
    assert.match(printed, /"id":"job-1"/);
  });
});

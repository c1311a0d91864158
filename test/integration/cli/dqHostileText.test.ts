// dq against a service whose names, ids and messages hold terminal escapes: ESC sequences,
// OSC 52 (which writes the clipboard), CR/LF that would forge a line of their own, NUL, C1
// and bidirectional overrides. Nothing of them reaches the terminal raw; --json stays exact.

import * as assert from 'node:assert/strict';
import { HostileGateway } from '../../support/hostileGateway';
import { runDq, type CliRun } from '../../support/cliHarness';
import { envelopeWith, explodingSchema } from '../../support/hostileSchemas';

/** C0 but tab and newline, DEL, C1 and bidirectional controls: none may be printed raw. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const OSC52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
const FORGED = '\r\ndq: fake line: all good';

function assertNothingRaw(run: CliRun): void {
  for (const [name, text] of [['stdout', run.stdout], ['stderr', run.stderr]] as const) {
    assert.doesNotMatch(text, RAW_CONTROL, `${name} holds a raw control character: ${JSON.stringify(text)}`);
    assert.ok(!text.split('\n').some((line) => line.startsWith('dq: fake line')), `${name} holds a forged line: ${text}`);
  }
}

describe('dq with hostile text from the service', function () {
  this.timeout(20_000);
  let gateway: HostileGateway;

  before(async () => {
    gateway = await new HostileGateway().start();
  });
  after(() => gateway.close());

  it('lists table names with escapes shown, one line each, and exactly as sent with --json', async () => {
    const names = ['plain', `clip${OSC52}`, `red\x1b[31mtext`, `two${FORGED}`, 'nul\0byte', 'c1\u009b2J', 'bidi\u202egnp.exe'];
    gateway.answers.set('GET /query/canvas/table', { status: 200, body: { tables: names } });
    const plain = await runDq(['tables', 'canvas'], { env: gateway.env() });
    assert.equal(plain.code, 0, plain.stderr);
    assertNothingRaw(plain);
    const lines = plain.stdout.trimEnd().split('\n');
    assert.equal(lines.length, names.length, 'one line per table');
    assert.equal(lines[1], 'clip\\x1b]52;c;ZWNobyBwd25lZA==\\x07');
    assert.equal(lines[3], 'two\\r\\ndq: fake line: all good');
    assert.equal(lines[6], 'bidi\\u202egnp.exe');

    const json = await runDq(['tables', 'canvas', '--json'], { env: gateway.env() });
    assertNothingRaw(json);
    assert.deepEqual(JSON.parse(json.stdout), { tables: names });
  });

  it('shows a column name holding NUL and ESC, and a description holding CR/LF, escaped', async () => {
    gateway.answers.set('GET /query/canvas/table/odd/schema', {
      status: 200,
      body: envelopeWith({ type: 'object', properties: { 'a\0b\x1b[2J': { type: 'string', description: `says${FORGED}` } } }),
    });
    const run = await runDq(['columns', 'canvas', 'odd'], { env: gateway.env() });
    assert.equal(run.code, 0, run.stderr);
    assertNothingRaw(run);
    assert.match(run.stdout, /^a\\0b\\x1b\[2J +string/m);
  });

  it('prints an error whose message, type and uuid hold escapes as one dq: line', async () => {
    gateway.answers.set('GET /query/canvas/table/broken/schema', {
      status: 400,
      body: { error: { type: `Bad\x1b[2J${OSC52}`, uuid: 'u-1\r\n', message: `no such thing${FORGED}\x1b]0;title\x07` } },
    });
    const run = await runDq(['schema', 'canvas', 'broken'], { env: gateway.env() });
    assert.notEqual(run.code, 0);
    assertNothingRaw(run);
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0], /^dq: .*no such thing\\r\\ndq: fake line: all good\\x1b\]0;title\\x07/);
  });

  it('shows the id, type and message of a failed job escaped, in progress and in the error line', async () => {
    const job = { id: `job${OSC52}`, status: 'failed', error: { type: `Evil\x1b[2J`, uuid: 'u-2', message: `failed${FORGED}` } };
    gateway.answers.set('POST /query/canvas/table/jobs/data', { status: 200, body: job });
    gateway.answers.set(`GET /job/${encodeURIComponent(job.id)}`, { status: 200, body: job });
    const run = await runDq(['query', 'canvas', 'jobs', '--format', 'jsonl', '--progress'], { env: gateway.env() });
    assert.equal(run.code, 5, run.stderr);
    assertNothingRaw(run);
    assert.match(run.stderr, /^job job\\x1b\]52;c;ZWNobyBwd25lZA==\\x07: failed$/m);
    assert.match(run.stderr, /^dq: jobFailed, Evil\\x1b\[2J, uuid u-2: .*failed\\r\\ndq: fake line: all good/m);
  });

  it('refuses a schema that expands into millions of columns with one dq: line naming the table', async () => {
    gateway.answers.set('GET /query/canvas/table/exploding/schema', { status: 200, body: explodingSchema(8, 12) });
    const run = await runDq(['columns', 'canvas', 'exploding'], { env: gateway.env() });
    assert.equal(run.code, 6, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^dq: invalidResponse: The schema of canvas\.exploding expands into more than 10,000 columns/);
    assert.equal(run.stderr.trimEnd().split('\n').length, 1);
  });
});

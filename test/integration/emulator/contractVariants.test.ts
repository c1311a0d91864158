// The answers the contract says clients must tolerate, as the emulator gives them on request,
// and the shared client (a black box here, over real HTTP) coping with each: a range after
// the latest commit, a failed job asked for again, Retry-After as an HTTP date, opaque tokens
// and sign-ins without expires_in, job records without expires_at or with unknown fields,
// HTML error pages from a load balancer, and short job lifetimes and dedupe windows (also as
// `dq emulator` flags). One fake clock drives both sides: waiting shows in the clock, not in
// the test's running time.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { runCli } from '../../../src/cli/cli';
import type { DataQueryClientOptions } from '../../../src/client/types';
import { decodeJwt } from '../../../src/core/jwtCodec';
import { COMMIT_INTERVAL_MS } from '../../../src/emulator/sampleData/changeHistory';
import { parseFaultSpec, type EmulatorOptions, type RunningEmulator } from '../../../src/emulator/emulator';
import { api, basic, raw, tokenFor } from '../../support/emulatorHarness';
import { emulatorOnClock, failure, type ClockedEmulator } from '../../support/emulatorOnClock';


const latestCommit = (now: number): number => Math.floor(now / COMMIT_INTERVAL_MS) * COMMIT_INTERVAL_MS;
const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The emulator and its client for a test (a small table, retries without jitter). */
function setUp(emulator: EmulatorOptions = {}, client: Partial<DataQueryClientOptions> = {}): Promise<ClockedEmulator> {
  return emulatorOnClock({ rows: 200, ...emulator }, { random: () => 0.5, ...client });
}


/** The token endpoint's answer, read raw. */
async function signIn(emu: RunningEmulator): Promise<Record<string, unknown>> {
  const res = await raw(`${emu.baseUrl}/ids/auth/login`, {
    method: 'POST',
    headers: { authorization: basic(emu.clientId, emu.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  assert.equal(res.status, 200);
  return res.json as Record<string, unknown>;
}

const statuses = (emu: RunningEmulator, operation: string): number[] =>
  emu.requestLog.entries().filter((e) => e.operation === operation).map((e) => e.status);

describe('emulator: contract variants, and the client coping with them', function () {
  this.timeout(60_000);
  let setup: ClockedEmulator | undefined;
  let tmp: string;

  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-variants-'));
  });
  afterEach(async () => {
    await setup?.client.close();
    await setup?.emu.close();
    setup = undefined;
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('parses the variant keys, and refuses a Retry-After form it does not know', () => {
    assert.deepEqual(parseFaultSpec('retryAfter=date,opaqueToken=1,noExpiresIn=0.5,noExpiresAt=1,jobExtras=0.25,html5xx=0.1'), {
      retryAfter: 'date',
      opaqueToken: 1,
      noExpiresIn: 0.5,
      noExpiresAt: 1,
      jobExtras: 0.25,
      html5xx: 0.1,
    });
    assert.deepEqual(parseFaultSpec('retryAfter=none'), { retryAfter: 'none' });
    assert.throws(() => parseFaultSpec('retryAfter=soon'), /retryAfter must be one of seconds, date, none/);
    assert.throws(() => parseFaultSpec('html5xx=2'), /html5xx.*between 0 and 1/);
  });

  describe('ranges', () => {
    it('refuses an until after the latest commit (before now) as OutOfRange with the range it has; the client says to omit until', async () => {
      setup = await setUp();
      const { clock, emu, client } = setup;
      await clock.advance(90 * 60_000); // half way between two commits
      const latest = latestCommit(clock.now());
      assert.ok(clock.now() - latest >= 60_000, 'the clock stands past the latest commit');
      const until = isoSeconds(latest + 60_000);

      const token = await tokenFor(emu);
      const refused = await api(emu, token, 'POST', '/query/canvas/table/accounts/data', { format: 'jsonl', until });
      assert.equal(refused.status, 400);
      assert.equal(refused.json.error.type, 'OutOfRange');
      assert.equal(refused.json.error.until, isoSeconds(latest), 'the latest committed change');
      assert.ok(Date.parse(refused.json.error.since) < latest, 'the earliest allowed since');

      const err = await failure(clock, client.runJob('canvas', 'accounts', { format: 'jsonl', until }));
      assert.equal(err.kind, 'validation');
      assert.equal(err.type, 'OutOfRange');
      assert.match(err.hint ?? '', new RegExp(`until is later than the latest committed change \\(the latest committed change is at ${isoSeconds(latest)}\\); omit until`));

      const atLatest = await clock.run(client.runJob('canvas', 'accounts', { format: 'jsonl', until: isoSeconds(latest) }));
      assert.equal(atLatest.at, isoSeconds(latest), 'until at the latest commit is the data of that commit');
      const omitted = await clock.run(client.runJob('canvas', 'accounts', { format: 'csv' }));
      assert.equal(omitted.at, isoSeconds(latest), 'without until, the job reflects the latest commit, not the clock');
    });

    it('still answers a since equal to the latest commit with a complete job holding no records', async () => {
      setup = await setUp();
      const { clock, client } = setup;
      const snapshot = await clock.run(client.runJob('canvas', 'users', { format: 'jsonl' }));
      const changes = await clock.run(client.runJob('canvas', 'users', { format: 'jsonl', since: snapshot.at }));
      assert.equal(changes.status, 'complete');
      assert.deepEqual([changes.since, changes.until], [snapshot.at, snapshot.at]);
      const files = await clock.run(client.downloadJob(changes, { dir: tmp, format: 'jsonl' }));
      let records = 0;
      for (const f of files) records += gunzipSync(await fs.readFile(f.path)).toString('utf8').split('\n').filter(Boolean).length;
      assert.equal(records, 0, 'nothing changed since the latest commit');
    });
  });

  describe('failed jobs', () => {
    it('creates a new job for a request identical to one that failed, while one still running is shared', async () => {
      setup = await setUp({ faults: 'jobFail=1', jobDelayMs: 3000, limits: false });
      const { clock, emu, client } = setup;
      const token = await tokenFor(emu);
      const create = () => api(emu, token, 'POST', '/query/canvas/table/users/data', { format: 'csv' });
      const first = await create();
      assert.equal((await create()).json.id, first.json.id, 'a job still running is handed back');
      await clock.advance(3000);
      const failed = await api(emu, token, 'GET', `/job/${first.json.id}`);
      assert.equal(failed.json.status, 'failed');
      const again = await create();
      assert.notEqual(again.json.id, first.json.id, 'the failed job is not handed back');
      assert.equal(again.status, 202, 'a new job, in progress');

      // the client, told by the failure to run the query again, gets a new job each time
      const a = await failure(clock, client.runJob('canvas', 'accounts', { format: 'jsonl' }));
      const b = await failure(clock, client.runJob('canvas', 'accounts', { format: 'jsonl' }));
      assert.equal(a.kind, 'jobFailed');
      assert.equal(b.kind, 'jobFailed');
      assert.match(a.message, /create the job again/);
      const ids = [a, b].map((e) => /Job (\S+) failed/.exec(e.message)?.[1]);
      assert.ok(ids[0] && ids[1]);
      assert.notEqual(ids[1], ids[0], 'running it again ran a new job');
    });
  });

  describe('Retry-After', () => {
    it('retryAfter=date: a 429 names an HTTP date, rounded up to the second; the client waits until then and goes on', async () => {
      setup = await setUp({ faults: 'retryAfter=date', limits: { listTables: 1 } });
      const { clock, emu, client } = setup;
      const token = await tokenFor(emu);
      assert.equal((await api(emu, token, 'GET', '/query/canvas/table')).status, 200);
      await clock.advance(10_500);
      const limited = await api(emu, token, 'GET', '/query/canvas/table');
      assert.equal(limited.status, 429);
      const header = limited.headers.get('retry-after') ?? '';
      assert.match(header, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/, header);
      assert.equal(Date.parse(header), clock.now() + 49_500, 'when the window frees a call');

      emu.requestLog.clear();
      const started = clock.now();
      const tables = await clock.run(client.listTables('canvas'));
      assert.ok(tables.includes('accounts'));
      assert.deepEqual(statuses(emu, 'listTables'), [429, 200], 'one refusal, then the call after the named time worked');
      assert.ok(clock.now() >= Date.parse(header), 'waited until the date named');
      assert.ok(clock.now() - started < 60_000, 'no longer than the date named (and no fallback wait on top)');
    });

    it('retryAfter=none: a 429 without Retry-After; the client waits its default and goes on', async () => {
      setup = await setUp({ faults: 'retryAfter=none', limits: { listTables: 1 } }, { defaultRetryAfterMs: 70_000 });
      const { clock, emu, client } = setup;
      const token = await tokenFor(emu);
      assert.equal((await api(emu, token, 'GET', '/query/canvas/table')).status, 200);
      const limited = await api(emu, token, 'GET', '/query/canvas/table');
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), null);
      emu.requestLog.clear();
      const started = clock.now();
      await clock.run(client.listTables('canvas'));
      assert.deepEqual(statuses(emu, 'listTables'), [429, 200]);
      assert.ok(clock.now() - started >= 70_000, 'the default wait, as no time was named');
    });
  });

  describe('tokens', () => {
    it('opaqueToken=1: the sign-in gives a token that is not a JWT, accepted until its lifetime ends; the client renews it from expires_in', async () => {
      setup = await setUp({ faults: 'opaqueToken=1', tokenTtlSec: 600 });
      const { clock, emu, client } = setup;
      const answer = await signIn(emu);
      const token = answer.access_token as string;
      assert.equal(decodeJwt(token), undefined, 'not a JWT');
      assert.doesNotMatch(token, /\./);
      assert.equal(answer.expires_in, 600);
      assert.equal((await api(emu, token, 'GET', '/query/canvas/table/users/schema')).status, 200);
      await clock.advance(600_000);
      const expired = await api(emu, token, 'GET', '/query/canvas/table/users/schema');
      assert.equal(expired.status, 401);
      assert.match(expired.json.error.message, /expired/);

      emu.requestLog.clear();
      await clock.run(client.getSchema('canvas', 'users'));
      await clock.advance(700_000);
      await clock.run(client.getSchema('canvas', 'users'));
      assert.deepEqual(statuses(emu, 'getSchema'), [200, 200], 'no call was refused: the token was renewed ahead of its end');
      assert.equal(statuses(emu, 'token').length, 2);
    });

    it('opaqueToken=1,noExpiresIn=1: nothing says when the token ends; the client meets the 401, signs in again and the call works', async () => {
      setup = await setUp({ faults: 'opaqueToken=1,noExpiresIn=1', tokenTtlSec: 60 });
      const { clock, emu, client } = setup;
      const answer = await signIn(emu);
      assert.equal('expires_in' in answer, false);
      assert.equal(decodeJwt(answer.access_token as string), undefined);

      emu.requestLog.clear();
      await clock.run(client.getSchema('canvas', 'users'));
      await clock.advance(90_000);
      const envelope = await clock.run(client.getSchema('canvas', 'users'));
      assert.equal(typeof envelope.version, 'number');
      assert.deepEqual(statuses(emu, 'getSchema'), [200, 401, 200], 'the expired token was refused once, then replaced');
      assert.equal(statuses(emu, 'token').length, 2);
    });

    it('noExpiresIn=1 with JWTs: the client reads the lifetime from exp instead, and renews in time', async () => {
      setup = await setUp({ faults: 'noExpiresIn=1', tokenTtlSec: 60 });
      const { clock, emu, client } = setup;
      const answer = await signIn(emu);
      assert.equal('expires_in' in answer, false);
      assert.equal(typeof decodeJwt(answer.access_token as string)?.claims.exp, 'number');
      emu.requestLog.clear();
      await clock.run(client.getSchema('canvas', 'users'));
      await clock.advance(90_000);
      await clock.run(client.getSchema('canvas', 'users'));
      assert.deepEqual(statuses(emu, 'getSchema'), [200, 200]);
    });
  });

  describe('job records', () => {
    it('noExpiresAt=1,jobExtras=1: records without expires_at and with unknown fields; the client runs, reuses and downloads them', async () => {
      setup = await setUp({ faults: 'noExpiresAt=1,jobExtras=1', jobDelayMs: 2000, rows: 400, rowsPerObject: 100 });
      const { clock, emu, client } = setup;
      const token = await tokenFor(emu);
      const created = await api(emu, token, 'POST', '/query/canvas_logs/table/web_logs/data', { format: 'jsonl' });
      assert.equal(created.status, 202);
      assert.equal('expires_at' in created.json, false);
      assert.equal(created.json.region, 'emulator-1', 'an unknown field');
      await clock.advance(2000);
      const done = (await api(emu, token, 'GET', `/job/${created.json.id}`)).json;
      assert.equal(done.status, 'complete');
      assert.equal('expires_at' in done, false);
      assert.ok(done.objects.length >= 2);
      assert.deepEqual(Object.keys(done.objects[0]).sort(), ['id', 'part', 'rows'], 'object entries carry unknown fields too');
      assert.equal(typeof done.progress, 'number');

      const started = clock.now();
      const job = await clock.run(client.runJob('canvas_logs', 'web_logs', { format: 'jsonl' }));
      assert.equal(job.id, created.json.id, 'the identical request got the same job, with no expiry to wait for');
      assert.equal(clock.now(), started, 'nothing was waited: an absent expires_at is not "about to expire"');
      const files = await clock.run(client.downloadJob(job, { dir: tmp, format: 'jsonl' }));
      assert.equal(files.length, done.objects.length);
      let records = 0;
      for (const f of files) records += gunzipSync(await fs.readFile(f.path)).toString('utf8').split('\n').filter(Boolean).length;
      assert.equal(records, 400, 'every record of the table arrived');
    });
  });

  describe('HTML error pages', () => {
    it('html5xx=1: a 502/503 HTML page, even before authentication; the client retries, then reports the status and a short excerpt', async () => {
      setup = await setUp({ faults: 'html5xx=1' }, { maxRetries: 2 });
      const { clock, emu, client } = setup;
      for (let i = 0; i < 3; i++) {
        const page = await raw(`${emu.baseUrl}/${emu.dataPrefix}/query/canvas/table`);
        assert.ok(page.status === 502 || page.status === 503, String(page.status));
        assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(page.text, /^<!DOCTYPE html>[\s\S]*<title>50[23] /);
        assert.equal(page.json, undefined, 'not JSON');
      }

      emu.requestLog.clear();
      const err = await failure(clock, client.listTables('canvas'));
      assert.equal(err.kind, 'server');
      assert.ok(err.status === 502 || err.status === 503);
      assert.match(err.message, /^Listing tables failed with HTTP 50[23]: the gateway answered: <!DOCTYPE html> <html> <head><title>50[23] /);
      assert.ok(err.message.length < 300, 'an excerpt, not the page');
      assert.equal(statuses(emu, 'listTables').length, 3, 'the first try and two retries');
    });

    it('html5xx=0.5: the client gets through the pages now and then', async () => {
      setup = await setUp({ faults: 'html5xx=0.5,seed=5', limits: false });
      const { clock, emu, client } = setup;
      for (let i = 0; i < 4; i++) await clock.run(client.getSchema('canvas', 'users'));
      const seen = statuses(emu, 'getSchema');
      assert.ok(seen.some((s) => s === 502 || s === 503), `some pages: ${seen.join(',')}`);
      assert.equal(seen.filter((s) => s === 200).length, 4);
    });
  });

  describe('job lifetime and dedupe window', () => {
    it('a reused job that expires within 30 s is waited out and created again; an expired job\'s files are gone', async () => {
      setup = await setUp({ jobTtlSec: 40, dedupeWindowSec: 600 });
      const { clock, emu, client } = setup;
      const first = await clock.run(client.runJob('canvas', 'users', { format: 'csv' }));
      assert.equal(Date.parse(first.expires_at as string), clock.now() + 40_000);
      await clock.advance(15_000);
      const second = await clock.run(client.runJob('canvas', 'users', { format: 'csv' }));
      assert.notEqual(second.id, first.id, 'the job handed back had 25 s left: a new one was made after it expired');
      assert.ok(clock.now() >= Date.parse(first.expires_at as string));
      assert.equal(statuses(emu, 'createJob').length, 3, 'the first job, the near-expired one handed back, the new one');

      const err = await failure(clock, client.downloadJob(first, { dir: tmp, format: 'csv' }));
      assert.equal(err.kind, 'jobExpired');
      assert.match(err.hint ?? '', /run the query again/);
    });

    it('dq emulator --job-ttl and --dedupe-window set them', async () => {
      const controller = new AbortController();
      let out = '';
      let ready: (info: { baseUrl: string; dataPrefix: string; clientId: string; clientSecret: string }) => void = () => undefined;
      const started = new Promise<Parameters<typeof ready>[0]>((resolve) => (ready = resolve));
      const running = runCli(['emulator', '--json', '--job-ttl', '40', '--dedupe-window', '0', '--job-delay', '0'], {
        stdout: {
          write: (s: string) => {
            out += s;
            if (out.includes('\n')) ready(JSON.parse(out));
          },
        },
        stderr: { write: () => undefined, isTTY: false },
        env: {},
        cwd: process.cwd(),
        interrupt: controller.signal,
      });
      try {
        const info = await started;
        const emu = { ...info, namespaces: [] } as unknown as RunningEmulator;
        const token = await tokenFor(emu);
        const before = Date.now();
        const a = await api(emu, token, 'POST', '/query/canvas/table/users/data', { format: 'csv' });
        const after = Date.now();
        const expiresAt = Date.parse(a.json.expires_at);
        assert.ok(expiresAt >= before + 40_000 && expiresAt <= after + 40_000, `expires 40 s after it started: ${a.json.expires_at}`);
        const b = await api(emu, token, 'POST', '/query/canvas/table/users/data', { format: 'csv' });
        assert.notEqual(b.json.id, a.json.id, 'a dedupe window of 0 never hands back a job');
      } finally {
        controller.abort();
        assert.equal(await running, 0);
      }
    });

    it('dq emulator refuses a job lifetime under a second', async () => {
      let err = '';
      const code = await runCli(['emulator', '--job-ttl', '0'], {
        stdout: { write: () => undefined },
        stderr: { write: (s: string) => (err += s), isTTY: false },
        env: {},
        cwd: process.cwd(),
        interrupt: new AbortController().signal,
      });
      assert.equal(code, 2);
      assert.match(err, /--job-ttl must be a whole number of at least 1/);
    });
  });
});

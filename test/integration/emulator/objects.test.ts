import * as assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { isGzipMagic } from '../../../src/core/contract';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/emulator';
import { ManualClock, api, completedJob, download, tokenFor, urlsFor } from '../../support/emulatorHarness';
import { parseCsv } from '../../support/csvRows';

describe('emulator: result objects', () => {
  let emu: RunningEmulator;
  let clock: ManualClock;
  let token: string;
  const days = (n: number) => new Date(clock.now() - n * 86_400_000).toISOString();

  before(async () => {
    clock = new ManualClock();
    emu = await startEmulator({ clock, limits: false, jobDelayMs: 10, urlTtlSec: 900 });
    token = await tokenFor(emu);
  });
  after(() => emu.close());

  async function fetchObjects(ns: string, table: string, body: unknown): Promise<Buffer[]> {
    const job = await completedJob(emu, clock, token, ns, table, body);
    assert.equal(job.status, 'complete');
    const out: Buffer[] = [];
    for (const url of await urlsFor(emu, token, job.objects)) {
      const res = await download(url);
      assert.equal(res.status, 200);
      assert.equal(Number(res.headers.get('content-length')), res.bytes.length);
      out.push(res.bytes);
    }
    return out;
  }

  it('gzip JSONL snapshots hold upserts only, with null columns omitted', async () => {
    const [bytes] = await fetchObjects('canvas', 'users', { format: 'jsonl' });
    assert.ok(isGzipMagic(bytes));
    const lines = gunzipSync(bytes).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(lines.length > 100);
    assert.ok(lines.every((r) => r.meta.action === 'U' && typeof r.key.id === 'number' && r.value && !Number.isNaN(Date.parse(r.meta.ts))));
    assert.ok(lines.every((r) => Object.values(r.value).every((v) => v !== null)));
    assert.ok(lines.some((r) => !('locale' in r.value)), 'some users have no locale');
    assert.ok(lines.some((r) => typeof r.value.preferences === 'object'));
  });

  it('incrementals contain deletes without value and upserts changed in the range', async () => {
    const since = days(20);
    const [bytes] = await fetchObjects('canvas', 'enrollments', { format: 'jsonl', since });
    const records = gunzipSync(bytes).toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
    const deletes = records.filter((r) => r.meta.action === 'D');
    const upserts = records.filter((r) => r.meta.action === 'U');
    assert.ok(deletes.length > 0 && upserts.length > 0);
    assert.ok(deletes.every((r) => r.value === undefined && r.key.user_id && r.key.course_id));
    assert.ok(records.every((r) => Date.parse(r.meta.ts) > Date.parse(since)));
    const [snapshot] = await fetchObjects('canvas', 'enrollments', { format: 'jsonl' });
    const snapRecords = gunzipSync(snapshot).toString('utf8').trim().split('\n');
    assert.ok(snapRecords.length > records.length);
    assert.ok(!snapRecords.some((l) => l.includes('"action":"D"')));
    // A row deleted in the range is not in the snapshot at its end.
    const gone = JSON.stringify(deletes[0].key);
    assert.ok(!snapRecords.some((l) => l.includes(`"key":${gone}`)));
  });

  it('CSV has a dotted header row and quotes commas, quotes and line breaks', async () => {
    const [bytes] = await fetchObjects('canvas', 'assignments', { format: 'csv' });
    assert.ok(isGzipMagic(bytes));
    const rows = parseCsv(gunzipSync(bytes).toString('utf8'));
    const header = rows[0];
    for (const name of ['key.id', 'value.title', 'value.description', 'value.peer_review.enabled', 'meta.action', 'meta.ts']) {
      assert.ok(header.includes(name), name);
    }
    const body = rows.slice(1).filter((r) => r.length > 1);
    assert.ok(body.every((r) => r.length === header.length));
    const desc = header.indexOf('value.description');
    assert.ok(body.some((r) => r[desc].includes('"final"') && r[desc].includes('\n') && r[desc].includes(',')));
    const types = header.indexOf('value.submission_types');
    const anArray = body.map((r) => r[types]).find((v) => v !== '');
    assert.ok(Array.isArray(JSON.parse(anArray as string)));
  });

  it('condensed mode keeps fixed objects as one JSON column', async () => {
    const [bytes] = await fetchObjects('canvas', 'assignments', { format: 'csv', mode: 'condensed' });
    const header = parseCsv(gunzipSync(bytes).toString('utf8'))[0];
    assert.ok(header.includes('value.peer_review'));
    assert.ok(!header.includes('value.peer_review.enabled'));
  });

  it('TSV has a tab-separated dotted header and escapes tabs inside values', async () => {
    const [bytes] = await fetchObjects('canvas', 'submissions', { format: 'tsv' });
    const lines = gunzipSync(bytes).toString('utf8').split('\n').filter((l) => l !== '');
    const header = lines[0].split('\t');
    assert.ok(header.includes('key.id') && header.includes('value.body') && header.includes('meta.action'));
    assert.ok(lines.slice(1).every((l) => l.split('\t').length === header.length));
    assert.ok(lines.some((l) => l.includes('\\t')));
  });

  it('Parquet objects read back with the same columns and rows', async () => {
    const [bytes] = await fetchObjects('catalog', 'orders', { format: 'parquet' });
    assert.equal(bytes.subarray(0, 4).toString(), 'PAR1');
    const { parquetReadObjects } = await import('hyparquet');
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
    const rows = await parquetReadObjects({ file: ab });
    assert.ok(rows.length > 100);
    const first = rows[0] as Record<string, unknown>;
    assert.ok('key.id' in first && 'value.status' in first && first['meta.action'] === 'U');
    assert.equal(typeof JSON.parse(String(first['value.total'])).amount, 'number');
  });

  it('splits large results across several objects', async () => {
    const small = await startEmulator({ clock, limits: false, jobDelayMs: 10, rows: 2500, rowsPerObject: 1000 });
    try {
      const t = await tokenFor(small);
      const job = await completedJob(small, clock, t, 'canvas_logs', 'web_logs', { format: 'jsonl' });
      assert.equal(job.objects.length, 3);
      let total = 0;
      const ids = new Set<string>();
      for (const url of await urlsFor(small, t, job.objects)) {
        for (const line of gunzipSync((await download(url)).bytes).toString().trim().split('\n')) {
          ids.add(JSON.parse(line).key.id);
          total++;
        }
      }
      assert.equal(total, 2500);
      assert.equal(ids.size, 2500);
    } finally {
      await small.close();
    }
  });

  it('supports Range (206, 416) and ETag with If-None-Match, and serves identical bytes every time', async () => {
    const job = await completedJob(emu, clock, token, 'canvas', 'courses', { format: 'csv' });
    const [url] = await urlsFor(emu, token, job.objects);
    const full = await download(url);
    const etag = full.headers.get('etag') as string;
    assert.ok(etag);
    const again = await download(url);
    assert.ok(again.bytes.equals(full.bytes));
    const part = await download(url, { range: 'bytes=10-99' });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 10-99/${full.bytes.length}`);
    assert.ok(part.bytes.equals(full.bytes.subarray(10, 100)));
    const tail = await download(url, { range: `bytes=${full.bytes.length - 5}-` });
    assert.ok(tail.bytes.equals(full.bytes.subarray(full.bytes.length - 5)));
    const beyond = await download(url, { range: `bytes=${full.bytes.length}-` });
    assert.equal(beyond.status, 416);
    assert.equal(beyond.headers.get('content-range'), `bytes */${full.bytes.length}`);
    assert.equal((await download(url, { 'if-none-match': etag })).status, 304);
    const staleIfRange = await download(url, { range: 'bytes=0-9', 'if-range': '"other"' });
    assert.equal(staleIfRange.status, 200);
    assert.equal(staleIfRange.bytes.length, full.bytes.length);
  });

  it('needs no credential on pre-signed URLs and records if one was sent', async () => {
    const job = await completedJob(emu, clock, token, 'canvas', 'quizzes', { format: 'jsonl' });
    const [url] = await urlsFor(emu, token, job.objects);
    assert.ok(!url.startsWith(emu.baseUrl) && url.startsWith(emu.objectBaseUrl));
    emu.requestLog.clear();
    await download(url);
    const clean = emu.requestLog.entries().filter((e) => e.host === 'object');
    assert.equal(clean.length, 1);
    assert.equal(clean[0].credentialOnObjectUrl, false);
    assert.ok(!clean[0].path.includes('signature'));
    await download(url, { authorization: `Bearer ${token}` });
    assert.equal(emu.requestLog.entries().at(-1)?.credentialOnObjectUrl, true);
  });

  it('answers 403 for tampered or expired URLs and 404 once the job has expired', async () => {
    const job = await completedJob(emu, clock, token, 'canvas', 'accounts', { format: 'jsonl' });
    const [url] = await urlsFor(emu, token, job.objects);
    const tampered = url.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
    const t = await download(tampered);
    assert.equal(t.status, 403);
    assert.match(t.bytes.toString(), /<Error>/);
    const longer = url.replace(/expires=(\d+)/, (_m, n: string) => `expires=${Number(n) + 3600}`);
    assert.equal((await download(longer)).status, 403);
    clock.advance(901_000);
    assert.equal((await download(url)).status, 403);
    token = await tokenFor(emu);
    const [fresh] = await urlsFor(emu, token, job.objects);
    assert.equal((await download(fresh)).status, 200);
  });

  it('answers 404 on a still-signed URL once its job has expired', async () => {
    const short = await startEmulator({ clock, limits: false, jobDelayMs: 10, jobTtlSec: 1000, urlTtlSec: 5000, tokenTtlSec: 9000 });
    try {
      const t = await tokenFor(short);
      const job = await completedJob(short, clock, t, 'canvas', 'accounts', { format: 'jsonl' });
      const [url] = await urlsFor(short, t, job.objects);
      assert.equal((await download(url)).status, 200);
      clock.advance(1_000_000);
      const gone = await download(url);
      assert.equal(gone.status, 404);
      assert.match(gone.bytes.toString(), /NoSuchKey/);
    } finally {
      await short.close();
    }
  });

  it('gives object ids with slashes and padding that are not file names', async () => {
    const job = await completedJob(emu, clock, token, 'new_quizzes', 'quizzes', { format: 'jsonl' });
    const id = job.objects[0].id as string;
    assert.ok(id.includes('/') && id.includes('='));
    assert.equal((await api(emu, token, 'POST', '/object/url', [{ id }])).status, 200);
  });
});

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureResultsRoot, jobFolder, linksFolder } from '../../../src/jobs/resultsLayout';

describe('results layout', () => {
  let tmp: string;
  beforeEach(async () => (tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-layout-'))));
  afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

  it('puts a job\'s files under <connection>/<namespace>/<table>/<job id>/', () => {
    assert.equal(jobFolder(tmp, { connection: 'Sample data', namespace: 'canvas', table: 'users', jobId: 'j-1' }), path.join(tmp, 'Sample data', 'canvas', 'users', 'j-1'));
    assert.equal(linksFolder(tmp), path.join(tmp, 'links'));
  });

  it('keeps every part one safe segment inside the results folder', () => {
    const folder = jobFolder(tmp, { connection: '../../etc', namespace: 'a/b', table: '..', jobId: 'x/../../y' });
    assert.ok(folder.startsWith(tmp + path.sep), folder);
    assert.equal(path.relative(tmp, folder).split(path.sep).length, 4);
  });

  it('gives job ids that name the same folder once sanitised or cut their own folders, and keeps plain ids as they are', () => {
    const folder = (jobId: string): string => jobFolder(tmp, { connection: 'c', namespace: 'canvas', table: 'users', jobId });
    const long = 'j'.repeat(200);
    const ids = ['a/b', 'a:b', 'a_b', `${long}1`, `${long}2`, '..', '.', '_', `a_b--${'0'.repeat(12)}`];
    const folders = ids.map(folder);
    assert.equal(new Set(folders).size, ids.length, folders.join('\n'));
    for (const f of folders) {
      assert.equal(path.dirname(f), path.join(tmp, 'c', 'canvas', 'users'), f);
      assert.ok(path.basename(f).length <= 120, f);
    }
    assert.equal(path.basename(folder('a_b')), 'a_b', 'a plain id keeps the folder earlier downloads used');
    assert.equal(path.basename(folder('abc-123.x')), 'abc-123.x');
    assert.match(path.basename(folder('a/b')), /^a_b--[0-9a-f]{12}$/);
    const uuid = 'eed69980-77c7-45a9-9ca5-f4b31e20fcf1';
    assert.equal(path.basename(folder(uuid)), uuid, 'a UUID keeps its name');
  });

  it('creates the results folder with a .gitignore of * and leaves an existing one alone', async () => {
    const root = path.join(tmp, 'data-query-results');
    await ensureResultsRoot(root, true);
    assert.equal(await fs.readFile(path.join(root, '.gitignore'), 'utf8'), '*\n');
    await fs.writeFile(path.join(root, '.gitignore'), '*.gz\n');
    await ensureResultsRoot(root, true);
    assert.equal(await fs.readFile(path.join(root, '.gitignore'), 'utf8'), '*.gz\n');
    const elsewhere = path.join(tmp, 'global');
    await ensureResultsRoot(elsewhere, false);
    await assert.rejects(fs.access(path.join(elsewhere, '.gitignore')));
  });
});

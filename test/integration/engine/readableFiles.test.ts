// What DuckDB may read: the files of the results open in the engine and its own folder, and
// nothing else, whatever a preview's WHERE or a console statement asks for. A result saved in
// another folder still opens (the engine starts again with that folder added).

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineClient } from '../../../src/engine/engineClient';
import { isEngineError } from '../../../src/engine/engineErrors';
import { HOST_SCRIPT, keyedSchema, writeKeyedResult } from './sampleResults';

const schema = keyedSchema({ name: { type: 'string' } });
const result = (folder: string, rows: number): Promise<string> => writeKeyedResult(folder, rows, (id) => ({ name: `name ${id}` }));

describe('engine: the files a statement may read', function () {
  this.timeout(60_000);
  let dir: string;
  let secret: string;
  let engine: EngineClient;
  let first: string;

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-readable-'));
    secret = path.join(dir, 'secret.txt');
    await fs.writeFile(secret, 'not for the preview\n');
    first = await result(path.join(dir, 'results', 'job-1'), 5);
    engine = new EngineClient({ hostScript: HOST_SCRIPT, tempDir: path.join(dir, 'engine') });
  });
  after(async () => {
    await engine.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function refused(call: Promise<unknown>, file: string): Promise<void> {
    const err = await call.then(
      () => assert.fail(`${file} was read`),
      (e: unknown) => e,
    );
    assert.ok(isEngineError(err), String(err));
    assert.equal(err.kind, 'syntax', err.message);
    assert.ok(err.message.includes(file), err.message);
    assert.match(err.message, /is out of reach here/);
    assert.doesNotMatch(err.message, /not for the preview/);
  }

  it("lets a preview's WHERE read no file but the result's own", async () => {
    const opened = await engine.open({ paths: [first], schema });
    await refused(engine.page(opened.handle, { where: `"key.id" >= 0 OR EXISTS (SELECT 1 FROM read_text('${secret}'))` }, 0, 10), secret);
    await refused(engine.count(opened.handle, { where: `"value.name" IN (SELECT content FROM read_text('${secret}'))` }), secret);
    const rows = (await engine.page(opened.handle, { where: `"key.id" = 3` }, 0, 10)).rows;
    assert.deepEqual(rows.map((r) => r.slice(0, 2)), [['3', 'name 3']], "the result's files still read");
    await engine.closeHandle(opened.handle);
  });

  it('lets a console statement read, attach or write no file outside the engine, while the views read', async () => {
    await engine.registerView('canvas.users', { paths: [first], schema });
    await refused(engine.sqlKept(`SELECT * FROM read_text('${secret}')`, 10), secret);
    await refused(engine.sqlKept(`SELECT count(*) FROM canvas.users UNION ALL SELECT length(content) FROM read_text('${secret}')`, 10), secret);
    const leak = path.join(dir, 'leak.csv');
    await refused(engine.sqlKept(`COPY (SELECT 1) TO '${leak}'`, 10), leak);
    assert.equal(await fs.stat(leak).then(() => true, () => false), false, 'nothing was written');
    await refused(engine.sqlKept(`ATTACH '${path.join(dir, 'other.duckdb')}' AS other`, 10), path.join(dir, 'other.duckdb'));
    const counted = await engine.sqlKept('SELECT count(*) AS n FROM canvas.users', 10);
    assert.deepEqual(counted.rows, [['5']]);
  });

  it('opens a result saved in another folder, and exports wherever the user chooses', async () => {
    const elsewhere = await result(path.join(dir, 'elsewhere'), 3);
    const opened = await engine.open({ paths: [elsewhere], schema });
    assert.equal(await engine.count(opened.handle, {}), 3);
    const target = path.join(dir, 'exports', 'users.csv');
    await fs.mkdir(path.dirname(target));
    assert.deepEqual(await engine.export({ handle: opened.handle, view: {} }, { path: target, format: 'csv' }), { rows: 3, path: target });
    assert.equal((await fs.readFile(target, 'utf8')).trim().split('\n').length, 4);
    assert.deepEqual(await fs.readdir(path.dirname(target)), ['users.csv'], 'nothing but the export beside it');
    // still only the results' files
    await refused(engine.page(opened.handle, { where: `EXISTS (SELECT 1 FROM read_text('${secret}'))` }, 0, 1), secret);
  });
});

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readResultText } from '../../../src/jobs/resultText';

describe('result text for the editor', () => {
  let tmp: string;
  beforeEach(async () => (tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'dq-text-'))));
  afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

  it('opens a gzip CSV as its decompressed text', async () => {
    const file = path.join(tmp, 'part-00000.csv.gz');
    await fs.writeFile(file, gzipSync('key.id,value.name\n1,Ada\n'));
    assert.equal(await readResultText(file), 'key.id,value.name\n1,Ada\n');
  });

  it('refuses Parquet and results larger than the limit once decompressed', async () => {
    const parquet = path.join(tmp, 'part-00000.parquet');
    await fs.writeFile(parquet, Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64)]));
    assert.equal(await readResultText(parquet), undefined);
    const big = path.join(tmp, 'part-00001.jsonl.gz');
    await fs.writeFile(big, gzipSync(Buffer.alloc(2048, 'x')));
    assert.equal(await readResultText(big, 1024), undefined, 'small on disk, too big once decompressed');
    assert.equal((await readResultText(big, 4096))?.length, 2048);
  });
});

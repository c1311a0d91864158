import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { objectFileBaseName, resultFileExtension, safeJoin, sanitizeFileName } from '../../../src/core/paths';

describe('file names from object ids', () => {
  const hostile = ['../../etc/passwd', 'a/b\\c', '..', '.', '', 'CON', 'nul.txt', 'com1', 'x\u0000y\u001fz', ' trailing. ', 'a:b*c?d"e<f>g|h'];

  for (const raw of hostile) {
    it(`sanitises ${JSON.stringify(raw)} to one safe segment`, () => {
      const s = sanitizeFileName(raw);
      assert.ok(s.length > 0);
      assert.ok(!/[/\\]/.test(s), 'no separators');
      assert.ok(!s.includes('..'), 'no ..');
      // eslint-disable-next-line no-control-regex
      assert.ok(!/[\u0000-\u001f]/.test(s), 'no control characters');
      assert.ok(!/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(s), 'no reserved Windows name');
      assert.ok(!/[.\s]$/.test(s), 'no trailing dot or space');
      assert.equal(path.dirname(safeJoin('/tmp/out', s)), path.resolve('/tmp/out'));
    });
  }

  it('limits length', () => {
    assert.ok(sanitizeFileName('x'.repeat(1000)).length <= 120);
  });

  it('keeps distinct names for distinct ids, even ones that sanitise alike', () => {
    const ids = ['a/b', 'a\\b', 'a_b', '../a_b', 'part', 'part '];
    const names = ids.map((id, i) => objectFileBaseName(id, i % 2));
    assert.equal(new Set(names).size, ids.length);
    assert.match(objectFileBaseName('../../etc/passwd', 3), /^part-00003-[0-9a-f]{10}$/);
    assert.equal(objectFileBaseName('x', 0), objectFileBaseName('x', 0), 'stable');
  });

  it('derives extensions from format and compression', () => {
    assert.equal(resultFileExtension('jsonl', true), '.jsonl.gz');
    assert.equal(resultFileExtension('csv', true), '.csv.gz');
    assert.equal(resultFileExtension('tsv', true), '.tsv.gz');
    assert.equal(resultFileExtension('parquet', false), '.parquet');
    assert.equal(resultFileExtension('parquet', true), '.parquet.gz');
    assert.equal(resultFileExtension('jsonl', false), '.jsonl');
    assert.equal(resultFileExtension('csv', false), '.csv');
    assert.equal(resultFileExtension('tsv', false), '.tsv');
  });

  it('never joins outside the folder: a name that would leave it lands directly inside or is refused', () => {
    const root = path.resolve('/data/out');
    const escapes = ['../../etc/passwd', '/etc/passwd', '..', '.', '', 'a/../../b', 'sub/dir/file', '..\\..\\windows', 'C:\\Windows\\x', '\\\\host\\share'];
    for (const name of escapes) {
      let joined: string;
      try {
        joined = safeJoin(root, name);
      } catch (err) {
        assert.match(String(err), /outside/, `${JSON.stringify(name)} is refused as leaving the folder`);
        continue;
      }
      assert.equal(path.dirname(joined), root, `${JSON.stringify(name)} gave ${joined}`);
    }
  });
});

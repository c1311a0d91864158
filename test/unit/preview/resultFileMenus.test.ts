// Every name a downloaded result file can have (each format, gzip-compressed or not) is offered
// the preview: in the file explorer's context menu and under "Open With...".

import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { FORMATS } from '../../../src/core/contract';
import { resultFileExtension } from '../../../src/core/paths';

interface Contributes {
  menus: { 'explorer/context': { command: string; when: string }[] };
  customEditors: { viewType: string; selector: { filenamePattern: string }[] }[];
}

const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')) as { contributes: Contributes };

/** The regular expression of a `resourceFilename =~ /.../` clause. */
function filenameRegex(when: string): RegExp {
  const match = /resourceFilename =~ \/(.+)\/$/.exec(when);
  assert.ok(match, `a file name test in "${when}"`);
  return new RegExp(match[1]);
}

/** A glob of the form `*.ext`, as VS Code matches a file name against it. */
function matchesGlob(name: string, glob: string): boolean {
  assert.ok(glob.startsWith('*.') && !glob.slice(1).includes('*'), `a simple glob: ${glob}`);
  return name.endsWith(glob.slice(1));
}

describe('result files offer the preview', () => {
  const names = FORMATS.flatMap((format) => [true, false].map((gzip) => `part-00000-0123456789${resultFileExtension(format, gzip)}`));

  it('in the file explorer\'s context menu, for every format, compressed or not', () => {
    const entry = manifest.contributes.menus['explorer/context'].find((m) => m.command === 'dataQuery.previewResult');
    assert.ok(entry);
    const regex = filenameRegex(entry.when);
    for (const name of names) assert.ok(regex.test(name), name);
    assert.ok(!regex.test('notes.txt.gz') && !regex.test('data.json'), 'and not for other files');
  });

  it('under "Open With...", for every format, compressed or not', () => {
    const editor = manifest.contributes.customEditors.find((e) => e.viewType === 'dataQuery.resultPreview');
    assert.ok(editor);
    for (const name of names) assert.ok(editor.selector.some((s) => matchesGlob(name, s.filenamePattern)), name);
  });
});

// docs/reference.md lists every command and setting of package.json, as package.json says them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

interface Package {
  contributes: {
    commands: Array<{ command: string; title: string; category?: string }>;
    configuration: { properties: Record<string, { type?: string; default?: unknown; description?: string }> };
  };
}
interface DocTables {
  staleTables(text: string, pkg: Package): string[];
}

const docTables = require(path.join(ROOT, 'scripts', 'docTables.js')) as DocTables;
const readPackage = (): Package => JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Package;
const reference = (): string => fs.readFileSync(path.join(ROOT, 'docs', 'reference.md'), 'utf8');

describe('docs/reference.md', () => {
  it('has the commands and settings tables package.json makes (node scripts/docTables.js rewrites them)', () => {
    assert.deepEqual(docTables.staleTables(reference(), readPackage()), []);
  });

  it('goes stale when a command is contributed that the docs do not list', () => {
    const pkg = readPackage();
    pkg.contributes.commands.push({ command: 'dataQuery.somethingNew', title: 'Something New', category: 'Data Query' });
    assert.deepEqual(docTables.staleTables(reference(), pkg), ['commands']);
  });

  it('goes stale when a setting\'s default changes', () => {
    const pkg = readPackage();
    const [name] = Object.keys(pkg.contributes.configuration.properties);
    pkg.contributes.configuration.properties[name] = { ...pkg.contributes.configuration.properties[name], default: 'changed' };
    assert.deepEqual(docTables.staleTables(reference(), pkg), ['settings']);
  });
});

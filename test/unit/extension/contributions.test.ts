// package.json and the code held together: every contributed command is in ids.ts and
// registered by some feature, the views and context keys are the ones ids.ts names, a webview
// panel drawn again after a reload activates the extension, every setting the code reads
// (settings.ts) is declared with the same type and default and every declared one is in the
// table, and only the settings module asks VS Code for a configuration.
// Plain Node: ids.ts and settings.ts import nothing of VS Code, the rest is read as text.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Commands, ContextKeys, ViewTypes, Views } from '../../../src/extension/ui/ids';
import { EDITOR_SETTINGS, read, SETTINGS } from '../../../src/extension/ui/settings';

const ROOT = path.resolve(__dirname, '../../../..');
const EXTENSION = path.join(ROOT, 'src/extension');

interface Contributes {
  commands: { command: string }[];
  views: Record<string, { id: string }[]>;
  viewsContainers: { activitybar: { id: string }[] };
  customEditors: { viewType: string }[];
  menus: Record<string, { command?: string; when?: string }[]>;
  keybindings: { command: string; when?: string }[];
  configuration: { properties: Record<string, { type: string; default?: unknown }> } | { properties: Record<string, { type: string; default?: unknown }> }[];
}

function contributes(): Contributes {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: Contributes }).contributes;
}

function sources(dir: string): { file: string; text: string }[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [{ file: path.relative(ROOT, full), text: fs.readFileSync(full, 'utf8') }] : [];
  });
}

const REGISTRATION = /\b(?:registerCommand|registerArgsOrInteractiveCommand|tableCommand)\(\s*('[^']*'|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)/g;

/** The command ids src/extension registers: literal ids, ids.ts's `Commands.x`, and constants of src/extension. */
function registeredCommands(files: readonly { text: string }[]): Set<string> {
  const constants = new Map<string, string>();
  for (const { text } of files) {
    for (const m of text.matchAll(/\bconst\s+([A-Z][A-Z0-9_]*)\s*=\s*'([^']+)'/g)) constants.set(m[1], m[2]);
    for (const m of text.matchAll(/\bconst\s+([A-Z][A-Z0-9_]*)\s*=\s*Commands\.(\w+)\s*;/g)) {
      const id = (Commands as Record<string, string>)[m[2]];
      if (id) constants.set(m[1], id);
    }
  }
  const ids = new Set<string>();
  for (const { text } of files) {
    for (const [, arg] of text.matchAll(REGISTRATION)) {
      if (arg.startsWith("'")) ids.add(arg.slice(1, -1));
      else if (arg.startsWith('Commands.')) ids.add((Commands as Record<string, string>)[arg.slice('Commands.'.length)] ?? arg);
      else if (constants.has(arg)) ids.add(constants.get(arg)!);
      // anything else is a helper's own parameter (`id`): its callers are scanned
    }
  }
  return ids;
}

function settingsDeclared(): Record<string, { type: string; default?: unknown }> {
  const configuration = contributes().configuration;
  return Object.assign({}, ...[configuration].flat().map((c) => c.properties));
}

describe('package.json and the extension agree', () => {
  const files = sources(EXTENSION);

  it('names every contributed command in ids.ts, and nothing else', () => {
    const contributed = contributes().commands.map((c) => c.command).sort();
    assert.deepEqual(Object.values(Commands).sort(), contributed);
  });

  it('registers every contributed command somewhere in src/extension', () => {
    const registered = registeredCommands(files);
    const missing = contributes()
      .commands.map((c) => c.command)
      .filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], 'contributed in package.json, registered by no feature');
  });

  it('names the views, the custom editor and the context keys of package.json in ids.ts', () => {
    const { views, viewsContainers, customEditors, menus, keybindings } = contributes();
    assert.deepEqual(viewsContainers.activitybar.map((c) => c.id), [Views.container]);
    assert.deepEqual(views[Views.container].map((v) => v.id).sort(), [Views.explorer, Views.jobs].sort());
    assert.deepEqual(customEditors.map((e) => e.viewType), [ViewTypes.resultPreview]);
    // what a `when` clause tests besides the view, the item, the webview or editor and the file: the context keys
    const whens = [...Object.values(menus).flat(), ...keybindings].map((m) => m.when ?? '');
    const keys = new Set(
      whens.flatMap((when) =>
        [...when.replace(/\b(?:view|viewItem|activeWebviewPanelId|activeCustomEditorId)\s*(?:==|=~)\s*(?:\/(?:\\.|[^/])*\/|'[\w.]+'|[\w.]+)/g, '').matchAll(/\bdataQuery\.[\w.]+/g)].map((m) => m[0]),
      ),
    );
    assert.deepEqual([...keys].sort(), Object.values(ContextKeys).sort());
    // the webviews and editors a `when` clause names are the extension's own
    const panels = whens.flatMap((when) => [...when.matchAll(/\b(?:activeWebviewPanelId|activeCustomEditorId)\s*==\s*'([\w.]+)'/g)].map((m) => m[1]));
    for (const id of panels) assert.ok((Object.values(ViewTypes) as string[]).includes(id), `${id} is a view type of ids.ts`);
  });

  it('activates on each webview panel that a serializer of src/extension draws again after a reload', () => {
    const serialized = files.flatMap((f) => [...f.text.matchAll(/registerWebviewPanelSerializer\(\s*ViewTypes\.(\w+)/g)].map((m) => (ViewTypes as Record<string, string>)[m[1]]));
    assert.ok(serialized.includes(ViewTypes.chart), 'the chart panel has a serializer');
    const { activationEvents } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { activationEvents: string[] };
    const panels = activationEvents.filter((e) => e.startsWith('onWebviewPanel:')).map((e) => e.slice('onWebviewPanel:'.length));
    assert.deepEqual(panels.sort(), serialized.sort(), 'onWebviewPanel activation events of package.json');
  });

  it('declares every setting of settings.ts with its type and default, and no other', () => {
    const declared = settingsDeclared();
    assert.deepEqual(Object.keys(SETTINGS).sort(), Object.keys(declared).sort(), 'the settings of package.json and of settings.ts');
    for (const [name, spec] of Object.entries(SETTINGS)) {
      assert.equal(spec.type, declared[name].type, `${name}: type`);
      assert.deepEqual(spec.default, declared[name].default, `${name}: default`);
    }
    for (const name of Object.keys(EDITOR_SETTINGS)) assert.doesNotMatch(name, /^dataQuery\./, `${name} is VS Code's own`);
  });

  it('asks VS Code for a configuration only in the settings module', () => {
    const offenders = files.filter((f) => /\bgetConfiguration\s*\(/.test(f.text)).map((f) => f.file);
    assert.deepEqual(offenders, [path.join('src', 'extension', 'ui', 'vscodeSettings.ts')]);
  });

  it('shows an error message only through presentError', () => {
    const offenders = files.filter((f) => /\bshowErrorMessage\b/.test(f.text)).map((f) => f.file);
    assert.deepEqual(offenders, [path.join('src', 'extension', 'ui', 'presentError.ts')]);
  });
});

describe('settings.read', () => {
  const config = (values: Record<string, unknown>) => ({ get: <T>(name: string) => values[name] as T | undefined });

  it('gives the value when it has the declared type', () => {
    assert.equal(read(config({ 'dataQuery.download.concurrency': 8 }), 'dataQuery.download.concurrency'), 8);
    assert.deepEqual(read(config({ 'dataQuery.rateLimits': { createJob: 10 } }), 'dataQuery.rateLimits'), { createJob: 10 });
    assert.equal(read(config({ 'http.proxy': 'http://proxy:3128' }), 'http.proxy'), 'http://proxy:3128');
  });

  it('gives the default when the value is missing or of another type', () => {
    assert.equal(read(config({}), 'dataQuery.query.defaultFormat'), 'jsonl');
    assert.equal(read(config({ 'dataQuery.download.decompress': 'yes' }), 'dataQuery.download.decompress'), false);
    assert.deepEqual(read(config({ 'dataQuery.rateLimits': [1, 2] }), 'dataQuery.rateLimits'), {});
    assert.deepEqual(read(config({ 'http.noProxy': 'localhost' }), 'http.noProxy'), []);
  });

  it('gives each reader its own copy of a default', () => {
    const first = read(config({}), 'dataQuery.rateLimits');
    first.createJob = 1;
    assert.deepEqual(read(config({}), 'dataQuery.rateLimits'), {});
  });
});

#!/usr/bin/env node
// The commands and settings tables of docs/reference.md, made from package.json so that the
// docs and what the extension contributes cannot drift apart.
//   node scripts/docTables.js           rewrites the tables in docs/reference.md
//   node scripts/docTables.js --check   exits 1 (naming the table) when they differ
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const REFERENCE = path.join(ROOT, 'docs', 'reference.md');

function cell(text) {
  return String(text).replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function code(value) {
  return '`' + String(value).replace(/`/g, "'") + '`';
}

function commandsTable(pkg) {
  const contributes = pkg.contributes ?? {};
  const keys = new Map((contributes.keybindings ?? []).map((k) => [k.command, k.mac ? `${k.key} (${k.mac} on macOS)` : k.key]));
  const hidden = new Set(((contributes.menus ?? {}).commandPalette ?? []).filter((m) => m.when === 'false').map((m) => m.command));
  const rows = (contributes.commands ?? []).map((c) => {
    const title = c.category ? `${c.category}: ${c.title}` : c.title;
    const where = [hidden.has(c.command) ? 'menus only' : 'palette', keys.has(c.command) ? keys.get(c.command) : undefined].filter(Boolean).join('; ');
    return `| ${code(c.command)} | ${cell(title)} | ${cell(where)} |`;
  });
  return ['| Command | Title | Where |', '|---|---|---|', ...rows].join('\n');
}

function typeOf(setting) {
  if (Array.isArray(setting.enum)) return setting.enum.map((v) => code(v)).join(' \\| ');
  return Array.isArray(setting.type) ? setting.type.join(' \\| ') : String(setting.type ?? '');
}

function settingsTable(pkg) {
  const configurations = [].concat((pkg.contributes ?? {}).configuration ?? []);
  const rows = [];
  for (const configuration of configurations) {
    for (const [name, setting] of Object.entries(configuration.properties ?? {})) {
      const description = setting.markdownDescription ?? setting.description ?? '';
      rows.push(`| ${code(name)} | ${typeOf(setting)} | ${code(JSON.stringify(setting.default))} | ${cell(description)} |`);
    }
  }
  return ['| Setting | Type | Default | Description |', '|---|---|---|---|', ...rows].join('\n');
}

const TABLES = { commands: commandsTable, settings: settingsTable };

/** The document with each generated table made anew from `pkg`. */
function renderReference(text, pkg) {
  let out = text;
  for (const [name, render] of Object.entries(TABLES)) {
    const start = `<!-- generated: ${name} (node scripts/docTables.js) -->`;
    const end = `<!-- end of generated ${name} -->`;
    const from = out.indexOf(start);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`docs/reference.md has no ${name} table between "${start}" and "${end}"`);
    out = `${out.slice(0, from + start.length)}\n${render(pkg)}\n${out.slice(to)}`;
  }
  return out;
}

/** The names of the tables whose text in `text` differs from what `pkg` makes. */
function staleTables(text, pkg) {
  const fresh = renderReference(text, pkg);
  return Object.keys(TABLES).filter((name) => tableText(fresh, name) !== tableText(text, name));
}

function tableText(text, name) {
  const start = text.indexOf(`<!-- generated: ${name} `);
  return text.slice(start, text.indexOf(`<!-- end of generated ${name} -->`, start));
}

module.exports = { renderReference, staleTables, commandsTable, settingsTable };

if (require.main === module) {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const text = fs.readFileSync(REFERENCE, 'utf8');
  if (process.argv.includes('--check')) {
    const stale = staleTables(text, pkg);
    if (stale.length > 0) {
      process.stderr.write(`docs/reference.md: the ${stale.join(' and ')} table(s) differ from package.json; run node scripts/docTables.js\n`);
      process.exit(1);
    }
  } else {
    fs.writeFileSync(REFERENCE, renderReference(text, pkg));
  }
}

// bench/results.json and the table printed from it (plain text for the terminal, Markdown
// for docs/benchmarks.md).

import type { Row, Unit } from './figure';

export interface FigureResult {
  name: string;
  title: string;
  status: 'measured' | 'failed' | 'not built yet';
  seconds?: number;
  rows: Row[];
  error?: string;
}

export interface Results {
  generatedAt: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string };
  seconds: number;
  figures: FigureResult[];
}

const HEADER = ['Figure', 'Measure', 'Result', 'Baseline (same run)', 'Ratio', 'Goal', ''];

export function textTable(results: Results): string {
  const cells = [HEADER, ...tableRows(results)];
  const widths = HEADER.map((_, c) => Math.max(...cells.map((r) => r[c].length)));
  const line = (r: string[]): string => r.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd();
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  ').trimEnd(), ...cells.slice(1).map(line)].join('\n');
}

export function markdownTable(results: Results): string {
  const line = (r: string[]): string => `| ${r.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(HEADER), line(HEADER.map(() => '---')), ...tableRows(results).map(line)].join('\n');
}

function tableRows(results: Results): string[][] {
  return results.figures.flatMap((f) => {
    if (f.status === 'not built yet') return [[f.name, f.title, 'not built yet', '', '', '', '']];
    if (f.status === 'failed') return [[f.name, f.title, `failed: ${f.error ?? ''}`, '', '', '', '']];
    return f.rows.map((r) => [
      f.name,
      r.measure,
      quantity(r.value, r.unit),
      r.baseline.value === undefined ? r.baseline.label : `${r.baseline.label}: ${quantity(r.baseline.value, r.unit)}`,
      r.ratio === undefined ? '-' : r.ratio.toFixed(2),
      r.goal ?? '',
      r.met === undefined ? '' : r.met ? 'met' : 'MISSED',
    ]);
  });
}

function quantity(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return 'n/a';
  switch (unit) {
    case 's':
      return `${value.toFixed(2)} s`;
    case 'ms':
      return `${value.toFixed(1)} ms`;
    case 'MiB':
    case 'KiB':
      return `${value.toFixed(1)} ${unit}`;
    default:
      return String(Math.round(value)); // a count: the measure says of what
  }
}

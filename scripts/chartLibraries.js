#!/usr/bin/env node
// Compares chart libraries for the chart webview on what it needs: the minified (and gzipped)
// size of a bundle with only the parts used, the time to draw 50,000 points in Debian's
// chromium (headless, software rendering, as the webview tests run), the time to export PNG
// and SVG, and whether SVG comes from the library itself. Each page loads under the webview's
// own content security policy, and any violation is counted.
//   node scripts/chartLibraries.js                 the candidates installed in this project
//   node scripts/chartLibraries.js --from DIR      candidates installed in DIR/node_modules
//                                                  (npm install --prefix DIR uplot chart.js echarts)
// Candidates not installed are skipped. Not part of the tests: its figures go to docs/preview.md.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const esbuild = require('esbuild');
const { chromium } = require('playwright-core');

const ROOT = path.resolve(__dirname, '..');
const POINTS = 50_000;
const RUNS = 5;
const WIDTH = 900;
const HEIGHT = 500;

/** Each candidate: the packages it needs, and an entry that sets window.bench = { draw, png, svg? }. */
const CANDIDATES = [
  {
    name: 'uPlot',
    packages: ['uplot'],
    css: 'uplot/dist/uPlot.min.css',
    entry: `
import uPlot from 'uplot';
let plot;
window.bench = {
  draw(kind, xs, ys, el) {
    plot?.destroy();
    const series = kind === 'scatter' ? { stroke: '#3794ff', paths: () => null, points: { show: true, size: 3, fill: '#3794ff' } } : { stroke: '#3794ff', points: { show: false } };
    plot = new uPlot({ width: ${WIDTH}, height: ${HEIGHT}, scales: { x: { time: false } }, series: [{}, series] }, [xs, ys], el);
  },
  png: () => plot.ctx.canvas.toDataURL('image/png'),
};`,
  },
  {
    name: 'Chart.js',
    packages: ['chart.js'],
    entry: `
import { Chart, ScatterController, LineController, BarController, PointElement, LineElement, BarElement, LinearScale, CategoryScale, Legend, Tooltip } from 'chart.js';
Chart.register(ScatterController, LineController, BarController, PointElement, LineElement, BarElement, LinearScale, CategoryScale, Legend, Tooltip);
let chart;
window.bench = {
  draw(kind, xs, ys, el) {
    chart?.destroy();
    const canvas = document.createElement('canvas');
    canvas.width = ${WIDTH};
    canvas.height = ${HEIGHT};
    el.replaceChildren(canvas);
    const data = Array.from(xs, (x, i) => ({ x, y: ys[i] }));
    chart = new Chart(canvas, {
      type: kind,
      data: { datasets: [{ data, borderColor: '#3794ff', backgroundColor: '#3794ff', pointRadius: kind === 'scatter' ? 1.5 : 0, borderWidth: 1 }] },
      options: { animation: false, responsive: false, parsing: false, normalized: true, scales: { x: { type: 'linear' } } },
    });
  },
  png: () => chart.toBase64Image('image/png'),
};`,
  },
  {
    name: 'ECharts (core, bar/line/scatter, axes, legend, tooltip, canvas and SVG renderers: the parts the chart page uses)',
    packages: ['echarts'],
    entry: `
import * as echarts from 'echarts/core';
import { BarChart, LineChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';
echarts.use([BarChart, LineChart, ScatterChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer, SVGRenderer]);
let chart;
let option;
window.bench = {
  draw(kind, xs, ys, el) {
    chart?.dispose();
    chart = echarts.init(el, null, { renderer: 'canvas', width: ${WIDTH}, height: ${HEIGHT} });
    const data = Array.from(xs, (x, i) => [x, ys[i]]);
    option = {
      animation: false,
      xAxis: { type: 'value', scale: true },
      yAxis: { type: 'value', scale: true },
      series: [kind === 'scatter' ? { type: 'scatter', data, symbolSize: 3, large: true } : { type: 'line', data, showSymbol: false, sampling: 'lttb' }],
    };
    chart.setOption(option);
  },
  png: () => chart.getDataURL({ type: 'png' }),
  svg() {
    const ssr = echarts.init(null, null, { renderer: 'svg', ssr: true, width: ${WIDTH}, height: ${HEIGHT} });
    ssr.setOption(option);
    const text = ssr.renderToSVGString();
    ssr.dispose();
    return text;
  },
};`,
  },
];

function argument(name) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** A package's package.json in `from` (read from the folder: some packages' exports do not name it). */
function manifest(from, pkg) {
  return path.join(from, 'node_modules', pkg, 'package.json');
}

function installed(from, pkg) {
  return fs.existsSync(manifest(from, pkg));
}

function version(from, pkg) {
  return JSON.parse(fs.readFileSync(manifest(from, pkg), 'utf8')).version;
}

async function bundle(candidate, from, dir) {
  const entry = path.join(dir, 'entry.js');
  fs.writeFileSync(entry, candidate.entry);
  const out = path.join(dir, 'bundle.js');
  await esbuild.build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    nodePaths: [path.join(from, 'node_modules')],
    logLevel: 'silent',
  });
  const code = fs.readFileSync(out);
  const css = candidate.css ? fs.readFileSync(require.resolve(candidate.css, { paths: [from] })) : Buffer.from('');
  return { code, css, bytes: code.length + css.length, gzipped: zlib.gzipSync(Buffer.concat([code, css]), { level: 9 }).length };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A page as the webview serves one: nothing but its own style sheet and one script with a nonce. */
function page(nonce) {
  const csp = `default-src 'none'; style-src http://bench.invalid; script-src 'nonce-${nonce}'; img-src data:`;
  return `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="http://bench.invalid/lib.css"></head>
<body><div id="chart"></div><script nonce="${nonce}" src="http://bench.invalid/lib.js"></script></body></html>`;
}

async function measure(browser, built) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  const tab = await context.newPage();
  await tab.route('http://bench.invalid/**', (route) => {
    const url = route.request().url();
    if (url.endsWith('/lib.js')) return route.fulfill({ body: built.code, contentType: 'text/javascript' });
    if (url.endsWith('/lib.css')) return route.fulfill({ body: built.css, contentType: 'text/css' });
    return route.fulfill({ body: page('bench'), contentType: 'text/html' });
  });
  await tab.addInitScript(() => {
    window.violations = 0;
    document.addEventListener('securitypolicyviolation', () => window.violations++);
  });
  await tab.goto('http://bench.invalid/');
  await tab.waitForFunction(() => window.bench !== undefined);
  const result = {};
  for (const kind of ['scatter', 'line']) {
    const times = [];
    for (let run = 0; run < RUNS; run++) {
      times.push(
        await tab.evaluate(async ({ kind, points }) => {
          const xs = new Float64Array(points);
          const ys = new Float64Array(points);
          for (let i = 0; i < points; i++) {
            xs[i] = i;
            ys[i] = Math.sin(i / 500) * 100 + ((i * 7919) % 101);
          }
          const el = document.getElementById('chart');
          const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
          const start = performance.now();
          window.bench.draw(kind, xs, ys, el);
          // painted: the frame after the draw call has been laid out and drawn
          await frame();
          await frame();
          return performance.now() - start;
        }, { kind, points: POINTS }),
      );
    }
    result[kind] = median(times);
  }
  result.png = await tab.evaluate(() => {
    const start = performance.now();
    const url = window.bench.png();
    return { ms: performance.now() - start, ok: url.startsWith('data:image/png;base64,'), bytes: Math.round((url.length * 3) / 4) };
  });
  result.svg = await tab.evaluate(() => {
    if (!window.bench.svg) return undefined;
    const start = performance.now();
    const text = window.bench.svg();
    return { ms: performance.now() - start, ok: text.startsWith('<svg'), bytes: text.length };
  });
  result.violations = await tab.evaluate(() => window.violations);
  await context.close();
  return result;
}

function kb(bytes) {
  return `${(bytes / 1024).toFixed(0)} KB`;
}

async function main() {
  const from = path.resolve(argument('--from') ?? ROOT);
  const executablePath = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => fs.existsSync(p));
  if (!executablePath) throw new Error('No chromium found: apt-get install -y chromium');
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  const rows = [];
  try {
    for (const candidate of CANDIDATES) {
      if (!candidate.packages.every((p) => installed(from, p))) {
        console.log(`${candidate.name}: not installed in ${from}, skipped`);
        continue;
      }
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dq-chart-bench-'));
      try {
        const built = await bundle(candidate, from, dir);
        const m = await measure(browser, built);
        const versions = candidate.packages.map((p) => `${p} ${version(from, p)}`).join(', ');
        rows.push({ candidate, versions, built, m });
        console.log(`${candidate.name} (${versions}): ${kb(built.bytes)} minified, ${kb(built.gzipped)} gzipped; 50,000 points: scatter ${m.scatter.toFixed(0)} ms, line ${m.line.toFixed(0)} ms; PNG ${m.png.ms.toFixed(0)} ms; SVG ${m.svg ? `${m.svg.ms.toFixed(0)} ms, ${kb(m.svg.bytes)}` : 'none'}; CSP violations ${m.violations}`);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await browser.close();
  }
  console.log('\n| Library | Minified | Gzipped | Scatter, 50,000 points | Line, 50,000 points | PNG export | SVG export |');
  console.log('|---|---|---|---|---|---|---|');
  for (const { candidate, versions, built, m } of rows) {
    const svg = m.svg ? `built in (${m.svg.ms.toFixed(0)} ms)` : 'none';
    console.log(`| ${candidate.name.split(' (')[0]} (${versions}) | ${kb(built.bytes)} | ${kb(built.gzipped)} | ${m.scatter.toFixed(0)} ms | ${m.line.toFixed(0)} ms | ${m.png.ms.toFixed(0)} ms | ${svg} |`);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});

// The chart's page, running in the webview: a kind and the columns for x, y and colour chosen
// with labelled lists (each offers only what fits the kind), the chart drawn by ECharts in the
// theme's colours (drawn again when the theme changes), what the engine did to the rows said
// under it, and Save PNG… and Save SVG… buttons. The extension reads the points; the page asks
// for them with each choice and draws the newest. A chart whose points could not be read is
// cleared, never left half-drawn, and the message says why. Under the lists, what the chart is
// drawn from (the grid's filters and WHERE then), and once the grid shows other rows, a button
// that draws the chart again in the grid's view. The page keeps what it is drawn from and the
// chart asked for in its state, for the panel to draw again after a reload of the window.

import { CHART_KINDS, type ChartData, type ChartKind, type ChartSpec } from '../../engine/chartProtocol';
import { columnsFor, keptColumn } from '../../engine/chartColumns';
import type { ResultColumn } from '../../engine/engineProtocol';
import { el } from '../dom';
import { echarts } from './chartLibrary';
import type { ChartOrigin, ImageFormat, SavedChart, ToChartHost, ToChartPage } from './chartMessages';
import { chartOption, markCount } from './chartOption';
import { originText } from './chartOrigin';
import { onThemeChange, readTheme } from './chartTheme';

interface VsCodeApi {
  postMessage(message: ToChartHost): void;
  setState(state: SavedChart): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const KIND_NAMES: Record<ChartKind, string> = { bar: 'Bar', line: 'Line', area: 'Area', scatter: 'Scatter', histogram: 'Histogram' };
/** The choice of no column: rows counted (y) or one series (colour). */
const NONE = '';

/** A labelled list: its label names it for the keyboard and the screen reader. */
function labelledSelect(id: string, label: string): { field: HTMLElement; select: HTMLSelectElement } {
  const field = el('span', 'field');
  const caption = el('label', 'label', label);
  caption.htmlFor = id;
  const select = el('select');
  select.id = id;
  field.append(caption, select);
  return { field, select };
}

function fill(select: HTMLSelectElement, options: { value: string; text: string }[], wanted: string | undefined): void {
  select.replaceChildren(...options.map((o) => Object.assign(el('option', undefined, o.text), { value: o.value })));
  select.value = options.some((o) => o.value === wanted) ? (wanted as string) : (options[0]?.value ?? '');
}

class ChartPage {
  private columns: ResultColumn[] = [];
  private version = 0;
  private data: ChartData | undefined;
  private spec: ChartSpec | undefined;
  /** a chart is being read: what the one shown was drawn from is not said meanwhile */
  private reading = false;
  private origin: { origin: ChartOrigin; total?: number; gridChanged: boolean } | undefined;
  private readonly title = el('span', 'title');
  private readonly kind = labelledSelect('chart-kind', 'Chart');
  private readonly x = labelledSelect('chart-x', 'x');
  private readonly y = labelledSelect('chart-y', 'y');
  private readonly color = labelledSelect('chart-color', 'Colour by');
  private readonly savePng = el('button', 'save png', 'Save PNG…');
  private readonly saveSvg = el('button', 'save svg', 'Save SVG…');
  private readonly originLine = el('div', 'origin');
  private readonly originText = el('span');
  private readonly redraw = el('button', 'redraw', 'Redraw with the grid\'s current view');
  private readonly status = el('div', 'status');
  private readonly error = el('div', 'error');
  private readonly note = el('div', 'note');
  private readonly canvas = el('div', 'chart');
  private readonly chart = echarts.init(this.canvas, null, { renderer: 'canvas' });

  constructor(private readonly vscode: VsCodeApi) {
    this.build();
    window.addEventListener('message', (e: MessageEvent<ToChartPage>) => this.receive(e.data));
    new ResizeObserver(() => this.chart.resize()).observe(this.canvas);
    onThemeChange(() => this.paint());
    this.vscode.postMessage({ type: 'ready' });
  }

  private build(): void {
    const toolbar = el('div', 'toolbar');
    fill(this.kind.select, CHART_KINDS.map((k) => ({ value: k, text: KIND_NAMES[k] })), 'bar');
    for (const { select } of [this.kind, this.x, this.y, this.color]) select.addEventListener('change', () => this.chosen(select === this.kind.select));
    this.savePng.title = 'Save the chart as a PNG image';
    this.saveSvg.title = 'Save the chart as an SVG drawing';
    this.savePng.addEventListener('click', () => this.save('png'));
    this.saveSvg.addEventListener('click', () => this.save('svg'));
    toolbar.append(this.title, this.kind.field, this.x.field, this.y.field, this.color.field, this.savePng, this.saveSvg);
    this.redraw.addEventListener('click', () => this.vscode.postMessage({ type: 'redraw' }));
    this.redraw.hidden = true;
    this.originLine.append(this.originText, this.redraw);
    this.originLine.hidden = true;
    this.status.setAttribute('role', 'status');
    this.error.setAttribute('role', 'alert');
    this.error.hidden = true;
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', 'Chart');
    document.body.append(toolbar, this.originLine, this.error, this.status, this.canvas, this.note);
    this.enableSave(false);
  }

  private receive(message: ToChartPage): void {
    switch (message.type) {
      case 'init':
        this.title.textContent = message.title;
        this.columns = message.columns;
        this.showSpec(message.spec);
        this.keep();
        break;
      case 'origin':
        this.origin = message;
        this.keep();
        this.showOrigin();
        break;
      case 'busy':
        if (message.version < this.version) return;
        this.version = message.version;
        this.enableSave(false);
        this.reading = true;
        this.showOrigin();
        this.status.textContent = message.rows === undefined ? 'Reading the result…' : `Reading the result: ${message.rows.toLocaleString()} rows so far…`;
        this.canvas.setAttribute('aria-busy', 'true');
        break;
      case 'data':
        if (message.version < this.version) return;
        this.version = message.version;
        this.data = message.data;
        this.reading = false;
        this.showError(undefined);
        this.showSpec({ kind: message.data.kind, x: message.data.x.name, y: message.data.y?.name, color: message.data.color?.name });
        this.keep();
        this.paint();
        this.showOrigin();
        this.vscode.postMessage({ type: 'drawn', version: message.version, marks: markCount(message.data) });
        break;
      case 'error':
        if (message.version !== undefined && message.version < this.version) return;
        this.showError(message.message);
        if (message.message !== undefined) {
          // nothing half-drawn: the chart before is not this one
          this.data = undefined;
          this.reading = false;
          this.chart.clear();
          this.note.textContent = '';
          this.status.textContent = '';
          this.canvas.removeAttribute('aria-busy');
          this.canvas.dataset.marks = '0';
          this.enableSave(false);
          this.showOrigin();
        }
        break;
      case 'render':
        this.render(message.id, message.format);
        break;
    }
  }

  /** Sets the lists to a chart's kind and columns, each list offering what fits the kind. */
  private showSpec(spec: ChartSpec): void {
    this.spec = spec;
    this.kind.select.value = spec.kind;
    this.fillColumns(spec);
  }

  private fillColumns(spec: ChartSpec): void {
    const options = (columns: ResultColumn[]): { value: string; text: string }[] => columns.map((c) => ({ value: c.name, text: `${c.name} (${c.type})` }));
    fill(this.x.select, options(columnsFor(spec.kind, 'x', this.columns)), spec.x);
    const ys = options(columnsFor(spec.kind, 'y', this.columns));
    fill(this.y.select, spec.kind === 'scatter' ? ys : [{ value: NONE, text: '(count of rows)' }, ...ys], spec.y ?? NONE);
    fill(this.color.select, [{ value: NONE, text: '(none)' }, ...options(this.columns)], spec.color ?? NONE);
    // no columns: the rows could not be read (the message says why), there is nothing to choose
    for (const { select } of [this.kind, this.x, this.y, this.color]) select.disabled = this.columns.length === 0;
  }

  /** The person chose something: the lists follow a new kind, and the extension reads the chart. */
  private chosen(kindChanged: boolean): void {
    let spec = this.currentSpec();
    if (kindChanged) {
      // x and y follow the kind: kept while they fit it, else the first columns that do
      const x = keptColumn(spec.kind, 'x', this.columns, spec.x) ?? '';
      const y = keptColumn(spec.kind, 'y', this.columns, spec.y);
      this.fillColumns({ ...spec, x, ...(y !== undefined ? { y } : { y: undefined }) });
      spec = this.currentSpec();
    }
    if (!spec.x) return;
    this.spec = spec;
    this.keep();
    this.vscode.postMessage({ type: 'draw', spec });
  }

  private currentSpec(): ChartSpec {
    const kind = this.kind.select.value as ChartKind;
    const y = this.y.select.value;
    const color = this.color.select.value;
    return { kind, x: this.x.select.value, ...(y !== NONE ? { y } : {}), ...(color !== NONE ? { color } : {}) };
  }

  /** Draws the chart read last in the theme's colours now, and says what the engine did to the rows. */
  private paint(): void {
    const data = this.data;
    if (!data) return;
    this.chart.setOption(chartOption(data, readTheme()), { notMerge: true });
    const marks = markCount(data);
    this.canvas.dataset.marks = String(marks);
    this.canvas.setAttribute('aria-label', `${KIND_NAMES[data.kind]} chart of ${data.x.name}${data.y ? ` and ${data.y.name}` : ''}. ${data.note}`);
    this.canvas.removeAttribute('aria-busy');
    // grouped: rows that share a mark (the note says how)
    this.status.textContent = `${data.rows.toLocaleString()} rows${data.aggregated && data.rows - data.skipped > marks ? ', grouped by the engine' : ''}.`;
    this.note.textContent = data.note;
    this.note.classList.toggle('aggregated', data.aggregated);
    this.enableSave(marks > 0);
  }

  /** Keeps what the chart is drawn from and the chart asked for in the page's state, for a reload of the window. */
  private keep(): void {
    if (this.origin && this.spec) this.vscode.setState({ ...this.origin.origin, spec: this.spec });
  }

  /** Says which rows the chart shows, and offers to draw it again once its grid shows others. */
  private showOrigin(): void {
    const origin = this.origin;
    const text = origin && this.data && !this.reading ? originText(origin.origin, this.data.rows, origin.total) : '';
    const changed = origin?.gridChanged === true;
    this.originText.textContent = changed ? `${text} The grid's view has changed since.`.trim() : text;
    this.redraw.hidden = !changed;
    this.originLine.hidden = this.originText.textContent === '';
  }

  private showError(message: string | undefined): void {
    this.error.textContent = message ?? '';
    this.error.hidden = message === undefined;
  }

  private enableSave(enabled: boolean): void {
    this.savePng.disabled = !enabled;
    this.saveSvg.disabled = !enabled;
  }

  private save(format: ImageFormat): void {
    if (this.data) this.vscode.postMessage({ type: 'export', format });
  }

  /** The chart shown as an image: SVG drawn apart at the size on screen, PNG from the canvas at twice its pixels. */
  private render(id: number, format: ImageFormat): void {
    const data = this.data;
    try {
      if (!data) throw new Error('no chart is drawn');
      const theme = readTheme();
      const option = chartOption(data, theme, theme.background);
      if (format === 'png') {
        this.chart.setOption({ backgroundColor: theme.background });
        const url = this.chart.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: theme.background });
        this.chart.setOption({ backgroundColor: 'transparent' });
        this.vscode.postMessage({ type: 'image', id, format, data: url.slice(url.indexOf(',') + 1) });
        return;
      }
      const svg = echarts.init(null, null, { renderer: 'svg', ssr: true, width: this.canvas.clientWidth || 800, height: this.canvas.clientHeight || 500 });
      try {
        svg.setOption(option);
        this.vscode.postMessage({ type: 'image', id, format, data: svg.renderToSVGString() });
      } finally {
        svg.dispose();
      }
    } catch (err) {
      this.vscode.postMessage({ type: 'imageFailed', id, message: err instanceof Error ? err.message : String(err) });
    }
  }
}

new ChartPage(acquireVsCodeApi());

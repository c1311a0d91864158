// What a chart was drawn from (chartMessages.ts's ChartOrigin: the result files and the grid's
// view of them at the time), as the panel and its page use it: the state the page keeps for a
// reload of the window read back and checked like anything else a page hands over, whether a
// grid's view holds other rows than the chart's, and the words the page says it in.

import { isRecord } from '../../core/isRecord';
import { parseView, type ViewState } from '../previewProtocol';
import { isText, parseFiles } from '../previewOrigin';
import { parseSpec, type ChartOrigin, type SavedChart } from './chartMessages';

/** A chart's state as the page kept it, when it is well formed (the files may be gone since: the panel looks). */
export function parseSavedChart(data: unknown): SavedChart | undefined {
  if (!isRecord(data) || !isText(data.title)) return undefined;
  const spec = parseSpec(data.spec);
  const files = data.files === undefined ? undefined : parseFiles(data.files);
  const view = data.view === undefined ? undefined : parseView(data.view);
  if (!spec || (data.files !== undefined && !files) || (data.view !== undefined && !view)) return undefined;
  return { title: data.title, spec, ...(files ? { files } : {}), ...(view ? { view } : {}) };
}

/** A view's filters (those with text) by column, in the order of the columns' names, and its WHERE, trimmed. */
function rowsOf(view: ViewState): { filters: [string, string][]; where: string } {
  const filters = Object.entries(view.filters)
    .map(([column, text]): [string, string] => [column, text.trim()])
    .filter(([, text]) => text !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { filters, where: view.where.trim() };
}

/** Whether two views of a grid hold the same rows: the same filters and WHERE (a sort changes no chart). */
export function sameRows(a: ViewState, b: ViewState): boolean {
  return JSON.stringify(rowsOf(a)) === JSON.stringify(rowsOf(b));
}

/** The filters and WHERE of a view as the user typed them (`value.http_method: GET; WHERE …`), or '' for all rows. */
export function rowsText(view: ViewState): string {
  const { filters, where } = rowsOf(view);
  return [...filters.map(([column, text]) => `${column}: ${text}`), ...(where ? [`WHERE ${where}`] : [])].join('; ');
}

/**
 * What the page says about the rows the chart shows: `Filtered: 1,234 of 5,000 rows (…).`, or
 * `All 5,000 rows of the result.`; '' for a console statement's rows. `rows`: the view's rows,
 * `total`: the whole result's, once counted.
 */
export function originText(origin: ChartOrigin, rows: number, total: number | undefined): string {
  if (!origin.view) return '';
  const filtered = rowsText(origin.view);
  if (!filtered) return `All ${rows.toLocaleString()} rows of the result.`;
  const of = total !== undefined ? ` of ${total.toLocaleString()}` : '';
  return `Filtered: ${rows.toLocaleString()}${of} rows (${filtered}).`;
}

// The messages between a chart panel (extension host) and its page (webview), defined once
// for both sides. The host validates everything the page sends (parseChartToHost): a webview
// is a web page, and nothing it posts is trusted before it has been checked here.

import { isRecord } from '../../core/isRecord';
import { CHART_KINDS, type ChartData, type ChartKind, type ChartSpec } from '../../engine/chartProtocol';
import type { ResultColumn } from '../../engine/engineProtocol';
import type { ResultFiles } from '../previewOrigin';
import type { ViewState } from '../previewProtocol';

/** The longest column name the host accepts from the page. */
export const MAX_NAME_LENGTH = 10_000;
/** The largest exported image the host accepts from the page (SVG text, or PNG as base64). */
export const MAX_IMAGE_CHARS = 64 * 1024 * 1024;

export type ImageFormat = 'png' | 'svg';

/** Result files as a chart opens them again. */
export type ChartFiles = ResultFiles;

/**
 * What a chart is drawn from. The page keeps it, with the chart asked for (SavedChart), in its
 * state, which VS Code hands back to the panel's serializer after a reload of the window:
 * nothing secret goes in (a title, file paths, what the user typed into the grid's filters).
 */
export interface ChartOrigin {
  title: string;
  /** absent for a SQL console statement's rows, which do not outlast the engine's process */
  files?: ChartFiles;
  /** the grid's view the rows were read in (its filters and WHERE); absent for a console statement's rows */
  view?: ViewState;
}

/** What a chart's page keeps in its state. */
export interface SavedChart extends ChartOrigin {
  spec: ChartSpec;
}

export type ToChartPage =
  /** what can be charted, and the chart to draw first */
  | { type: 'init'; title: string; columns: ResultColumn[]; spec: ChartSpec }
  /** the engine is reading for the chart `version`; `rows` copied so far while it waits for the result's copy */
  | { type: 'busy'; version: number; rows?: number }
  | { type: 'data'; version: number; data: ChartData }
  /** one clear message for the user (the chart `version` could not be read), `undefined` clears it */
  | { type: 'error'; version?: number; message: string | undefined }
  /** draw the chart shown as an image, answered by `image` (or `imageFailed`) with the same id */
  | { type: 'render'; id: number; format: ImageFormat }
  /**
   * what the chart is drawn from (kept in the page's state for a reload); `total`: the whole
   * result's rows once counted; `gridChanged`: the grid it came from, still open, shows other rows now
   */
  | { type: 'origin'; origin: ChartOrigin; total?: number; gridChanged: boolean };

export type ToChartHost =
  | { type: 'ready' }
  /** the person chose a chart: the host reads its points */
  | { type: 'draw'; spec: ChartSpec }
  /** the page drew the chart `version`, with this many marks (points, bars, cells) */
  | { type: 'drawn'; version: number; marks: number }
  /** the person asked for the chart again in the grid's current view */
  | { type: 'redraw' }
  /** the person asked to save the chart shown */
  | { type: 'export'; format: ImageFormat }
  /** the image asked for by `render`: SVG text, or a PNG as base64 */
  | { type: 'image'; id: number; format: ImageFormat; data: string }
  | { type: 'imageFailed'; id: number; message: string };

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_NAME_LENGTH;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isFormat(value: unknown): value is ImageFormat {
  return value === 'png' || value === 'svg';
}

/** A chart's kind and columns as the page sends them, when well formed (the engine checks them against the result). */
export function parseSpec(data: unknown): ChartSpec | undefined {
  if (!isRecord(data) || !(CHART_KINDS as readonly unknown[]).includes(data.kind) || !isName(data.x)) return undefined;
  if ((data.y !== undefined && !isName(data.y)) || (data.color !== undefined && !isName(data.color))) return undefined;
  return { kind: data.kind as ChartKind, x: data.x, ...(data.y !== undefined ? { y: data.y as string } : {}), ...(data.color !== undefined ? { color: data.color as string } : {}) };
}

/** The message, when it is a well-formed ToChartHost; otherwise undefined. */
export function parseChartToHost(data: unknown): ToChartHost | undefined {
  if (!isRecord(data)) return undefined;
  switch (data.type) {
    case 'ready':
    case 'redraw':
      return { type: data.type };
    case 'draw': {
      const spec = parseSpec(data.spec);
      return spec && { type: 'draw', spec };
    }
    case 'drawn':
      return isCount(data.version) && isCount(data.marks) ? { type: 'drawn', version: data.version, marks: data.marks } : undefined;
    case 'export':
      return isFormat(data.format) ? { type: 'export', format: data.format } : undefined;
    case 'image':
      return isCount(data.id) && isFormat(data.format) && typeof data.data === 'string' && data.data.length <= MAX_IMAGE_CHARS
        ? { type: 'image', id: data.id, format: data.format, data: data.data }
        : undefined;
    case 'imageFailed':
      return isCount(data.id) && typeof data.message === 'string' ? { type: 'imageFailed', id: data.id, message: data.message.slice(0, 1000) } : undefined;
    default:
      return undefined;
  }
}

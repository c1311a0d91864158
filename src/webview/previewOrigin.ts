// What a preview grid shows, as its page keeps it for a reload of the window (VS Code hands the
// page's state to the preview's serializer): the title, the result files and the downloaded job
// they are of, and the view the user asked for. Nothing secret goes in (a title, file paths, a
// connection's name, what the user typed into the filters). Read back and checked like anything
// else a page hands over.

import { isRecord } from '../core/isRecord';
import { MAX_TEXT_LENGTH, parseView, type JobRef, type PreviewOrigin, type ResultFiles, type ViewState } from './previewProtocol';

export type { JobRef, PreviewOrigin, ResultFiles };

/** What a grid's page keeps in its state for a reload of the window. */
export interface SavedPreview extends PreviewOrigin {
  title: string;
  view?: ViewState;
}

/** The most files a saved grid or chart may name. */
const MAX_FILES = 100_000;

/** Text a saved state may hold: not empty, and not beyond what the host accepts. */
export function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_TEXT_LENGTH;
}

export function parseFiles(data: unknown): ResultFiles | undefined {
  if (!isRecord(data) || !Array.isArray(data.paths) || data.paths.length === 0 || data.paths.length > MAX_FILES || !data.paths.every(isText)) return undefined;
  if (data.name !== undefined && !isText(data.name)) return undefined;
  return { paths: [...(data.paths as string[])], ...(data.name !== undefined ? { name: data.name as string } : {}) };
}

function parseJob(data: unknown): JobRef | undefined {
  return isRecord(data) && isText(data.connection) && isText(data.jobId) ? { connection: data.connection, jobId: data.jobId } : undefined;
}

/** A grid's state as the page kept it, when it is well formed (the files may be gone since: the serializer looks). */
export function parseSavedPreview(data: unknown): SavedPreview | undefined {
  if (!isRecord(data) || !isText(data.title)) return undefined;
  const files = data.files === undefined ? undefined : parseFiles(data.files);
  const job = data.job === undefined ? undefined : parseJob(data.job);
  const view = data.view === undefined ? undefined : parseView(data.view);
  if ((data.files !== undefined && !files) || (data.job !== undefined && !job) || (data.view !== undefined && !view)) return undefined;
  return { title: data.title, ...(files ? { files } : {}), ...(job ? { job } : {}), ...(view ? { view } : {}) };
}

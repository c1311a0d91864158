// What the extension remembers about one query job: what was asked, how far it got, what
// the service answered and which files landed on disk. Plain data, persisted as JSON.

import { isDqError, type ErrorKind } from '../client/errors';
import type { DownloadedFile, QueueReason } from '../client/types';
import type { CreateJobRequest, Operation } from '../core/contract';

/**
 * queued: held back by the rate limiter (or a 429 pause) before the job exists;
 * waiting/running: the service's states; downloading: files are being fetched;
 * complete: the job finished (files listed when downloaded); failed; expired: the service
 * deleted the job or its files; cancelled: the user stopped following it.
 */
export type JobState = 'queued' | 'waiting' | 'running' | 'downloading' | 'complete' | 'failed' | 'expired' | 'cancelled';

/** States in which the runner is still working on a job. */
export const ACTIVE_STATES: readonly JobState[] = ['queued', 'waiting', 'running', 'downloading'];

export interface QueryParams {
  connection: string;
  namespace: string;
  table: string;
  request: CreateJobRequest;
}

export interface StoredFile {
  /** the result object it came from (for a fresh link) */
  objectId: string;
  path: string;
  bytes: number;
  /** when the download was asked to hash its files */
  sha256?: string;
  gzip: boolean;
}

/** Why a job or its download failed, in words for a person (never a secret). */
export interface JobFailure {
  kind: ErrorKind | 'unknown';
  message: string;
  hint?: string;
  status?: number;
  type?: string;
  uuid?: string;
}

/** A wait imposed by the client's limiter: until when, and why. */
export interface QueueWait {
  operation: Operation;
  reason: QueueReason;
  until: number;
}

export interface DownloadState {
  bytes: number;
  doneFiles: number;
  totalFiles: number;
}

export interface JobEntry extends QueryParams {
  /** local id, known before the service names the job */
  key: string;
  state: JobState;
  /** when the query was started (ms since the epoch) */
  createdAt: number;
  /** when the state last changed */
  updatedAt: number;
  jobId?: string;
  expiresAt?: string;
  /** snapshot: the point the data reflects */
  at?: string;
  /** incremental: the end of the range the service chose */
  until?: string;
  /** result object ids (needed for fresh links; not secret) */
  objects?: string[];
  /** download the files when the job completes */
  download: boolean;
  files: StoredFile[];
  failure?: JobFailure;
  /** transient: a limiter wait in progress */
  queue?: QueueWait;
  /** transient: progress of a running download */
  progress?: DownloadState;
  /** transient: why the last status checks failed, while the runner keeps checking */
  statusTrouble?: JobFailure;
}

export function isActive(entry: JobEntry): boolean {
  return ACTIVE_STATES.includes(entry.state);
}

export function failureOf(err: unknown): JobFailure {
  if (isDqError(err)) {
    return { kind: err.kind, message: err.message, hint: err.hint, status: err.status, type: err.type, uuid: err.uuid };
  }
  return { kind: 'unknown', message: err instanceof Error ? err.message : String(err) };
}

/** `at` of a snapshot or `until` of an incremental: where the next incremental starts. */
export function dataPoint(entry: Pick<JobEntry, 'at' | 'until'>): string | undefined {
  return entry.at ?? entry.until;
}

export function tableName(entry: Pick<QueryParams, 'namespace' | 'table'>): string {
  return `${entry.namespace}.${entry.table}`;
}

export function storedFile(f: DownloadedFile): StoredFile {
  return { objectId: f.objectId, path: f.path, bytes: f.bytes, ...(f.sha256 ? { sha256: f.sha256 } : {}), gzip: f.gzip };
}

// Query jobs: created by the data endpoint, they pass waiting -> running -> complete|failed
// as time goes by (status is computed from the clock on every read, no timers), identical
// requests within the dedupe window share one job unless it has failed (a failed job says to
// create it again, so that gets a new one), and jobs expire a fixed time after start.

import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock';
import type { Format, JobRecord, JobStatus, Mode } from '../core/contract';
import { isoUtc } from '../core/isoTime';
import type { RecordRange } from './sampleData/changeHistory';
import type { TableDef } from './sampleData/tableModel';

export interface ObjectPart {
  id: string;
  jobId: string;
  part: number;
  /** rows [from, to) of the table's index space */
  from: number;
  to: number;
}

export interface Job {
  id: string;
  clientId: string;
  table: TableDef;
  format: Format;
  mode: Mode;
  range: RecordRange;
  /** what the requester asked for `until`, kept for the record */
  incremental: boolean;
  createdAt: number;
  expiresAt: number;
  fails: boolean;
  /** its records leave out expires_at (the noExpiresAt fault) */
  hideExpiry: boolean;
  /** its records carry fields the contract does not name (the jobExtras fault) */
  extraFields: boolean;
  objects: ObjectPart[];
  dedupeKey: string;
}

export interface JobRequest {
  clientId: string;
  table: TableDef;
  format: Format;
  mode: Mode;
  scope?: string;
  range: RecordRange;
  /** the raw since/until as sent, for dedupe */
  rawSince?: string;
  rawUntil?: string;
}

export interface JobEngineOptions {
  clock: Clock;
  jobDelayMs: number;
  jobTtlSec: number;
  dedupeWindowSec: number;
  rowsPerObject: number;
  /** decides whether a new job fails (fault injection) */
  shouldFail: () => boolean;
  /** how a new job's records deviate from the usual shape (fault injection); default not at all */
  recordVariant?: () => { hideExpiry: boolean; extraFields: boolean };
  /** called once for every job that has expired, to free its objects */
  onExpire: (job: Job) => void;
}

export class JobEngine {
  private readonly jobs = new Map<string, Job>();
  private readonly objects = new Map<string, ObjectPart>();

  constructor(private readonly o: JobEngineOptions) {}

  /** Returns the job and whether it was an existing one reused. */
  create(req: JobRequest): { job: Job; reused: boolean } {
    this.sweep();
    const now = this.o.clock.now();
    const dedupeKey = JSON.stringify([
      req.clientId,
      req.table.namespace,
      req.table.name,
      req.format,
      req.rawSince ?? null,
      req.rawUntil ?? null,
      req.mode,
      req.scope ?? null,
    ]);
    for (const job of this.jobs.values()) {
      if (job.dedupeKey !== dedupeKey || now - job.createdAt >= this.o.dedupeWindowSec * 1000 || now >= job.expiresAt) continue;
      // a failed job tells its requester to create it again: that must not hand back the same failure
      if (this.status(job) === 'failed') continue;
      return { job, reused: true };
    }
    const id = randomUUID();
    const parts = Math.max(1, Math.ceil(req.table.rowCount / this.o.rowsPerObject));
    const objects: ObjectPart[] = [];
    for (let k = 0; k < parts; k++) {
      // Opaque on purpose: slashes, plus signs and padding make parsing or using it as a path fail.
      const objectId = `${id}/part=${String(k).padStart(5, '0')}/${randomBytes(7).toString('base64')}`;
      const part: ObjectPart = {
        id: objectId,
        jobId: id,
        part: k,
        from: k * this.o.rowsPerObject,
        to: Math.min(req.table.rowCount, (k + 1) * this.o.rowsPerObject),
      };
      objects.push(part);
      this.objects.set(objectId, part);
    }
    const job: Job = {
      id,
      clientId: req.clientId,
      table: req.table,
      format: req.format,
      mode: req.mode,
      range: req.range,
      incremental: req.range.since !== undefined,
      createdAt: now,
      expiresAt: now + this.o.jobTtlSec * 1000,
      fails: this.o.shouldFail(),
      ...(this.o.recordVariant?.() ?? { hideExpiry: false, extraFields: false }),
      objects,
      dedupeKey,
    };
    this.jobs.set(id, job);
    return { job, reused: false };
  }

  /** The job, unless it does not exist or has expired. */
  get(id: string): Job | undefined {
    this.sweep();
    return this.jobs.get(id);
  }

  /** The object and its job, unless either is unknown or expired. */
  object(objectId: string): { part: ObjectPart; job: Job } | undefined {
    this.sweep();
    const part = this.objects.get(objectId);
    const job = part && this.jobs.get(part.jobId);
    return part && job ? { part, job } : undefined;
  }

  status(job: Job): JobStatus {
    const elapsed = this.o.clock.now() - job.createdAt;
    if (elapsed < this.o.jobDelayMs / 3) return 'waiting';
    if (elapsed < this.o.jobDelayMs) return 'running';
    return job.fails ? 'failed' : 'complete';
  }

  record(job: Job): JobRecord {
    const status = this.status(job);
    const rec: JobRecord = { id: job.id, status };
    if (!job.hideExpiry) rec.expires_at = isoMs(job.expiresAt);
    if (status === 'failed') {
      rec.error = {
        type: 'JobFailed',
        uuid: job.id,
        message: `The query of ${job.table.namespace}.${job.table.name} failed while reading the table; create the job again.`,
      };
    } else if (status === 'complete') {
      rec.objects = job.objects.map((o) => (job.extraFields ? { id: o.id, part: o.part, rows: o.to - o.from } : { id: o.id }));
      rec.schema_version = job.table.version;
      if (job.incremental) {
        rec.since = isoUtc(job.range.since as number);
        rec.until = isoUtc(job.range.until);
      } else {
        rec.at = isoUtc(job.range.until);
      }
    }
    if (job.extraFields) Object.assign(rec, extraFields(job, status));
    return rec;
  }

  /** Removes expired jobs and their objects. */
  sweep(): void {
    const now = this.o.clock.now();
    for (const job of this.jobs.values()) {
      if (now < job.expiresAt) continue;
      this.jobs.delete(job.id);
      for (const o of job.objects) this.objects.delete(o.id);
      this.o.onExpire(job);
    }
  }

  all(): Job[] {
    return [...this.jobs.values()];
  }
}

/** Fields a newer service might add to a job record; clients must ignore them (contract 2.4). */
function extraFields(job: Job, status: JobStatus): Record<string, unknown> {
  return {
    created_at: isoMs(job.createdAt),
    table: { namespace: job.table.namespace, name: job.table.name },
    request: { format: job.format, mode: job.mode },
    progress: status === 'complete' ? 100 : status === 'running' ? 50 : 0,
    region: 'emulator-1',
  };
}

function isoMs(ms: number): string {
  return new Date(ms).toISOString();
}


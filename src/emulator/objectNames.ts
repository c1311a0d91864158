// File names of result objects as they appear in pre-signed URLs.

import type { Job, ObjectPart } from './jobEngine';

const EXTENSIONS = { jsonl: 'json.gz', csv: 'csv.gz', tsv: 'tsv.gz', parquet: 'parquet' } as const;

export function objectFileName(job: Job, part: ObjectPart): string {
  return `part-${String(part.part).padStart(5, '0')}-${job.id.slice(0, 8)}.${EXTENSIONS[job.format]}`;
}

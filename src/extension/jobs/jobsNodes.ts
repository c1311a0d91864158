// The Jobs view's nodes: a job (by its key in the JobsModel) and its downloaded files.

export interface JobNode {
  kind: 'job';
  id: string;
  key: string;
}

export interface JobFileNode {
  kind: 'file';
  id: string;
  key: string;
  path: string;
}

export type JobsViewNode = JobNode | JobFileNode;

export function jobNode(key: string): JobNode {
  return { kind: 'job', id: `job/${key}`, key };
}

export function isJobsViewNode(value: unknown): value is JobsViewNode {
  const v = value as Partial<JobsViewNode> | undefined;
  return typeof v === 'object' && v !== null && (v.kind === 'job' || v.kind === 'file') && typeof v.key === 'string' && typeof v.id === 'string';
}

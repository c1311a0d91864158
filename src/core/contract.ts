// Shapes of the Data Query Service wire contract (see the service contract), shared by the
// client, the emulator and the extension. Every record type tolerates unknown fields.

export const FORMATS = ['jsonl', 'csv', 'tsv', 'parquet'] as const;
export type Format = (typeof FORMATS)[number];

export const MODES = ['expanded', 'condensed'] as const;
export type Mode = (typeof MODES)[number];

export type JobStatus = 'waiting' | 'running' | 'complete' | 'failed';

/** The operations the gateway rate-limits independently (method + path template). */
export const OPERATIONS = ['listTables', 'getSchema', 'createJob', 'getJob', 'createUrls'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Calls per minute per operation, as production deployments enforce them by default. */
export const DEFAULT_RATE_LIMITS: Readonly<Record<Operation, number>> = {
  listTables: 5,
  getSchema: 500,
  createJob: 5,
  getJob: 500,
  createUrls: 200,
};

export const DEFAULT_RATE_WINDOW_MS = 60_000;
export const DEFAULT_DATA_PREFIX = 'dap';

/** Method and path template of each operation, relative to `{base}/{prefix}`. */
export const OPERATION_ROUTES: Readonly<Record<Operation, { method: 'GET' | 'POST'; template: string }>> = {
  listTables: { method: 'GET', template: '/query/{namespace}/table' },
  getSchema: { method: 'GET', template: '/query/{namespace}/table/{table}/schema' },
  createJob: { method: 'POST', template: '/query/{namespace}/table/{table}/data' },
  getJob: { method: 'GET', template: '/job/{jobId}' },
  createUrls: { method: 'POST', template: '/object/url' },
};

export const TOKEN_PATH = '/ids/auth/login';

export interface TokenResponse {
  access_token: string;
  expires_in?: number;
  token_type?: string;
  scope?: string;
}

export interface ErrorLocation {
  line: number;
  column: number;
  character: number;
}

/** The inner object of `{"error": {...}}`. All fields optional: gateways vary. */
export interface ServiceErrorBody {
  type?: string;
  uuid?: string;
  message?: string;
  /** not found: the missing thing's id and kind */
  id?: string;
  kind?: 'namespace' | 'table' | 'object' | 'job' | string;
  /** validation */
  location?: ErrorLocation;
  /** out of range / snapshot required */
  since?: string;
  until?: string;
  [extra: string]: unknown;
}

export interface ErrorEnvelope {
  error: ServiceErrorBody;
}

export interface ObjectRef {
  id: string;
}

export interface JobRecord {
  id: string;
  status: JobStatus;
  expires_at?: string;
  objects?: ObjectRef[];
  schema_version?: number;
  /** snapshot: the point in time the data reflects; the next incremental's `since` */
  at?: string;
  /** incremental range */
  since?: string;
  until?: string;
  error?: ServiceErrorBody;
  [extra: string]: unknown;
}

export interface CreateJobRequest {
  format: Format;
  since?: string;
  until?: string;
  mode?: Mode;
}

export interface TableListResponse {
  tables: string[];
}

/** A JSON Schema node, loosely typed: schemas are data from the server. */
export interface JsonSchema {
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  maxLength?: number;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  $ref?: string;
  definitions?: Record<string, JsonSchema>;
  $defs?: Record<string, JsonSchema>;
  title?: string;
  additionalProperties?: boolean | JsonSchema;
  [extra: string]: unknown;
}

export interface SchemaEnvelope {
  version: number;
  schema: JsonSchema;
}

export interface UrlRequestItem {
  id: string;
}

export interface PresignedUrlResponse {
  urls: Record<string, { url: string }>;
}

/** Gzip magic bytes: result objects are recognised by content, never by name. */
export function isGzipMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

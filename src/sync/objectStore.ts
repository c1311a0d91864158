// What the data-lake target needs of an object store (S3, or any S3-compatible store): whole
// objects read and written by key, a listing by prefix, deletes, and writes that succeed only
// when the object is absent or unchanged (where the store supports them). The S3 implementation
// (s3Store.ts) is the only module that loads the AWS SDK; tests also run the target over a
// folder of files that implements the same interface.

import type { Readable } from 'node:stream';

/** An object as a listing shows it. */
export interface StoredObject {
  /** the object's key, from the bucket's root */
  key: string;
  size: number;
  lastModified: Date;
  etag?: string;
}

/** A write that holds only if the object is as the writer last saw it. */
export type WriteCondition =
  /** the object must not exist (S3's If-None-Match: *) */
  | { ifAbsent: true }
  /** the object must still have this ETag (S3's If-Match) */
  | { ifEtag: string };

export interface PutOptions {
  contentType?: string;
  condition?: WriteCondition;
  signal?: AbortSignal;
}

export interface ObjectStore {
  /** `s3://bucket` (no credentials, no signature): how objects are named to a person and in manifests */
  readonly root: string;
  /** whether conditional writes are enforced by the store (false: accepted and ignored, as some S3-compatible stores do) */
  readonly enforcesConditions: boolean;
  /** the whole object as bytes, with its ETag; undefined when it does not exist */
  getBytes(key: string, signal?: AbortSignal): Promise<{ body: Buffer; etag?: string } | undefined>;
  /** the object as a stream; fails with `notFound` when it does not exist */
  getStream(key: string, signal?: AbortSignal): Promise<Readable>;
  /**
   * writes a small object whole (state, manifest, lock); resolves `{ conflict: true }`, writing
   * nothing, when the store refuses the write's condition (412 Precondition Failed, 409)
   */
  putBytes(key: string, body: Buffer | string, options?: PutOptions): Promise<{ etag?: string; conflict?: true }>;
  /** uploads a local file, in parts when large (multipart); an aborted or failed upload leaves no object under `key` */
  uploadFile(key: string, file: string, options?: PutOptions & { onProgress?: (bytes: number) => void }): Promise<{ etag?: string; size: number }>;
  /** every object whose key starts with `prefix`, in key order */
  list(prefix: string, signal?: AbortSignal): Promise<StoredObject[]>;
  /** deletes the objects (missing ones are no error) */
  delete(keys: string[], signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

// The object store of the data-lake target on S3 or an S3-compatible store, through the AWS
// SDK for JavaScript v3. This module (with s3Credentials.ts) is the only one that loads the
// SDK (awsSdk.ts), with `require` when a store is opened, so the editor and every other sync never do.
// The endpoint: the one given (--s3-endpoint), else the SDK's own AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL, with path-style addressing for a custom one; plain http to another machine
// is refused unless allowed. Large files go up in 8 MiB (or larger) parts; a failed or
// cancelled upload is aborted, so it leaves neither an object nor a pending multipart upload.

import * as fs from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import type * as S3 from '@aws-sdk/client-s3';
import type * as Storage from '@aws-sdk/lib-storage';
import { DqError } from '../client/errors';
import { isLoopbackHost } from '../client/serviceUrls';
import type { Logger } from '../core/logger';
import type { ObjectStore, PutOptions, StoredObject, WriteCondition } from './objectStore';
import { awsChain, type AwsChain } from './s3Credentials';
import { isConditionFailure, isMissingObject, s3Error, scrubSecrets } from './s3Errors';

/** The smallest part of a multipart upload (S3 takes 5 MiB; larger parts mean fewer requests). */
export const PART_SIZE = 8 * 1024 * 1024;
/** Parts in flight at once: each is held in memory while it goes up. */
const QUEUE_SIZE = 2;
const MAX_PARTS = 10_000;
/** DeleteObjects takes at most this many keys a call. */
const DELETE_BATCH = 1000;
/** Where the store tries whether conditional writes hold, under the target's prefix. */
const PROBE_KEY = '_dq/conditional-write-probe';

export interface S3StoreOptions {
  bucket: string;
  /** the endpoint given on the command line or in a setting; else AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL of `env` */
  endpoint?: string;
  /** where AWS_* and HOME (for ~/.aws) are read */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** permit plain http:// to a host that is not this machine */
  allowInsecureHttp?: boolean;
  signal?: AbortSignal;
  /**
   * whether the store enforces If-None-Match / If-Match; when not given, a conditional write to
   * a probe object under `probePrefix` finds out (a read-only caller passes false: nothing is written)
   */
  enforcesConditions?: boolean;
  /** the key prefix under which the probe object is written ('' for the bucket's root) */
  probePrefix?: string;
}

/** The endpoint as given or from the environment, checked; undefined for AWS's own. */
export function s3Endpoint(options: Pick<S3StoreOptions, 'endpoint' | 'env' | 'allowInsecureHttp'>): URL | undefined {
  const given = options.endpoint?.trim() || options.env.AWS_ENDPOINT_URL_S3?.trim() || options.env.AWS_ENDPOINT_URL?.trim() || undefined;
  if (given === undefined) return undefined;
  const source = options.endpoint?.trim() ? '--s3-endpoint' : options.env.AWS_ENDPOINT_URL_S3?.trim() ? 'AWS_ENDPOINT_URL_S3' : 'AWS_ENDPOINT_URL';
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new DqError('usage', `The S3 endpoint in ${source} is not a URL.`, { hint: 'Write it as https://host[:port], e.g. https://s3.eu-central-1.amazonaws.com or http://127.0.0.1:9000.' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new DqError('usage', `The S3 endpoint in ${source} must start with https:// or http://.`, { hint: 'Write it as https://host[:port].' });
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new DqError('usage', `The S3 endpoint in ${source} holds credentials, a query or a fragment.`, {
      hint: 'Write it as https://host[:port]; the credentials come from the AWS credential chain (AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY).',
    });
  }
  if (url.protocol === 'http:' && !options.allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new DqError('insecure', `Refusing plain http to the S3 endpoint ${url.host}: the data would travel unencrypted.`, {
      hint: 'Use https://, or pass --allow-insecure-http (or set DQ_ALLOW_INSECURE_HTTP=1) if you trust the network.',
    });
  }
  return url;
}

/** The endpoint as messages show it. */
function endpointLabel(url: URL | undefined, region: string): string {
  return url ? `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}` : `AWS S3 (${region})`;
}

/** Runs `make` with the SDK's warning that a later release needs a newer Node kept off the user's stderr. */
function withoutSdkNodeWarning<T>(make: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/NodeVersionSupportWarning/.test(text)) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return make();
  } finally {
    process.emitWarning = emit;
  }
}

function conditionParams(condition: WriteCondition | undefined): { IfNoneMatch?: string; IfMatch?: string } {
  if (!condition) return {};
  return 'ifAbsent' in condition ? { IfNoneMatch: '*' } : { IfMatch: condition.ifEtag };
}

/** Opens the store: checks the endpoint, reads the credential chain, and finds out whether conditional writes hold. */
export async function openS3Store(options: S3StoreOptions): Promise<ObjectStore> {
  const endpoint = s3Endpoint(options);
  const chain = await awsChain(options.env);
  const { S3: sdk, Storage: storage } = require('./awsSdk') as typeof import('./awsSdk');
  const store = new S3Store(sdk, storage, options, endpoint, chain);
  if (options.enforcesConditions !== undefined) {
    store.enforcesConditions = options.enforcesConditions;
  } else {
    try {
      store.enforcesConditions = await store.probeConditions(options.probePrefix ?? '', options.signal);
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  options.logger.debug(`object store ${store.root} at ${store.endpointText}: conditional writes ${store.enforcesConditions ? 'enforced' : 'not enforced'}`);
  return store;
}

class S3Store implements ObjectStore {
  readonly root: string;
  enforcesConditions = false;
  readonly endpointText: string;
  private readonly client: S3.S3Client;
  /** CompleteMultipartUpload calls under way, by upload id (a cancelled upload waits for its completion to undo it) */
  private readonly completions = new Map<string, Promise<unknown>>();

  constructor(
    private readonly sdk: typeof S3,
    private readonly storage: typeof Storage,
    private readonly options: S3StoreOptions,
    endpoint: URL | undefined,
    private readonly chain: AwsChain,
  ) {
    this.root = `s3://${options.bucket}`;
    this.endpointText = endpointLabel(endpoint, chain.region);
    this.client = withoutSdkNodeWarning(
      () =>
        new sdk.S3Client({
          region: chain.region,
          credentials: chain.credentials,
          ...(endpoint ? { endpoint: endpoint.toString().replace(/\/$/, ''), forcePathStyle: true } : {}),
          // checksums only where S3 demands them: many S3-compatible stores refuse the streamed (aws-chunked) kind
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
          maxAttempts: 3,
          requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
          logger: { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: (...m: unknown[]) => this.log(m), error: (...m: unknown[]) => this.log(m) },
        }),
    );
    this.client.middlewareStack.add(
      (next, context) => (args) => {
        const result = next(args);
        const input = args.input as { UploadId?: string };
        if (context.commandName === 'CompleteMultipartUploadCommand' && input.UploadId) this.completions.set(input.UploadId, result.catch(() => undefined));
        return result;
      },
      { step: 'initialize', name: 'dqTrackCompletions' },
    );
  }

  private log(parts: unknown[]): void {
    this.options.logger.debug(`S3 SDK: ${scrubSecrets(parts.map(String).join(' '), this.chain.secrets())}`);
  }

  private fail(err: unknown, doing: string, key: string | undefined, signal?: AbortSignal): DqError {
    return s3Error(err, { bucket: this.options.bucket, key, doing, chain: this.chain.described, endpoint: this.endpointText, secrets: this.chain.secrets() }, signal);
  }

  async probeConditions(prefix: string, signal?: AbortSignal): Promise<boolean> {
    const key = prefix ? `${prefix}/${PROBE_KEY}` : PROBE_KEY;
    await this.putBytes(key, 'probe', { signal });
    const second = await this.putBytes(key, 'probe', { signal, condition: { ifAbsent: true } });
    await this.delete([key], signal);
    return second.conflict === true;
  }

  async getBytes(key: string, signal?: AbortSignal): Promise<{ body: Buffer; etag?: string } | undefined> {
    try {
      const answer = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: key }), { abortSignal: signal });
      const bytes = await answer.Body!.transformToByteArray();
      return { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), etag: answer.ETag };
    } catch (err) {
      if (isMissingObject(err)) return undefined;
      throw this.fail(err, 'reading', key, signal);
    }
  }

  async getStream(key: string, signal?: AbortSignal): Promise<Readable> {
    try {
      const answer = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: key }), { abortSignal: signal });
      // a connection lost midway is said as any other failure of the store (kind, hint, no secret)
      const body = answer.Body as Readable;
      const out = new PassThrough();
      body.on('error', (err) => out.destroy(this.fail(err, 'reading', key, signal)));
      out.on('close', () => body.destroy());
      return body.pipe(out);
    } catch (err) {
      if (isMissingObject(err)) {
        throw new DqError('notFound', `The object s3://${this.options.bucket}/${key} does not exist.`, { hint: 'It may have been deleted by hand or by another sync; run the sync again.' });
      }
      throw this.fail(err, 'reading', key, signal);
    }
  }

  async putBytes(key: string, body: Buffer | string, options: PutOptions = {}): Promise<{ etag?: string; conflict?: true }> {
    try {
      const answer = await this.client.send(
        new this.sdk.PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: typeof body === 'string' ? Buffer.from(body) : body, ContentType: options.contentType, ...conditionParams(options.condition) }),
        { abortSignal: options.signal },
      );
      return { etag: answer.ETag };
    } catch (err) {
      if (options.condition && isConditionFailure(err)) return { conflict: true };
      throw this.fail(err, 'writing', key, options.signal);
    }
  }

  async uploadFile(key: string, file: string, options: PutOptions & { onProgress?: (bytes: number) => void } = {}): Promise<{ etag?: string; size: number }> {
    let size: number;
    try {
      size = (await fs.promises.stat(file)).size;
    } catch (err) {
      throw this.fail(err, 'uploading', key);
    }
    if (size < PART_SIZE) {
      let body: Buffer;
      try {
        body = await fs.promises.readFile(file);
      } catch (err) {
        throw this.fail(err, 'uploading', key);
      }
      try {
        const put = await this.putBytes(key, body, options);
        if (put.conflict) throw new DqError('server', `The object s3://${this.options.bucket}/${key} changed while it was written.`, { hint: 'Another sync may be writing this table; run again.' });
        options.onProgress?.(size);
        return { etag: put.etag, size };
      } catch (err) {
        // a write cut off after its body was sent may still have landed
        if (options.signal?.aborted && !options.condition) await this.deleteQuietly(key);
        throw err;
      }
    }
    return this.uploadParts(key, file, size, options);
  }

  private async uploadParts(key: string, file: string, size: number, options: PutOptions & { onProgress?: (bytes: number) => void }): Promise<{ etag?: string; size: number }> {
    const partSize = Math.max(PART_SIZE, Math.ceil(size / MAX_PARTS));
    let readError: unknown;
    const body = fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
    body.on('error', (err) => (readError = err));
    const upload = new this.storage.Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: key, Body: body, ContentType: options.contentType, ContentLength: size, ...conditionParams(options.condition) },
      partSize,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    if (options.onProgress) upload.on('httpUploadProgress', (p) => p.loaded !== undefined && options.onProgress?.(p.loaded));
    const onAbort = (): void => void upload.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (options.signal?.aborted) onAbort();
      const answer = await upload.done();
      return { etag: answer.ETag, size };
    } catch (err) {
      body.destroy();
      await this.undoUpload(key, (upload as unknown as { uploadId?: string }).uploadId);
      if (options.condition && isConditionFailure(err)) {
        throw new DqError('server', `The object s3://${this.options.bucket}/${key} was written by someone else meanwhile.`, { hint: 'Another sync may be writing this table; run again.' });
      }
      throw this.fail(readError ?? err, 'uploading', key, options.signal);
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** After a failed or cancelled multipart upload: no pending upload, and no object if its completion went through. */
  private async undoUpload(key: string, uploadId: string | undefined): Promise<void> {
    if (!uploadId) return;
    const completing = this.completions.get(uploadId);
    if (completing) {
      const done = (await completing) as { ETag?: string } | undefined;
      this.completions.delete(uploadId);
      if (done?.ETag) await this.deleteQuietly(key);
    }
    try {
      await this.client.send(new this.sdk.AbortMultipartUploadCommand({ Bucket: this.options.bucket, Key: key, UploadId: uploadId }));
    } catch (err) {
      const code = (err as { name?: string }).name;
      if (code !== 'NoSuchUpload') this.options.logger.warn(`could not abort the multipart upload of s3://${this.options.bucket}/${key}: ${this.fail(err, 'aborting', key).message}`);
    }
  }

  private async deleteQuietly(key: string): Promise<void> {
    try {
      await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
    } catch (err) {
      this.options.logger.warn(`could not remove s3://${this.options.bucket}/${key} after a cancelled upload: ${this.fail(err, 'deleting', key).message}`);
    }
  }

  async list(prefix: string, signal?: AbortSignal): Promise<StoredObject[]> {
    const objects: StoredObject[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(new this.sdk.ListObjectsV2Command({ Bucket: this.options.bucket, Prefix: prefix, ContinuationToken: token }), { abortSignal: signal });
        for (const o of page.Contents ?? []) {
          if (o.Key === undefined) continue;
          objects.push({ key: o.Key, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0), etag: o.ETag });
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    } catch (err) {
      throw this.fail(err, 'listing', prefix, signal);
    }
    return objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async delete(keys: string[], signal?: AbortSignal): Promise<void> {
    for (let at = 0; at < keys.length; at += DELETE_BATCH) {
      const batch = keys.slice(at, at + DELETE_BATCH);
      let errors: S3.DeleteObjectsCommandOutput['Errors'];
      try {
        const answer = await this.client.send(new this.sdk.DeleteObjectsCommand({ Bucket: this.options.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }), { abortSignal: signal });
        errors = answer.Errors;
      } catch (err) {
        throw this.fail(err, 'deleting', batch[0], signal);
      }
      const failed = (errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length > 0) {
        const first = failed[0];
        throw this.fail(Object.assign(new Error(first.Code ?? 'delete failed'), { name: first.Code ?? 'Error', Code: first.Code, $metadata: { httpStatusCode: first.Code === 'AccessDenied' ? 403 : undefined } }), `deleting ${failed.length} objects, among them`, first.Key, signal);
      }
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

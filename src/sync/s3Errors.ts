// Every failure of the AWS SDK as a DqError with a kind and a hint a person acts on. The
// messages are this module's own words: an SDK message may quote a signature, a string to sign
// or a pre-signed query, so none is repeated, and the cause kept is a copy with the secrets of
// the credential chain masked.

import { DqError, cancelledError } from '../client/errors';
import { redact } from '../core/logger';

export interface S3ErrorContext {
  bucket: string;
  /** the object or prefix the call was about */
  key?: string;
  /** what was being done, for the message: `writing`, `listing`, `deleting` */
  doing: string;
  /** where the credentials were looked for, for the hint: `the environment (AWS_ACCESS_KEY_ID)` */
  chain: string;
  /** the endpoint (without credentials), for network messages */
  endpoint: string;
  /** values never to show: the secret key, the session token, the access key id */
  secrets: readonly string[];
}

interface SdkErrorShape {
  name?: string;
  code?: string;
  Code?: string;
  message?: string;
  syscall?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { statusCode?: number };
  cause?: unknown;
}

const AUTH_CODES = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'TokenRefreshRequired',
  'InvalidToken',
  'InvalidClientTokenId',
  'AllAccessDisabled',
  'AccountProblem',
  'CredentialsProviderError',
  'RequestTimeTooSkewed',
]);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'UND_ERR_SOCKET']);
const NETWORK_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'NetworkingError']);
const IO_CODES = new Set(['ENOENT', 'EACCES', 'EISDIR', 'EMFILE', 'EIO', 'EPERM', 'ENOSPC']);

function codeOf(err: SdkErrorShape): string {
  return err.Code ?? (typeof err.code === 'string' ? err.code : undefined) ?? err.name ?? '';
}

function statusOf(err: SdkErrorShape): number | undefined {
  return err.$metadata?.httpStatusCode ?? err.$response?.statusCode;
}

/** A code anywhere in the chain of causes (the SDK wraps a socket's failure). */
function causeCodes(err: unknown): string[] {
  const codes: string[] = [];
  let at: unknown = err;
  for (let depth = 0; depth < 5 && at && typeof at === 'object'; depth++) {
    const e = at as SdkErrorShape;
    if (typeof e.code === 'string') codes.push(e.code);
    if (e.name) codes.push(e.name);
    at = e.cause;
  }
  return codes;
}

/** Text with the given secrets and every signature or credential parameter masked. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
  out = out.replace(/(X-Amz-(?:Signature|Credential|Security-Token)=)[^&\s"'<>]+/gi, '$1***');
  out = out.replace(/(Signature=)[0-9a-f]{16,}/gi, '$1***').replace(/(Credential=)[^,\s]+/gi, '$1***');
  return redact(out);
}

/** The cause as kept: name, code and a scrubbed message, no response, request or headers. */
function scrubbedCause(err: unknown, secrets: readonly string[]): Error {
  const e = (err ?? {}) as SdkErrorShape;
  const copy = new Error(scrubSecrets(String(e.message ?? err), secrets));
  copy.name = e.name ?? 'Error';
  const code = codeOf(e);
  if (code) Object.assign(copy, { code });
  return copy;
}

function where(ctx: S3ErrorContext): string {
  return ctx.key === undefined ? `s3://${ctx.bucket}` : `s3://${ctx.bucket}/${ctx.key}`;
}

/** Whether the error is the SDK's answer that a write's condition did not hold (412, or 409 for a concurrent conditional write). */
export function isConditionFailure(err: unknown): boolean {
  const e = (err ?? {}) as SdkErrorShape;
  const code = codeOf(e);
  const status = statusOf(e);
  return code === 'PreconditionFailed' || code === 'ConditionalRequestConflict' || status === 412 || (status === 409 && code !== 'BucketAlreadyExists');
}

/** Whether the error says the object is not there. */
export function isMissingObject(err: unknown): boolean {
  const e = (err ?? {}) as SdkErrorShape;
  const code = codeOf(e);
  return code === 'NoSuchKey' || code === 'NotFound' || (statusOf(e) === 404 && code !== 'NoSuchBucket');
}

/** Any failure of an S3 call as a DqError (a DqError passes through). */
export function s3Error(err: unknown, ctx: S3ErrorContext, signal?: AbortSignal): DqError {
  if (err instanceof DqError) return err;
  const e = (err ?? {}) as SdkErrorShape;
  const code = codeOf(e);
  const status = statusOf(e);
  const cause = scrubbedCause(err, ctx.secrets);
  const init = { status, type: code || undefined, cause };
  if (signal?.aborted || code === 'AbortError' || e.name === 'AbortError') {
    return cancelledError(`${capital(ctx.doing)} ${where(ctx)}`, { after: '.', cause });
  }
  if (code === 'NoSuchBucket') {
    return new DqError('notFound', `The bucket "${ctx.bucket}" does not exist at ${ctx.endpoint}.`, {
      ...init,
      hint: 'Check the bucket name in the target (s3://bucket/prefix) and the endpoint (--s3-endpoint, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL); the bucket must be made before the first sync.',
    });
  }
  if (code === 'CredentialsProviderError' || /could not load credentials/i.test(String(e.message ?? ''))) {
    return new DqError('auth', `No AWS credentials were found for s3://${ctx.bucket} (looked in ${ctx.chain}).`, {
      ...init,
      hint: 'Set AWS_PROFILE to a profile of ~/.aws/credentials or ~/.aws/config, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    });
  }
  if (AUTH_CODES.has(code) || status === 401 || status === 403) {
    return new DqError('auth', `${authReason(code)} while ${ctx.doing} ${where(ctx)} (credentials from ${ctx.chain}).`, { ...init, hint: authHint(code) });
  }
  const codes = causeCodes(err);
  const local = codes.find((c) => IO_CODES.has(c));
  if (local && e.syscall !== 'connect') {
    return new DqError('io', `A local file could not be read while ${ctx.doing} ${where(ctx)} (${local}).`, { ...init, hint: 'Check that the sync\'s work folder exists, is readable and has free space.' });
  }
  if (codes.some((c) => NETWORK_CODES.has(c) || NETWORK_NAMES.has(c)) || (status === undefined && /socket|network|timed? ?out|ECONN/i.test(String(e.message ?? '')))) {
    return new DqError('network', `The object store at ${ctx.endpoint} could not be reached or dropped the connection while ${ctx.doing} ${where(ctx)}.`, {
      ...init,
      hint: 'Check the network and the endpoint (--s3-endpoint, AWS_ENDPOINT_URL_S3); the next run resumes from the last complete state.',
    });
  }
  if (status !== undefined && status >= 500) {
    return new DqError('server', `The object store answered HTTP ${status}${code ? ` ${code}` : ''} while ${ctx.doing} ${where(ctx)}.`, {
      ...init,
      hint: 'The store had a problem of its own; try again later. The next run resumes from the last complete state.',
    });
  }
  return new DqError('server', `The object store refused ${ctx.doing} ${where(ctx)}${code ? ` (${code}${status ? `, HTTP ${status}` : ''})` : status ? ` (HTTP ${status})` : ''}.`, {
    ...init,
    hint: 'Check the bucket\'s settings and policies; run with DQ_DEBUG=1 for details.',
  });
}

function authReason(code: string): string {
  switch (code) {
    case 'InvalidAccessKeyId':
    case 'InvalidClientTokenId':
      return 'The store does not know the access key id';
    case 'SignatureDoesNotMatch':
      return 'The store rejected the request signature (the secret access key does not match the key id)';
    case 'ExpiredToken':
    case 'TokenRefreshRequired':
    case 'InvalidToken':
      return 'The session token has expired or is not valid';
    case 'RequestTimeTooSkewed':
      return "The store refused the request because this machine's clock is too far off";
    default:
      return 'Access was denied';
  }
}

function authHint(code: string): string {
  switch (code) {
    case 'InvalidAccessKeyId':
    case 'InvalidClientTokenId':
    case 'SignatureDoesNotMatch':
      return 'Check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the profile AWS_PROFILE names, and that they belong to this endpoint.';
    case 'ExpiredToken':
    case 'TokenRefreshRequired':
    case 'InvalidToken':
      return 'Get fresh credentials (aws sso login, or a new AWS_SESSION_TOKEN) and run again.';
    case 'RequestTimeTooSkewed':
      return "Set this machine's clock right (NTP) and run again.";
    default:
      return 'The credentials need s3:GetObject, s3:PutObject, s3:DeleteObject and s3:ListBucket on the bucket and prefix; check the bucket policy and the IAM policy of the profile or key in use.';
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// The data-lake target's URL, `s3://bucket/prefix`: the bucket checked against S3's naming
// rules, the prefix without leading or trailing slashes. Credentials, a query or a fragment are
// refused (they belong in the AWS credential chain, never in a URL that is shown and logged).
// Pure: the editor's setting reads it without loading the AWS SDK.

import { specError } from './targetSpecError';

/** Any text that starts like an S3 URL is taken for one, so a mistyped URL never becomes a file name. */
export const S3_SCHEME = /^s3:/i;
export const S3_FORM = 's3://bucket/prefix';

export interface S3Url {
  bucket: string;
  /** the key prefix under which the tables go, without leading or trailing slash ('' for the bucket's root) */
  prefix: string;
  /** `s3://bucket/prefix` as normalised (also the label: it holds nothing secret) */
  url: string;
  label: string;
}

/** Characters a prefix may hold: letters, digits and the few that need no escaping in any reader's URL or path. */
const PREFIX_CHARS = /^[A-Za-z0-9!\-_.*'()=+,/]*$/;

/** Why a bucket name is not one S3 takes, or undefined when it is. */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return 'is not 3 to 63 characters long';
  if (/[A-Z]/.test(name)) return 'has upper-case letters (bucket names are lower case)';
  if (!/^[a-z0-9.-]+$/.test(name)) return 'may hold only lower-case letters, digits, dots and hyphens';
  if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name)) return 'must begin and end with a letter or a digit';
  if (name.includes('..')) return 'has two dots in a row';
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return 'is written like an IP address';
  if (/^(xn--|sthree-|amzn-s3-demo-)/.test(name) || /(-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/.test(name)) {
    return 'begins or ends with a part S3 keeps for itself';
  }
  return undefined;
}

/** An `s3://bucket/prefix` URL read for the lake target, or a usage error that never repeats a credential. */
export function readS3Url(text: string): S3Url {
  const given = text.trim();
  if (!S3_SCHEME.test(given) || !given.slice(3).startsWith('//')) {
    throw specError('invalidUrl', 'An object-store target must start with s3:// (two slashes) followed by the bucket.', `Write it as ${S3_FORM}.`);
  }
  const rest = given.slice(5);
  if (/[?#]/.test(rest)) {
    throw specError('invalidUrl', 'The object-store target has a query or a fragment, which it does not read.', `Write it as ${S3_FORM}; the endpoint goes in --s3-endpoint (or AWS_ENDPOINT_URL_S3), the credentials in the AWS credential chain.`);
  }
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (bucket.includes('@') || bucket.includes(':')) {
    throw specError(
      'invalidUrl',
      'The object-store target holds credentials or a port, which an s3:// URL cannot carry.',
      `Write it as ${S3_FORM}; give the credentials through the AWS credential chain (AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) and a custom endpoint with --s3-endpoint.`,
    );
  }
  if (bucket === '') throw specError('noServer', 'The object-store target names no bucket.', `Write it as ${S3_FORM}.`);
  const problem = bucketNameProblem(bucket);
  if (problem) throw specError('invalidUrl', `The bucket name "${bucket}" ${problem}.`, 'Bucket names are 3 to 63 lower-case letters, digits, dots and hyphens.');
  const rawPrefix = slash < 0 ? '' : rest.slice(slash + 1);
  const prefix = rawPrefix.replace(/^\/+|\/+$/g, '');
  if (!PREFIX_CHARS.test(prefix)) {
    throw specError('invalidUrl', `The prefix of s3://${bucket}/ holds characters that Athena, Trino or Spark may not read in a location.`, "Use letters, digits and - _ . = + , ! * ' ( ) in the prefix, with / between its parts.");
  }
  if (prefix !== '' && prefix.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw specError('invalidUrl', `The prefix "${prefix}" of s3://${bucket}/ has an empty, "." or ".." part.`, `Write it as ${S3_FORM}, with one / between the prefix's parts.`);
  }
  const url = prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${prefix}`;
  return { bucket, prefix, url, label: url };
}

// The parts of the AWS SDK an s3:// sync target uses, in one module. The bundles keep it in a
// file of its own (dist/awsSdk.js, see esbuild.js), read only when a store is opened: inside
// dist/cli.js its 1.8 MB were parsed by every dq run before dq could begin.

export * as S3 from '@aws-sdk/client-s3';
export * as Storage from '@aws-sdk/lib-storage';
export { fromIni } from '@aws-sdk/credential-provider-ini';
export { fromContainerMetadata, fromInstanceMetadata } from '@smithy/credential-provider-imds';
export { loadSharedConfigFiles } from '@smithy/core/config';

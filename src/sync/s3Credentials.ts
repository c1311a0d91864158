// Where an S3 store's region and credentials come from: the standard AWS chain, read from the
// environment the caller gives (so tests and the sync's child process pass their own): the
// environment's keys, then the profile (AWS_PROFILE, else `default`) of the shared credentials
// and config files (static keys, SSO, credential_process, assumed roles), then a container's or
// an instance's metadata service. Loaded only with s3Store.ts, never by the editor's start.

import * as os from 'node:os';
import * as path from 'node:path';
import { DqError } from '../client/errors';
import { METADATA_SERVICE_RETRIES } from '../client/retryPolicy';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export interface AwsChain {
  region: string;
  /** the SDK's credential provider */
  credentials: () => Promise<AwsCredentials>;
  /** where the chain looks, for messages: `the environment (AWS_ACCESS_KEY_ID), the profile "default" of ~/.aws/credentials and ~/.aws/config` */
  described: string;
  /** values never to show in any message */
  secrets: () => string[];
}

const DEFAULT_REGION = 'us-east-1';

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || os.homedir();
}

function credentialsFile(env: NodeJS.ProcessEnv): string {
  return env.AWS_SHARED_CREDENTIALS_FILE || path.join(homeOf(env), '.aws', 'credentials');
}

function configFile(env: NodeJS.ProcessEnv): string {
  return env.AWS_CONFIG_FILE || path.join(homeOf(env), '.aws', 'config');
}

function profileOf(env: NodeJS.ProcessEnv): string {
  return env.AWS_PROFILE || env.AWS_DEFAULT_PROFILE || 'default';
}

/** The region: AWS_REGION, AWS_DEFAULT_REGION, the profile's `region`, else us-east-1 (a custom endpoint rarely cares). */
async function regionOf(env: NodeJS.ProcessEnv): Promise<string> {
  const given = env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (given) return given;
  try {
    const { loadSharedConfigFiles } = require('./awsSdk') as {
      loadSharedConfigFiles(init: { filepath: string; configFilepath: string }): Promise<{ configFile: Record<string, Record<string, string>> }>;
    };
    const files = await loadSharedConfigFiles({ filepath: credentialsFile(env), configFilepath: configFile(env) });
    const profile = profileOf(env);
    return files.configFile[profile]?.region || DEFAULT_REGION;
  } catch {
    return DEFAULT_REGION;
  }
}

type Provider = () => Promise<AwsCredentials>;

/** The chain for `env`: its keys, its profile's files, then the metadata services. */
export async function awsChain(env: NodeJS.ProcessEnv): Promise<AwsChain> {
  const region = await regionOf(env);
  const profile = profileOf(env);
  const shown = (file: string): string => file.replace(homeOf(env), '~');
  const places: string[] = [];
  const steps: Provider[] = [];
  const found: AwsCredentials[] = [];
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    const keys: AwsCredentials = { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN || undefined };
    steps.push(async () => keys);
    places.push('the environment (AWS_ACCESS_KEY_ID)');
  } else {
    places.push('the environment (AWS_ACCESS_KEY_ID unset)');
    const { fromIni } = require('./awsSdk') as {
      fromIni(init: { profile: string; filepath: string; configFilepath: string; ignoreCache: boolean }): Provider;
    };
    steps.push(fromIni({ profile, filepath: credentialsFile(env), configFilepath: configFile(env), ignoreCache: true }));
    places.push(`the profile "${profile}" of ${shown(credentialsFile(env))} and ${shown(configFile(env))}`);
    const imds = require('./awsSdk') as {
      fromContainerMetadata(init: { timeout: number; maxRetries: number }): Provider;
      fromInstanceMetadata(init: { timeout: number; maxRetries: number }): Provider;
    };
    if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI) {
      steps.push(imds.fromContainerMetadata({ ...METADATA_SERVICE_RETRIES.container }));
      places.push("the container's credentials");
    } else if (env.AWS_EC2_METADATA_DISABLED !== 'true') {
      steps.push(imds.fromInstanceMetadata({ ...METADATA_SERVICE_RETRIES.instance }));
      places.push("the instance's metadata");
    }
  }
  const described = places.join(', ');
  let cached: AwsCredentials | undefined;
  const credentials = async (): Promise<AwsCredentials> => {
    if (cached && (!cached.expiration || cached.expiration.getTime() - Date.now() > 5 * 60_000)) return cached;
    for (const step of steps) {
      try {
        cached = await step();
        found.push(cached);
        return cached;
      } catch {
        // the next place of the chain
      }
    }
    throw new DqError('auth', `No AWS credentials were found (looked in ${described}).`, {
      type: 'CredentialsProviderError',
      hint: 'Set AWS_PROFILE to a profile of ~/.aws/credentials or ~/.aws/config, or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    });
  };
  const secrets = (): string[] => {
    const values = [env.AWS_SECRET_ACCESS_KEY, env.AWS_SESSION_TOKEN, env.AWS_ACCESS_KEY_ID];
    for (const c of found) values.push(c.secretAccessKey, c.sessionToken, c.accessKeyId);
    return values.filter((v): v is string => typeof v === 'string' && v.length > 0);
  };
  return { region, credentials, described, secrets };
}

/**
 * The platform's own provider credentials and endpoints: `<NAME>_API_KEY` and `<NAME>_BASE_URL`
 * per provider, AWS for Bedrock, a service account for Vertex. Part of Settings (settings.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SettingsError } from './settings-error.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); region BEDROCK_REGION, else
 * AWS_REGION, else AWS_DEFAULT_REGION (else the provider's default, us-east-1).
 */
export interface PlatformAwsSettings {
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /**
   * STS endpoint of testProviderCredential's Bedrock probe (BEDROCK_STS_URL, `{region}` filled in
   * with the Connection's region); default `https://sts.{region}.amazonaws.com/`. For a VPC
   * endpoint or a test fake.
   */
  stsUrl?: string;
}

/**
 * VERTEX_SERVICE_ACCOUNT_JSON (the key file's JSON, or its path) or VERTEX_SERVICE_ACCOUNT_FILE (its
 * path), read once at start; VERTEX_PROJECT (else the key's project_id) and VERTEX_REGION (else us-central1).
 * An API key for express mode is VERTEX_API_KEY, like every provider's.
 */
export interface PlatformVertexSettings {
  serviceAccountJson?: string;
  project?: string;
  region?: string;
}

/** Collects `<NAME>_API_KEY` and `<NAME>_BASE_URL` for every provider name the registry asks about. */
export function readProviderEnv(
  env: Env,
  names: readonly string[],
): Record<string, { apiKey?: string; baseUrl?: string }> {
  const result: Record<string, { apiKey?: string; baseUrl?: string }> = {};
  for (const name of names) {
    const prefix = name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
    const apiKey = env[`${prefix}_API_KEY`]?.trim() || undefined;
    const baseUrl = env[`${prefix}_BASE_URL`]?.trim().replace(/\/+$/, '') || undefined;
    if (baseUrl !== undefined) {
      try {
        new URL(baseUrl);
      } catch {
        throw new SettingsError(`${prefix}_BASE_URL is not a URL: '${baseUrl}'`);
      }
    }
    result[name] = { ...(apiKey ? { apiKey } : {}), ...(baseUrl ? { baseUrl } : {}) };
  }
  return result;
}

export function readPlatformVertex(env: Env, cwd: string): PlatformVertexSettings {
  const value = (name: string) => env[name]?.trim() || undefined;
  let serviceAccountJson = value('VERTEX_SERVICE_ACCOUNT_JSON');
  let file = value('VERTEX_SERVICE_ACCOUNT_FILE');
  if (serviceAccountJson !== undefined && file !== undefined)
    throw new SettingsError('set VERTEX_SERVICE_ACCOUNT_JSON or VERTEX_SERVICE_ACCOUNT_FILE, not both');
  // A path given where the JSON was expected is read as the key file.
  if (serviceAccountJson !== undefined && !serviceAccountJson.startsWith('{')) {
    file = serviceAccountJson;
    serviceAccountJson = undefined;
  }
  if (file !== undefined) {
    try {
      serviceAccountJson = readFileSync(resolve(cwd, file), 'utf8');
    } catch (error) {
      throw new SettingsError(`VERTEX_SERVICE_ACCOUNT_FILE cannot be read: ${(error as Error).message}`);
    }
  }
  const project = value('VERTEX_PROJECT');
  if (serviceAccountJson !== undefined) {
    let key: Record<string, unknown>;
    try {
      key = JSON.parse(serviceAccountJson) as Record<string, unknown>;
    } catch {
      throw new SettingsError('the Vertex service-account key is not JSON');
    }
    if (typeof key.client_email !== 'string' || typeof key.private_key !== 'string')
      throw new SettingsError('the Vertex service-account key lacks client_email or private_key');
    if (project === undefined && typeof key.project_id !== 'string')
      throw new SettingsError('VERTEX_PROJECT must be set: the service-account key names no project_id');
  }
  const region = value('VERTEX_REGION');
  if (region !== undefined && !/^[a-z0-9-]{1,63}$/.test(region))
    throw new SettingsError(`VERTEX_REGION must be a location like us-central1, got '${region}'`);
  return Object.freeze({
    ...(serviceAccountJson === undefined ? {} : { serviceAccountJson }),
    ...(project === undefined ? {} : { project }),
    ...(region === undefined ? {} : { region }),
  });
}

/** Providers a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK, AWS's own variable) serves when `<NAME>_API_KEY` is unset. */
const BEDROCK_KEY_PROVIDERS = ['bedrock', 'bedrock-mantle'];

export function readPlatformAws(env: Env): PlatformAwsSettings {
  const value = (name: string) => env[name]?.trim() || undefined;
  const region = value('BEDROCK_REGION') ?? value('AWS_REGION') ?? value('AWS_DEFAULT_REGION');
  if (region !== undefined && !/^[a-z0-9-]{1,63}$/.test(region))
    throw new SettingsError(`the AWS region must be a region name like us-east-1, got '${region}'`);
  const accessKeyId = value('AWS_ACCESS_KEY_ID');
  const secretAccessKey = value('AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    throw new SettingsError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  const sessionToken = value('AWS_SESSION_TOKEN');
  const stsUrl = value('BEDROCK_STS_URL');
  if (stsUrl !== undefined && !URL.canParse(stsUrl.replaceAll('{region}', 'us-east-1')))
    throw new SettingsError(`BEDROCK_STS_URL is not a URL: '${stsUrl}'`);
  return Object.freeze({
    ...(stsUrl === undefined ? {} : { stsUrl }),
    ...(region === undefined ? {} : { region }),
    ...(accessKeyId === undefined ? {} : { accessKeyId }),
    ...(secretAccessKey === undefined ? {} : { secretAccessKey }),
    ...(sessionToken === undefined || accessKeyId === undefined ? {} : { sessionToken }),
  });
}

/** AWS_BEARER_TOKEN_BEDROCK stands in for `<NAME>_API_KEY` of the Bedrock providers. */
export function withBedrockApiKey(
  env: Env,
  providerEnv: Record<string, { apiKey?: string; baseUrl?: string }>,
): Record<string, { apiKey?: string; baseUrl?: string }> {
  const apiKey = env.AWS_BEARER_TOKEN_BEDROCK?.trim();
  if (!apiKey) return providerEnv;
  for (const name of BEDROCK_KEY_PROVIDERS) {
    const entry = providerEnv[name];
    if (entry !== undefined && entry.apiKey === undefined) providerEnv[name] = { ...entry, apiKey };
  }
  return providerEnv;
}

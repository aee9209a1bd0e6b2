/**
 * Environment -> typed, frozen settings, read once at start (STYLE rule 6). Nothing else in the
 * code base reads process.env.
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_MAX_CACHE_BYTES } from '../stores/memory-cache.ts';
import { type EnsureSecretsSettings, readEnsureSecretsSettings } from './ensure-secrets-settings.ts';
import { type RedisSettings, readRedisSettings } from './redis-settings.ts';
import { readSemanticCacheSettings, type SemanticCacheSettings } from './semcache-settings.ts';
import { readTenancySettings, type TenancySettings } from './tenancy-settings.ts';
import { readTenantRoleBindings, type TenantRoleBinding } from './tenant-role-bindings.ts';

export interface ProviderEndpointSettings {
  /** Upstream base URL, without a trailing slash. */
  baseUrl: string;
  /** The platform's credential for this provider; undefined means "not configured" (502). */
  apiKey: string | undefined;
}

export interface UpstreamTimeouts {
  connectMs: number;
  /** Time to the upstream's response headers (includes the model's time to first token). */
  headersMs: number;
  /** Longest silence between two body chunks. */
  bodyMs: number;
}

/** A model's price in USD per million tokens (BILLING_PRICES_FILE entries, BILLING_FALLBACK_PRICE). */
export interface PriceSetting {
  input: number;
  output: number;
  /** Prompt-cache reads; half the input price when absent. */
  cachedInput?: number;
  /** Prompt-cache writes; the input price when absent. */
  cacheWrite?: number;
}

/** The operator role's settings (OPERATOR_* variables). */
export interface OperatorSettings {
  /** Namespace of the leader-election Lease (OPERATOR_NAMESPACE, else POD_NAMESPACE; else the in-cluster namespace). */
  namespace: string | undefined;
  /** Name of the Lease (OPERATOR_LEASE_NAME). */
  leaseName: string;
  /** This replica's identity in the Lease (OPERATOR_IDENTITY, else POD_NAME; else hostname + random). */
  identity: string | undefined;
  /** Full rebuild and requeue interval (OPERATOR_RESYNC_SECONDS). */
  resyncSeconds: number;
  /** How often the leader checks the config store's epoch marker (OPERATOR_EPOCH_CHECK_SECONDS). */
  epochCheckSeconds: number;
  /** Port of /healthz and /readyz (OPERATOR_PORT; 0 disables). */
  port: number;
  /** RoleBindings made in each tenant namespace (OPERATOR_TENANT_ROLE_BINDINGS, tenant-role-bindings.ts). */
  tenantRoleBindings: readonly TenantRoleBinding[];
}

/** The Redis Cluster, Sentinel, credential and TLS settings are RedisSettings (redis-settings.ts). */
export interface Settings extends RedisSettings {
  host: string;
  gatewayPort: number;
  controlPort: number;
  /** REDIS_URL: one server; with a Cluster or Sentinel, their credentials and TLS only (redis-settings.ts). */
  redisUrl: string | undefined;
  /** Bound on one runtime-store call (REDIS_COMMAND_TIMEOUT_MS, default 1000), kept by the breaker: past it the breaker opens. */
  redisCommandTimeoutMs: number;
  /** Balances and counters the spend journal holds during an outage (SPEND_JOURNAL_MAX_ENTRIES, default 100000). */
  spendJournalMaxEntries: number;
  stateDir: string;
  resourcesDir: string | undefined;
  bootstrapFile: string | undefined;
  /**
   * PLATFORM_TENANT: the platform's own tenant, the only one whose key Secrets may hold an admin
   * PAT. Unset: the operator honours none; standalone, its first start's tenant.
   */
  platformTenant: string | undefined;
  /**
   * HMAC keys for tt_ev_ tokens: the first signs, all verify. Empty: ephemeral tokens disabled.
   * SERVICE_TOKEN_SIGNING_KEY and SERVICE_TOKEN_VERIFY_KEYS, or their *_FILE forms.
   */
  tokenSigningKeys: readonly { id: string; secret: string }[];
  /** 32-byte AES-256-GCM key for secrets at rest in the config store (SERVICE_ENCRYPTION_KEY[_FILE]). */
  encryptionKey: Buffer | undefined;
  /** The semantic cache (semcache-settings.ts). */
  semanticCache: SemanticCacheSettings;
  logLevel: string;
  bodyLimitBytes: number;
  upstreamTimeouts: UpstreamTimeouts;
  /** Provider used for a model name without a prefix. */
  defaultProvider: string;
  /** Raw provider settings by registry name: base URL and platform key (env `<NAME>_API_KEY`, `<NAME>_BASE_URL`). */
  providerEnv: Readonly<Record<string, { apiKey?: string; baseUrl?: string }>>;
  /** The platform's AWS credential for `bedrock` and `bedrock-mantle` (SigV4 when they have no API key). */
  platformAws: Readonly<PlatformAwsSettings>;
  /** The platform's Vertex credential: a service-account key, its project and region (VERTEX_*). */
  platformVertex: Readonly<PlatformVertexSettings>;
  /** Starting balance (USD micros) of a tenant created by the standalone bootstrap. */
  bootstrapBalanceMicros: number;
  /**
   * Shutdown, first step: after SIGTERM/SIGINT, how long the listeners keep accepting and serving
   * with /readyz at 503, so that load balancers stop sending before the listener closes
   * (SHUTDOWN_DRAIN_DELAY_MS). 0 by default: outside Kubernetes nothing needs the time and Ctrl-C
   * should stop at once; the Helm chart sets it from each role's `preStopSleep`. The operator has
   * no traffic to drain and ignores it.
   */
  shutdownDrainDelayMs: number;
  /**
   * Shutdown, second step: from the end of the drain delay, how long in-flight requests and streams
   * (and then closing the stores) may take before the process exits anyway, with code 1.
   */
  shutdownGraceMs: number;
  /** Whether the control plane answers GraphQL introspection. */
  graphqlIntrospection: boolean;
  /** The response cache's kill switch (GATEWAY_CACHE=off: no request is cached or looked up). */
  cacheEnabled: boolean;
  /** How long usage analytics are kept, in days (USAGE_RETENTION_DAYS, default 90). */
  usageRetentionDays: number;
  /** How often each process adds its usage sums to the store (USAGE_FLUSH_INTERVAL_MS, default 1000). */
  usageFlushIntervalMs: number;
  /** Prompts and completions on spans (GATEWAY_TRACE_CONTENT, default off: never). */
  traceContent: boolean;
  /** The share of inference requests that get an access log line (GATEWAY_ACCESS_LOG_SAMPLE, 0 to 1; default 0). */
  accessLogSample: number;
  /** Responses larger than this are not cached. */
  cacheMaxEntryBytes: number;
  /** Bound on each cache store call on the request path (past it: bypass). */
  cacheTimeoutMs: number;
  /** Memory store only: total bytes of cache entries kept (LRU beyond). */
  cacheMemoryBytes: number;
  operator: OperatorSettings;
  /**
   * Browser origins allowed to call the gateway (CORS): `*` (any; credentials are bearer tokens,
   * never cookies), a list of origins, or none (GATEWAY_CORS_ORIGINS=off).
   */
  corsOrigins: '*' | readonly string[];
  /** Prices added to or overriding the built-in table, by model id (BILLING_PRICES_FILE). */
  billingPrices: ReadonlyMap<string, PriceSetting>;
  /** The price of a model in neither the table nor BILLING_PRICES_FILE (BILLING_FALLBACK_PRICE). */
  billingFallbackPrice: PriceSetting;
  /** Organisation creation, provisioning and their abuse limits (tenancy-settings.ts). */
  tenancy: TenancySettings;
  /** What `<cli> ensure-secrets` creates when missing (ensure-secrets-settings.ts). */
  ensureSecrets: EnsureSecretsSettings;
}

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

type Env = Readonly<Record<string, string | undefined>>;

export class SettingsError extends Error {}

function readInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SettingsError(`${name} must be an integer between ${min} and ${max}, got '${raw}'`);
  }
  return value;
}

/** A number from 0 to 1. */
function readShare(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1)
    throw new SettingsError(`${name} must be a number from 0 to 1, got '${raw}'`);
  return value;
}

/** A Tenant's name (a DNS label, so that `tenant-<name>` is a namespace), or undefined when unset. */
function readTenantName(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^[a-z0-9]([-a-z0-9]{0,54}[a-z0-9])?$/.test(raw))
    throw new SettingsError(
      `${name} must be a Tenant name (lowercase letters, digits and '-'), got '${raw}'`,
    );
  return raw;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  throw new SettingsError(`${name} must be on or off, got '${env[name]}'`);
}

/**
 * A key setting, from the environment (`NAME`) or from a file (`NAME_FILE`: a mounted Kubernetes
 * Secret, so the key is not in the process environment, where child processes, crash reports and
 * `kubectl describe` of a misconfigured pod could show it). Not both. Surrounding whitespace (the
 * trailing newline of a file) is dropped. An empty or missing file is an error, unless `optional`:
 * an optional key of a Secret is projected into a volume as no file at all.
 */
function readKeySetting(
  env: Env,
  name: string,
  cwd: string,
  options: { optional: boolean } = { optional: false },
): { value: string | undefined; source: string } {
  const direct = env[name]?.trim() || undefined;
  const path = env[`${name}_FILE`]?.trim() || undefined;
  if (direct !== undefined && path !== undefined)
    throw new SettingsError(`set ${name} or ${name}_FILE, not both`);
  if (path === undefined) return { value: direct, source: name };
  const source = `${name}_FILE`;
  let content: string;
  try {
    content = readFileSync(resolve(cwd, path), 'utf8').trim();
  } catch (error) {
    if (options.optional && (error as NodeJS.ErrnoException).code === 'ENOENT')
      return { value: undefined, source };
    // The path and the reason only: never the content.
    throw new SettingsError(`${source} cannot be read: ${(error as Error).message}`);
  }
  if (content === '' && !options.optional) throw new SettingsError(`${source} names an empty file`);
  return { value: content || undefined, source };
}

/** `SERVICE_TOKEN_SIGNING_KEY` signs (id `k1` unless `id:secret`); `SERVICE_TOKEN_VERIFY_KEYS` adds `id:secret,...`. */
function readSigningKeys(env: Env, cwd: string): { id: string; secret: string }[] {
  const keys: { id: string; secret: string }[] = [];
  const parse = (entry: string, fallbackId: string) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : fallbackId;
    const secret = colon > 0 ? entry.slice(colon + 1) : entry;
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(id))
      throw new SettingsError(`token key id '${id}' must be 1-32 of [A-Za-z0-9_-]`);
    if (secret.length < 32) throw new SettingsError(`token key '${id}' must be at least 32 characters`);
    if (keys.some((key) => key.id === id)) throw new SettingsError(`token key id '${id}' is given twice`);
    keys.push({ id, secret });
  };
  const signing = readKeySetting(env, 'SERVICE_TOKEN_SIGNING_KEY', cwd).value;
  const verify = readKeySetting(env, 'SERVICE_TOKEN_VERIFY_KEYS', cwd, { optional: true }).value;
  if (signing) parse(signing, 'k1');
  for (const entry of (verify ?? '').split(',')) {
    if (entry.trim()) parse(entry.trim(), `k${keys.length + 1}`);
  }
  if (keys.length > 0 && !signing)
    throw new SettingsError('SERVICE_TOKEN_VERIFY_KEYS needs SERVICE_TOKEN_SIGNING_KEY');
  return keys;
}

function readEncryptionKey(env: Env, cwd: string): Buffer | undefined {
  const { value: raw, source } = readKeySetting(env, 'SERVICE_ENCRYPTION_KEY', cwd);
  if (!raw) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new SettingsError(`${source} must hold 32 bytes, as 64 hex digits or base64`);
  return key;
}

const PRICE_FIELDS = ['input', 'output', 'cachedInput', 'cacheWrite'] as const;

function readPriceSetting(value: unknown, where: string): PriceSetting {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SettingsError(`${where} must be an object with input and output prices`);
  const record = value as Record<string, unknown>;
  const setting: Record<string, number> = {};
  for (const field of Object.keys(record)) {
    if (!(PRICE_FIELDS as readonly string[]).includes(field))
      throw new SettingsError(`${where} has an unknown field '${field}' (known: ${PRICE_FIELDS.join(', ')})`);
    const amount = record[field];
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0 || amount > 1_000_000)
      throw new SettingsError(
        `${where}.${field} must be a number of USD per million tokens from 0 to 1000000`,
      );
    setting[field] = amount;
  }
  if (setting.input === undefined || setting.output === undefined)
    throw new SettingsError(`${where} needs both input and output`);
  return setting as unknown as PriceSetting;
}

/** BILLING_PRICES_FILE: a YAML or JSON map of model id to prices in USD per million tokens. */
function readBillingPrices(env: Env, cwd: string): ReadonlyMap<string, PriceSetting> {
  const file = env.BILLING_PRICES_FILE?.trim();
  if (!file) return new Map();
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(resolve(cwd, file), 'utf8'));
  } catch (error) {
    throw new SettingsError(`BILLING_PRICES_FILE cannot be read: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new SettingsError('BILLING_PRICES_FILE must map model ids to prices');
  const prices = new Map<string, PriceSetting>();
  for (const [model, value] of Object.entries(parsed))
    prices.set(model, readPriceSetting(value, `BILLING_PRICES_FILE '${model}'`));
  return prices;
}

/**
 * BILLING_FALLBACK_PRICE: `input,output` USD per million tokens for models nobody priced. The default
 * is the table's top (Claude Opus), so that an unknown model never costs the platform more than it
 * charges; `0,0` serves such models free.
 */
function readFallbackPrice(env: Env): PriceSetting {
  const raw = env.BILLING_FALLBACK_PRICE?.trim() || '15,75';
  const parts = raw.split(',').map((part) => Number(part.trim()));
  if (parts.length !== 2 || parts.some((part) => !Number.isFinite(part) || part < 0 || part > 1_000_000))
    throw new SettingsError(
      `BILLING_FALLBACK_PRICE must be 'input,output' in USD per million tokens, got '${raw}'`,
    );
  return { input: parts[0]!, output: parts[1]! };
}

/** GATEWAY_CORS_ORIGINS: `*` (default), `off`, or comma-separated origins like https://app.example.com. */
function readCorsOrigins(env: Env): '*' | readonly string[] {
  const raw = env.GATEWAY_CORS_ORIGINS?.trim() || '*';
  if (raw === '*') return '*';
  if (raw.toLowerCase() === 'off') return Object.freeze([]);
  const origins = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new SettingsError(
        `GATEWAY_CORS_ORIGINS: '${origin}' is not an origin like https://app.example.com`,
      );
    }
    if (url.origin !== origin)
      throw new SettingsError(
        `GATEWAY_CORS_ORIGINS: '${origin}' is not an origin (scheme, host and port only)`,
      );
  }
  return Object.freeze(origins);
}

/** Collects `<NAME>_API_KEY` and `<NAME>_BASE_URL` for every provider name the registry asks about. */
function readProviderEnv(
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

function readPlatformVertex(env: Env, cwd: string): PlatformVertexSettings {
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

function readPlatformAws(env: Env): PlatformAwsSettings {
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
function withBedrockApiKey(
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

export function loadSettings(
  env: Env,
  providerNames: readonly string[],
  cwd = process.cwd(),
): Readonly<Settings> {
  const settings: Settings = {
    host: env.HOST?.trim() || '127.0.0.1',
    gatewayPort: readInt(env, 'GATEWAY_PORT', 8080, 0, 65535),
    controlPort: readInt(env, 'CONTROL_PORT', 8081, 0, 65535),
    redisUrl: env.REDIS_URL?.trim() || undefined,
    ...readRedisSettings(env, cwd, (message) => {
      throw new SettingsError(message);
    }),
    redisCommandTimeoutMs: readInt(env, 'REDIS_COMMAND_TIMEOUT_MS', 1000, 50, 60_000),
    spendJournalMaxEntries: readInt(env, 'SPEND_JOURNAL_MAX_ENTRIES', 100_000, 100, 10_000_000),
    stateDir: resolve(cwd, env.STATE_DIR?.trim() || '.gateway-state'),
    resourcesDir: env.RESOURCES_DIR?.trim() ? resolve(cwd, env.RESOURCES_DIR.trim()) : undefined,
    bootstrapFile: env.BOOTSTRAP_FILE?.trim() ? resolve(cwd, env.BOOTSTRAP_FILE.trim()) : undefined,
    platformTenant: readTenantName(env, 'PLATFORM_TENANT'),
    tokenSigningKeys: readSigningKeys(env, cwd),
    encryptionKey: readEncryptionKey(env, cwd),
    semanticCache: readSemanticCacheSettings(
      env,
      cwd,
      (message) => {
        throw new SettingsError(message);
      },
      (name, fallback) => readBool(env, name, fallback),
      (name, fallback, min, max) => readInt(env, name, fallback, min, max),
    ),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    bodyLimitBytes: readInt(env, 'GATEWAY_BODY_LIMIT_BYTES', 4 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    upstreamTimeouts: {
      connectMs: readInt(env, 'UPSTREAM_CONNECT_TIMEOUT_MS', 10_000, 1, 600_000),
      headersMs: readInt(env, 'UPSTREAM_HEADERS_TIMEOUT_MS', 300_000, 1, 3_600_000),
      bodyMs: readInt(env, 'UPSTREAM_BODY_TIMEOUT_MS', 300_000, 1, 3_600_000),
    },
    defaultProvider: env.GATEWAY_DEFAULT_PROVIDER?.trim() || 'openai',
    providerEnv: withBedrockApiKey(env, readProviderEnv(env, providerNames)),
    platformAws: readPlatformAws(env),
    platformVertex: readPlatformVertex(env, cwd),
    bootstrapBalanceMicros: readInt(env, 'BOOTSTRAP_BALANCE_MICROS', 100_000_000, 0, Number.MAX_SAFE_INTEGER),
    shutdownDrainDelayMs: readInt(env, 'SHUTDOWN_DRAIN_DELAY_MS', 0, 0, 600_000),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 30_000, 0, 600_000),
    graphqlIntrospection: readBool(env, 'CONTROL_GRAPHQL_INTROSPECTION', true),
    cacheEnabled: readBool(env, 'GATEWAY_CACHE', true),
    traceContent: readBool(env, 'GATEWAY_TRACE_CONTENT', false),
    usageRetentionDays: readInt(env, 'USAGE_RETENTION_DAYS', 90, 1, 3650),
    usageFlushIntervalMs: readInt(env, 'USAGE_FLUSH_INTERVAL_MS', 1000, 10, 600_000),
    accessLogSample: readShare(env, 'GATEWAY_ACCESS_LOG_SAMPLE', 0),
    cacheMaxEntryBytes: readInt(env, 'GATEWAY_CACHE_MAX_ENTRY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    cacheTimeoutMs: readInt(env, 'GATEWAY_CACHE_TIMEOUT_MS', 250, 1, 60_000),
    cacheMemoryBytes: readInt(
      env,
      'GATEWAY_CACHE_MEMORY_BYTES',
      DEFAULT_MAX_CACHE_BYTES,
      1024 * 1024,
      64 * 1024 * 1024 * 1024,
    ),
    operator: Object.freeze({
      namespace: env.OPERATOR_NAMESPACE?.trim() || env.POD_NAMESPACE?.trim() || undefined,
      leaseName: env.OPERATOR_LEASE_NAME?.trim() || 'inference-gateway-operator',
      identity: env.OPERATOR_IDENTITY?.trim() || env.POD_NAME?.trim() || undefined,
      resyncSeconds: readInt(env, 'OPERATOR_RESYNC_SECONDS', 300, 10, 86_400),
      epochCheckSeconds: readInt(env, 'OPERATOR_EPOCH_CHECK_SECONDS', 5, 1, 3_600),
      port: readInt(env, 'OPERATOR_PORT', 8082, 0, 65535),
      tenantRoleBindings: readTenantRoleBindings(env.OPERATOR_TENANT_ROLE_BINDINGS, (message) => {
        throw new SettingsError(message);
      }),
    }),
    corsOrigins: readCorsOrigins(env),
    billingPrices: readBillingPrices(env, cwd),
    billingFallbackPrice: readFallbackPrice(env),
    tenancy: readTenancySettings(
      env,
      (message) => {
        throw new SettingsError(message);
      },
      (name, fallback) => readBool(env, name, fallback),
      (name, fallback, min, max) => readInt(env, name, fallback, min, max),
    ),
    ensureSecrets: readEnsureSecretsSettings(env, (message) => {
      throw new SettingsError(message);
    }),
  };
  if (!providerNames.includes(settings.defaultProvider)) {
    throw new SettingsError(`GATEWAY_DEFAULT_PROVIDER '${settings.defaultProvider}' is not a known provider`);
  }
  return Object.freeze(settings);
}

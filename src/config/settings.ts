/**
 * Environment -> typed, frozen settings, read once at start (STYLE rule 6). Nothing else in the
 * code base reads process.env.
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type EnsureSecretsSettings, readEnsureSecretsSettings } from './ensure-secrets-settings.ts';
import { type OperatorSettings, readOperatorSettings } from './operator-settings.ts';
import { type PriceSetting, readBillingPrices, readFallbackPrice } from './price-settings.ts';
import {
  type PlatformAwsSettings,
  type PlatformVertexSettings,
  readPlatformAws,
  readPlatformVertex,
  readProviderEnv,
  withBedrockApiKey,
} from './provider-settings.ts';
import { type RedisSettings, readRedisSettings } from './redis-settings.ts';
import { type ResponsesSettings, readResponsesSettings } from './responses-settings.ts';
import { readSemanticCacheSettings, type SemanticCacheSettings } from './semcache-settings.ts';
import { SettingsError } from './settings-error.ts';
import { readTenancySettings, type TenancySettings } from './tenancy-settings.ts';

export type { OperatorSettings } from './operator-settings.ts';
export { SettingsError } from './settings-error.ts';

/** The memory runtime store's cache budget by default (stores/memory-cache.ts holds the same default). */
const DEFAULT_CACHE_MEMORY_BYTES = 128 * 1024 * 1024;

/** The largest GATEWAY_CACHE_MAX_ENTRY_BYTES allowed: no cache entry, and no recorded stream, is larger. */
export const CACHE_MAX_ENTRY_BYTES_CEILING = 64 * 1024 * 1024;

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
  /** Stored Responses-API responses (responses-settings.ts). */
  responses: ResponsesSettings;
  logLevel: string;
  bodyLimitBytes: number;
  upstreamTimeouts: UpstreamTimeouts;
  /**
   * Open connections per upstream origin (GATEWAY_UPSTREAM_CONNECTIONS): with HTTP/1.1 one per
   * request in flight, so also each provider's concurrent streams per pod; with HTTP/2 each carries
   * up to 100 requests (upstream-client.ts). Past them requests queue.
   */
  upstreamConnections: number;
  /**
   * Offer HTTP/2 to upstreams over TLS (GATEWAY_UPSTREAM_HTTP2, default on: a third less CPU per
   * relayed chunk in bench/README.md's LLM-shaped streams): used where the upstream chooses it in
   * ALPN; plain-HTTP upstreams and those that choose HTTP/1.1 get HTTP/1.1.
   */
  upstreamHttp2: boolean;
  /**
   * Seeds the random picks of model routes' `weighted` strategy (GATEWAY_ROUTE_SEED), so that tests
   * and benchmarks see the same picks run after run; unset: Math.random.
   */
  routeSeed: number | undefined;
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

type Env = Readonly<Record<string, string | undefined>>;

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
    responses: readResponsesSettings((name, fallback, min, max) => readInt(env, name, fallback, min, max)),
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
    upstreamConnections: readInt(env, 'GATEWAY_UPSTREAM_CONNECTIONS', 4096, 1, 1_000_000),
    upstreamHttp2: readBool(env, 'GATEWAY_UPSTREAM_HTTP2', true),
    routeSeed: env.GATEWAY_ROUTE_SEED ? readInt(env, 'GATEWAY_ROUTE_SEED', 0, 0, 2 ** 32 - 1) : undefined,
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
    cacheMaxEntryBytes: readInt(
      env,
      'GATEWAY_CACHE_MAX_ENTRY_BYTES',
      1024 * 1024,
      1024,
      CACHE_MAX_ENTRY_BYTES_CEILING,
    ),
    cacheTimeoutMs: readInt(env, 'GATEWAY_CACHE_TIMEOUT_MS', 250, 1, 60_000),
    cacheMemoryBytes: readInt(
      env,
      'GATEWAY_CACHE_MEMORY_BYTES',
      DEFAULT_CACHE_MEMORY_BYTES,
      1024 * 1024,
      64 * 1024 * 1024 * 1024,
    ),
    operator: readOperatorSettings(env, readInt),
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

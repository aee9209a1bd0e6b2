/**
 * Environment -> typed, frozen settings, read once at start (STYLE rule 6). Nothing else in the
 * code base reads process.env.
 */
import { resolve } from 'node:path';

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
}

export interface Settings {
  host: string;
  gatewayPort: number;
  controlPort: number;
  redisUrl: string | undefined;
  stateDir: string;
  resourcesDir: string | undefined;
  bootstrapFile: string | undefined;
  /** HMAC keys for tt_ev_ tokens: the first signs, all verify. Empty: ephemeral tokens disabled. */
  tokenSigningKeys: readonly { id: string; secret: string }[];
  /** 32-byte AES-256-GCM key for secrets at rest in the config store. */
  encryptionKey: Buffer | undefined;
  semanticCache: boolean;
  logLevel: string;
  bodyLimitBytes: number;
  upstreamTimeouts: UpstreamTimeouts;
  /** Provider used for a model name without a prefix. */
  defaultProvider: string;
  /** Raw provider settings by registry name: base URL and platform key (env `<NAME>_API_KEY`, `<NAME>_BASE_URL`). */
  providerEnv: Readonly<Record<string, { apiKey?: string; baseUrl?: string }>>;
  /** Starting balance (USD micros) of a tenant created by the standalone bootstrap. */
  bootstrapBalanceMicros: number;
  /** Extra time given to in-flight requests and streams on shutdown before connections are cut. */
  shutdownGraceMs: number;
  /** Whether the control plane answers GraphQL introspection. */
  graphqlIntrospection: boolean;
  /** The response cache's kill switch (GATEWAY_CACHE=off: no request is cached or looked up). */
  cacheEnabled: boolean;
  /** Responses larger than this are not cached. */
  cacheMaxEntryBytes: number;
  /** Bound on each cache store call on the request path (past it: bypass). */
  cacheTimeoutMs: number;
  /** Memory store only: total bytes of cache entries kept (LRU beyond). */
  cacheMemoryBytes: number;
  operator: OperatorSettings;
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

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  throw new SettingsError(`${name} must be on or off, got '${env[name]}'`);
}

/** `SERVICE_TOKEN_SIGNING_KEY` signs (id `k1` unless `id:secret`); `SERVICE_TOKEN_VERIFY_KEYS` adds `id:secret,...`. */
function readSigningKeys(env: Env): { id: string; secret: string }[] {
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
  const signing = env.SERVICE_TOKEN_SIGNING_KEY?.trim();
  if (signing) parse(signing, 'k1');
  for (const entry of (env.SERVICE_TOKEN_VERIFY_KEYS ?? '').split(',')) {
    if (entry.trim()) parse(entry.trim(), `k${keys.length + 1}`);
  }
  if (keys.length > 0 && !signing)
    throw new SettingsError('SERVICE_TOKEN_VERIFY_KEYS needs SERVICE_TOKEN_SIGNING_KEY');
  return keys;
}

function readEncryptionKey(env: Env): Buffer | undefined {
  const raw = env.SERVICE_ENCRYPTION_KEY?.trim();
  if (!raw) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32)
    throw new SettingsError('SERVICE_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64');
  return key;
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
    stateDir: resolve(cwd, env.STATE_DIR?.trim() || '.gateway-state'),
    resourcesDir: env.RESOURCES_DIR?.trim() ? resolve(cwd, env.RESOURCES_DIR.trim()) : undefined,
    bootstrapFile: env.BOOTSTRAP_FILE?.trim() ? resolve(cwd, env.BOOTSTRAP_FILE.trim()) : undefined,
    tokenSigningKeys: readSigningKeys(env),
    encryptionKey: readEncryptionKey(env),
    semanticCache: readBool(env, 'GATEWAY_SEMCACHE', true),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    bodyLimitBytes: readInt(env, 'GATEWAY_BODY_LIMIT_BYTES', 4 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    upstreamTimeouts: {
      connectMs: readInt(env, 'UPSTREAM_CONNECT_TIMEOUT_MS', 10_000, 1, 600_000),
      headersMs: readInt(env, 'UPSTREAM_HEADERS_TIMEOUT_MS', 300_000, 1, 3_600_000),
      bodyMs: readInt(env, 'UPSTREAM_BODY_TIMEOUT_MS', 300_000, 1, 3_600_000),
    },
    defaultProvider: env.GATEWAY_DEFAULT_PROVIDER?.trim() || 'openai',
    providerEnv: readProviderEnv(env, providerNames),
    bootstrapBalanceMicros: readInt(env, 'BOOTSTRAP_BALANCE_MICROS', 100_000_000, 0, Number.MAX_SAFE_INTEGER),
    shutdownGraceMs: readInt(env, 'SHUTDOWN_GRACE_MS', 30_000, 0, 600_000),
    graphqlIntrospection: readBool(env, 'CONTROL_GRAPHQL_INTROSPECTION', true),
    cacheEnabled: readBool(env, 'GATEWAY_CACHE', true),
    cacheMaxEntryBytes: readInt(env, 'GATEWAY_CACHE_MAX_ENTRY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    cacheTimeoutMs: readInt(env, 'GATEWAY_CACHE_TIMEOUT_MS', 250, 1, 60_000),
    cacheMemoryBytes: readInt(
      env,
      'GATEWAY_CACHE_MEMORY_BYTES',
      256 * 1024 * 1024,
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
    }),
  };
  if (!providerNames.includes(settings.defaultProvider)) {
    throw new SettingsError(`GATEWAY_DEFAULT_PROVIDER '${settings.defaultProvider}' is not a known provider`);
  }
  return Object.freeze(settings);
}

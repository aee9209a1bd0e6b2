/**
 * The config store's records: the derived, read-optimised view the gateway needs. Versioned
 * (`v`), JSON-serialisable, free of Kubernetes types. Written by the reconcile step (operator or
 * standalone), read and watched by gateway and control-plane processes.
 */

export const CONFIG_RECORD_VERSION = 1;

/** Provider kinds a Connection can have (CRD `spec.provider`). */
export const PROVIDER_KINDS = [
  'openai',
  'anthropic',
  'gemini',
  'bedrock',
  'bedrock-mantle',
  'vertex',
  'openai-compatible',
] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface WorkspaceEntry {
  id: string;
  name: string;
}

export interface TenantRecord {
  v: 1;
  id: string;
  displayName: string;
  /** The organisation's handle: spec.slug, else the tenant id. Older records lack it (use the id). */
  slug?: string;
  parentId?: string;
  region?: string;
  billingMode: 'delegated';
  /** Strict BYOK: an `@slug/` that matches no Connection is a 404 instead of the platform key. */
  strictByok: boolean;
  /** Refused on the gateway and the control plane (403), as are its children. */
  suspended?: boolean;
  /** Set once at creation; shown only on /admin/graphql, never logged. */
  referral?: string;
  /** ISO 8601 creation time of the Tenant resource. */
  createdAt?: string;
  workspaces: WorkspaceEntry[];
}

/** Grants a workspace API key can hold. */
export const API_KEY_GRANTS = ['chat:write', 'embed'] as const;
export type ApiKeyGrant = (typeof API_KEY_GRANTS)[number];

export interface ApiKeyRecord {
  v: 1;
  id: string;
  /** Hex SHA-256 of the whole plaintext key. */
  hash: string;
  /** `tt_sk_…abcd`, recorded at creation (absent for keys made without one). */
  keyHint?: string;
  tenantId: string;
  workspaceId: string;
  grants: ApiKeyGrant[];
  createdAt: string;
}

export interface PatRecord {
  v: 1;
  id: string;
  hash: string;
  keyHint?: string;
  /** A name its owner gave it. */
  name?: string;
  tenantId: string;
  permissions: string[];
  /** Platform admin: may use /admin/graphql. */
  admin: boolean;
  createdAt: string;
}

export interface ProvisioningKeyRecord {
  v: 1;
  id: string;
  hash: string;
  keyHint?: string;
  name?: string;
  tenantId: string;
  createdAt: string;
}

export interface CachePolicyRecord {
  v: 1;
  tenantId: string;
  /** Absent: tenant-wide. */
  workspaceId?: string;
  name: string;
  ttlSeconds: number;
  swrSeconds: number;
  maxTtlSeconds: number;
  defaultTags: string[];
  semantic: boolean;
}

export interface ConnectionRecord {
  v: 1;
  id: string;
  tenantId: string;
  slug: string;
  provider: ProviderKind;
  workspaceId?: string;
  baseUrl?: string;
  awsRegion?: string;
  vertexProject?: string;
  vertexRegion?: string;
  defaultModel?: string;
  dailyCapMicros?: number;
  keyHint: string;
  /** AES-256-GCM sealed JSON of the secret material (see auth/secret-box.ts). */
  sealedSecret: string;
  /** Keyed digest of the plaintext secret, so a reconcile can tell "unchanged" without unsealing. */
  secretDigest: string;
}

/** What a route attempt is retried on (ModelRoute `spec.retry.on`). */
export type RouteRetryCondition = 'rateLimited' | 'serverError' | 'timeout' | 'connectError';

export interface ModelRouteTargetRecord {
  /** Any model string the gateway routes: `provider/model` or `@slug/model` (never another route). */
  model: string;
  /** Relative share within its priority tier; 0 = never picked by weight (default 1). */
  weight: number;
  /** The tier: lower first; a higher tier is a fallback (default 0). */
  priority: number;
}

/**
 * A model route (ModelRoute CRD, GraphQL `upsertModelRoute`, standalone resources): one model name
 * that stands for several targets, with selection, retries and circuit breaking (issue #25).
 * Every field has its default filled in by whoever writes the record.
 */
export interface ModelRouteRecord {
  v: 1;
  tenantId: string;
  /** Absent: tenant-wide. */
  workspaceId?: string;
  /** The name clients send as `model`. */
  model: string;
  strategy: 'weighted' | 'leastBusy';
  targets: ModelRouteTargetRecord[];
  retry: {
    /** Attempts in all, across targets, the first included (1..10; default 3). */
    maxAttempts: number;
    /** Default: all four. */
    on: RouteRetryCondition[];
    /** Default 100. */
    backoffMs: number;
    /** Retry-After is honoured up to this (default 2000). */
    maxBackoffMs: number;
  };
  /** Per attempt; default 30000. */
  firstByteTimeoutMs: number;
  /** Default {consecutiveFailures: 5, openSeconds: 30}. */
  circuitBreaker: { consecutiveFailures: number; openSeconds: number };
  /** Platform tenant only: serves every tenant that has no route of the same name. */
  shared: boolean;
}

export interface ConfigRecordMap {
  tenant: TenantRecord;
  apiKey: ApiKeyRecord;
  pat: PatRecord;
  provisioningKey: ProvisioningKeyRecord;
  cachePolicy: CachePolicyRecord;
  connection: ConnectionRecord;
  modelRoute: ModelRouteRecord;
}

export type ConfigKind = keyof ConfigRecordMap;
export const CONFIG_KINDS: readonly ConfigKind[] = [
  'tenant',
  'apiKey',
  'pat',
  'provisioningKey',
  'cachePolicy',
  'connection',
  'modelRoute',
];

/** The id a model route record is stored under: one per (tenant, workspace or tenant-wide, model). */
export function modelRouteId(tenantId: string, workspaceId: string | undefined, model: string): string {
  return `${tenantId}/${workspaceId ?? '*'}/${model}`;
}

/** The id a cache policy record is stored under: one per (tenant, workspace or tenant-wide, name). */
export function cachePolicyId(tenantId: string, workspaceId: string | undefined, name: string): string {
  return `${tenantId}/${workspaceId ?? '*'}/${name}`;
}

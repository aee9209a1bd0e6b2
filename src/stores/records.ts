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

export interface ConfigRecordMap {
  tenant: TenantRecord;
  apiKey: ApiKeyRecord;
  pat: PatRecord;
  provisioningKey: ProvisioningKeyRecord;
  cachePolicy: CachePolicyRecord;
  connection: ConnectionRecord;
}

export type ConfigKind = keyof ConfigRecordMap;
export const CONFIG_KINDS: readonly ConfigKind[] = [
  'tenant',
  'apiKey',
  'pat',
  'provisioningKey',
  'cachePolicy',
  'connection',
];

/** The id a cache policy record is stored under: one per (tenant, workspace or tenant-wide, name). */
export function cachePolicyId(tenantId: string, workspaceId: string | undefined, name: string): string {
  return `${tenantId}/${workspaceId ?? '*'}/${name}`;
}

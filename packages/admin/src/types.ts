/**
 * Friendly names for the records the SDK's methods return and take. Each GraphQL record is the
 * generated type of the operation that returns it (src/generated/), so it changes only with the
 * schema and the documents; the REST records follow src/control-plane/provisioning.ts and
 * organizations.ts of the service (specification 2.7 and 4.5).
 */
import type * as Admin from './generated/admin.ts';
import type * as Operations from './generated/control-plane.ts';

// `/graphql` records.

/** The caller's tenant, its workspaces and the tenants it is the liable parent of (`children`). */
export type Tenant = Operations.TenantQuery['tenant'];
/** A tenant without its children: `children` entries of `Tenant`. */
export type TenantChild = Tenant['children'][number];
/** A workspace of the tenant. */
export type Workspace = Operations.WorkspacesQuery['workspaces'][number];
/** Prepaid (`remainingMicros` set) or postpaid balance, and the platform spend, in USD micros. */
export type Balance = Operations.BalanceFieldsFragment;
/** One control-plane mutation of the tenant: who, what, when, outcome (never a secret). */
export type AuditEntry = Operations.AuditLogQuery['auditLog'][number];
export type UsageReport = Operations.UsageQuery['usage'];
export type UsageDimension = Operations.UsageDimension;
/** A personal access token, without its secret (`keyHint` is `tt_pat_…abcd`). */
export type Pat = Operations.PatFieldsFragment;
/** A new PAT: `token` is shown once, never again. */
export type CreatedPat = Operations.CreatePatMutation['createPat'];
/** A provisioning key, without its secret. */
export type ProvisioningKey = Operations.ProvisioningKeyFieldsFragment;
/** A new provisioning key: `key` (`tt_prov_...`) is shown once, never again. */
export type CreatedProvisioningKey = Operations.CreateProvisioningKeyMutation['createProvisioningKey'];
/** A minted ephemeral token: `token` (`tt_ev_...`), `jti` for revocation, `expiresAt` (ISO 8601), `scopes`. */
export type EphemeralToken = Operations.MintEphemeralTokenMutation['mintEphemeralToken'];
/** A workspace API key, without its secret (`keyHint` is `tt_sk_…abcd`). */
export type ApiKey = Operations.ApiKeyFieldsFragment;
/** A new workspace API key: `key` is shown once, never again. */
export type CreatedApiKey = Operations.CreateApiKeyMutation['createApiKey'];
/** A cache policy (`workspaceId` null: tenant-wide). */
export type CachePolicy = Operations.CachePolicyFieldsFragment;
/** What `revalidateCacheTags` did: how many distinct tags were invalidated. */
export type RevalidateResult = Operations.RevalidateCacheTagsMutation['revalidateCacheTags'];
/** What `purgeCache` did: the new purge generation of the workspace (or namespace). */
export type PurgeResult = Operations.PurgeGatewayCacheMutation['purgeGatewayCache'];
/**
 * A model route: one model name served by several targets (`provider/model`, `@slug/model`) with
 * weights, fallback tiers, retries and circuit breaking, every default filled in
 * (`workspaceId` null: tenant-wide).
 */
export type ModelRoute = Operations.ModelRouteFieldsFragment;
export type ModelRouteTarget = ModelRoute['targets'][number];
/**
 * A Connection (a tenant's own provider credential, `ProviderCredential` in GraphQL), routed as
 * `@<slug>/<model>`. Never carries a secret: `keyHint` is the only secret-derived value.
 */
export type Connection = Operations.ProviderCredentialFieldsFragment;
/** The GraphQL name of a Connection. */
export type ProviderCredential = Connection;
/** Whether a provider is usable by a workspace, on the platform's key or its own Connections. */
export type ProviderAvailability = Operations.ProviderAvailabilityQuery['providerAvailability'][number];
/** The upstream probe of `testConnection`: `ok`, the upstream's `status`, a scrubbed `message`, `latencyMs`. */
export type ConnectionTestResult = Operations.TestProviderCredentialMutation['testProviderCredential'];

export type {
  CachePolicyInput,
  MintEphemeralTokenInput,
  ModelRouteInput,
  ModelRouteStrategy,
  ModelRouteTargetInput,
  ProviderCredentialKind,
  RateLimitsInput,
  RouteRetryCondition,
} from './generated/control-plane.ts';

// `/admin/graphql` records.

/** An organisation (top-level tenant) or child tenant as the platform admin sees it, with `referral`. */
export type OrganizationSummary = Admin.OrganizationSummaryFieldsFragment;
/** A top-level tenant of the tenant tree, with its children. */
export type TenantTreeNode = Admin.AdminTenantTreeQuery['tenantTree'][number];
/** A tenant's balance as `topUpBalance` returns it. */
export type PlatformBalance = Admin.AdminTopUpBalanceMutation['topUpBalance'];

// REST: POST /provision/tenant.

/** `delegated` (the default): the liable parent answers for the child's spend. `pooled` is refused (not implemented). */
export type BillingMode = 'delegated' | 'pooled';

/** The body of `POST /provision/tenant`. */
export interface ProvisionTenantInput {
  /** The child tenant's display name (1-200 characters). */
  name: string;
  /** A region name (1-63 of `a-z`, `0-9`, `-`). */
  region?: string;
  /** Default `delegated`; `pooled` is a 400 `VALIDATION_ERROR` (not implemented). */
  billingMode?: BillingMode;
}

/** How `provisionTenant` authenticates and retries. */
export interface ProvisionTenantOptions {
  /** A provisioning key (`tt_prov_...`, from `createProvisioningKey`). A PAT is refused (403). */
  provisioningKey: string;
  /**
   * Makes retries safe: a retry with the same key returns the first result's ids (`replayed: true`,
   * `apiKey: null`) and never creates a second tenant; the same key with another body is a 409
   * `CONFLICT`. 1-255 printable ASCII characters.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** A provisioned child tenant (specification 2.7). */
export interface ProvisionedTenant {
  tenantId: string;
  workspaceId: string;
  /** The new workspace API key's id; null on a replay that returned no key. */
  apiKeyId: string | null;
  /** The workspace API key (`tt_sk_...`, `chat:write` and `embed`): returned once; null on a replay. */
  apiKey: string | null;
  /** Where the child's balance is topped up. */
  topUpUrl: string;
  /** True when an `Idempotency-Key` retry found the tenant an earlier call made. */
  replayed: boolean;
  /** The server's explanation on a replay without a key. */
  message?: string;
}

// REST: POST /auth/org/create.

/** The body of `POST /auth/org/create` (anonymous sign-up). */
export interface CreateOrganizationInput {
  /** Display name (1-200 characters). */
  name: string;
  /** The owner's e-mail address. */
  email: string;
  /** 1-56 of `a-z`, `0-9`, `-`; taken: 409 `CONFLICT`; absent: made from the name. */
  slug?: string;
  /**
   * Referral tag: trimmed, at most 64 of `a-z 0-9 . _ -`; absent or empty becomes null. Set once,
   * never changed, never logged; only the platform admin API returns it.
   */
  referral?: string;
}

/** The organisation record `POST /auth/org/create` returns. */
export interface CreatedOrganizationRecord {
  id: string;
  name: string;
  slug: string;
  referral: string | null;
  createdAt: string;
  ownerEmail: string;
  workspaces: { id: string; name: string }[];
}

/** A new organisation and its owner PAT (every permission; `token` returned once). */
export interface CreatedOrganization {
  organization: CreatedOrganizationRecord;
  pat: { id: string; token: string; permissions: string[] };
}

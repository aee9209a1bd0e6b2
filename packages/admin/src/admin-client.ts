/**
 * `AdminClient`: the control plane of one tenant, with a PAT (`POST /graphql`), plus the two REST
 * endpoints that take no PAT: `provisionTenant` (a provisioning key) and `createOrganization`
 * (anonymous). One method per operation; each returns the operation's record, typed from the
 * generated types, or throws an `AdminApiError` / `AdminTransportError`.
 */
import * as Documents from './documents.ts';
import type { UpsertProviderCredentialMutationVariables } from './generated/control-plane.ts';
import { GraphQLEndpointClient } from './graphql-endpoint-client.ts';
import type { CallOptions, ConnectionOptions } from './transport.ts';
import type {
  ApiKey,
  AuditEntry,
  Balance,
  CachePolicy,
  CachePolicyInput,
  Connection,
  ConnectionTestResult,
  CreatedApiKey,
  CreatedOrganization,
  CreatedPat,
  CreatedProvisioningKey,
  CreateOrganizationInput,
  EphemeralToken,
  MintEphemeralTokenInput,
  ModelRoute,
  ModelRouteInput,
  Pat,
  ProviderAvailability,
  ProvisionedTenant,
  ProvisioningKey,
  ProvisionTenantInput,
  ProvisionTenantOptions,
  PurgeResult,
  RevalidateResult,
  Tenant,
  UsageDimension,
  UsageReport,
  Workspace,
} from './types.ts';
import {
  type ApiKeyGrant,
  type PatPermission,
  type ProviderSpelling,
  parseProviderKind,
} from './vocabulary.ts';

/** How an `AdminClient` reaches the control plane. */
export interface AdminClientOptions extends ConnectionOptions {
  /**
   * A personal access token (`tt_pat_...`) for `/graphql`. Optional only for a client that calls
   * nothing but `provisionTenant` and `createOrganization`; without it, every GraphQL call fails
   * with `UNAUTHENTICATED`.
   */
  token?: string;
}

/**
 * `upsertConnection`'s input: the provider, the routing handle, the secrets of its kind and the
 * extras. On an update, a field left out (undefined) keeps its value and an explicit `null` clears
 * it (secrets included); changing the provider drops the old secret values. Secrets are write-only:
 * the result carries `keyHint`, never a secret.
 */
export interface UpsertConnectionInput {
  /**
   * The kind: `openai`, `anthropic`, `gemini`, `bedrock`, `bedrockMantle`, `vertex`,
   * `openaiCompatible`, in any spelling (`bedrock-mantle`, `openai-compatible`, any case). An
   * unknown name is sent as is for the server to refuse with its list.
   */
  provider: ProviderSpelling;
  /** The routing handle (`@<slug>/<model>`): 1-63 of `a-z 0-9 -`; a leading `@` is dropped. Default: the provider's name. */
  slug?: string | null;
  /** Deprecated alias of `slug` (slug wins when both are given). */
  label?: string | null;
  /** The API key: OpenAI, Anthropic, Gemini, OpenAI-compatible; for Bedrock and Bedrock Mantle, a Bedrock API key. */
  apiKey?: string | null;
  /** Bedrock, Bedrock Mantle: the AWS access key id (with `awsSecretAccessKey`). */
  awsAccessKeyId?: string | null;
  /** Bedrock, Bedrock Mantle: the AWS secret access key. */
  awsSecretAccessKey?: string | null;
  /** Bedrock, Bedrock Mantle: the session token of temporary AWS credentials (they expire with it). */
  awsSessionToken?: string | null;
  /** Bedrock, Bedrock Mantle: the AWS region (`us-east-1`). */
  awsRegion?: string | null;
  /** Vertex: the service account key file's JSON. */
  gcpServiceAccountJson?: string | null;
  /** Vertex: the Google Cloud project. */
  vertexProject?: string | null;
  /** Vertex: the region (`us-central1`). */
  vertexRegion?: string | null;
  /** The upstream's base URL: required for `openaiCompatible`; optional elsewhere (Gemini, OpenAI, a proxy). */
  baseUrl?: string | null;
  /** Only this workspace may use the Connection; absent: every workspace of the tenant. */
  workspaceId?: string | null;
  /** The model of `@<slug>` requests that name none. */
  defaultModel?: string | null;
  /** Spend cap per UTC day in USD micros (`usdToMicros('5')`); 0 stops the Connection; null: no cap. */
  dailyCapMicros?: number | null;
}

/** The GraphQL variables of an upsert: the provider as the enum when it is a known spelling. */
export function upsertConnectionVariables(
  input: UpsertConnectionInput,
): UpsertProviderCredentialMutationVariables {
  const { provider, ...rest } = input;
  if (typeof provider !== 'string' || provider.trim() === '') {
    throw new TypeError('upsertConnection needs a provider');
  }
  const kind = parseProviderKind(provider);
  return kind === undefined ? { ...rest, providerName: provider } : { ...rest, provider: kind };
}

/** Normalises a REST answer of POST /provision/tenant (specification 2.7). */
function provisionedTenant(body: Record<string, unknown>): ProvisionedTenant {
  return {
    tenantId: String(body.tenantId),
    workspaceId: String(body.workspaceId),
    apiKeyId: typeof body.apiKeyId === 'string' ? body.apiKeyId : null,
    apiKey: typeof body.apiKey === 'string' ? body.apiKey : null,
    topUpUrl: String(body.topUpUrl),
    replayed: body.replayed === true,
    ...(typeof body.message === 'string' ? { message: body.message } : {}),
  };
}

/**
 * A typed client of one tenant's control plane.
 *
 * ```ts
 * const admin = new AdminClient({ url: 'http://127.0.0.1:8081', token: process.env.IGW_PAT });
 * const { token } = await admin.mintEphemeralToken({ parentKeyId, scopes: ['chat'], ttlSeconds: 600 });
 * ```
 */
export class AdminClient extends GraphQLEndpointClient {
  constructor(options: AdminClientOptions) {
    super(options, options.token, '/graphql');
  }

  // Tenant, workspaces, balance, audit log.

  /** The caller's tenant with its workspaces and children; `withBalances` adds balances (needs `billing:read`). */
  getTenant(options: { withBalances?: boolean } = {}, call?: CallOptions): Promise<Tenant> {
    return this.field(Documents.TenantDocument, { withBalances: options.withBalances ?? false }, call);
  }

  /** The tenant's workspaces. */
  listWorkspaces(call?: CallOptions): Promise<Workspace[]> {
    return this.field(Documents.WorkspacesDocument, {}, call);
  }

  /** Adds a workspace (`id` from the name when not given); in force on the gateway when it returns. Needs `workspaces:manage`. */
  createWorkspace(input: { name: string; id?: string }, call?: CallOptions): Promise<Workspace> {
    return this.field(Documents.CreateWorkspaceDocument, input, call);
  }

  /** Renames a workspace. Needs `workspaces:manage`. */
  renameWorkspace(input: { id: string; name: string }, call?: CallOptions): Promise<Workspace> {
    return this.field(Documents.RenameWorkspaceDocument, input, call);
  }

  /** The tenant's balance and platform spend, in USD micros. Needs `billing:read`. */
  getBalance(call?: CallOptions): Promise<Balance> {
    return this.field(Documents.BalanceDocument, {}, call);
  }

  /** The tenant's control-plane mutations, newest first (`limit` 1-500, default 50; `before`: an entry id). */
  listAuditLog(options: { limit?: number; before?: string } = {}, call?: CallOptions): Promise<AuditEntry[]> {
    return this.field(Documents.AuditLogDocument, options, call);
  }

  /**
   * A workspace's usage over UTC days (`from`, `to` as YYYY-MM-DD, both included), summed by the
   * dimensions named (`MODEL`, `KEY`, `TOKEN`, `CONNECTION`, `ROUTE`, `DAY`; through a model route,
   * `MODEL` is the target that served and `ROUTE` the route); needs `billing:read`.
   */
  usage(
    input: { workspaceId: string; from: string; to: string; groupBy?: UsageDimension[] },
    call?: CallOptions,
  ): Promise<UsageReport> {
    return this.field(Documents.UsageDocument, input, call);
  }

  // Ephemeral tokens (`tokens:mint`).

  /** Mints a short-lived token (`tt_ev_...`) from a workspace key: at least one scope, `ttlSeconds` 1-86400. */
  mintEphemeralToken(input: MintEphemeralTokenInput, call?: CallOptions): Promise<EphemeralToken> {
    return this.field(Documents.MintEphemeralTokenDocument, { input }, call);
  }

  /** Revokes one token by its `jti`; denied from the next request. */
  revokeEphemeralToken(jti: string, call?: CallOptions): Promise<boolean> {
    return this.field(Documents.RevokeEphemeralTokenDocument, { jti }, call);
  }

  /** Revokes every token of a workspace key issued before this call; later ones are unaffected. */
  revokeEphemeralTokensForKey(parentKeyId: string, call?: CallOptions): Promise<boolean> {
    return this.field(Documents.RevokeEphemeralTokensForKeyDocument, { parentKeyId }, call);
  }

  // Workspace API keys (`keys:manage`).

  /** The tenant's workspace API keys (of one workspace with `workspaceId`), without secrets. */
  listApiKeys(options: { workspaceId?: string } = {}, call?: CallOptions): Promise<ApiKey[]> {
    return this.field(Documents.ApiKeysDocument, options, call);
  }

  /** Creates a workspace API key (grants default to `chat:write` and `embed`); the key is returned once and works when this returns. */
  createApiKey(
    input: { workspaceId: string; grants?: readonly (ApiKeyGrant | (string & {}))[] },
    call?: CallOptions,
  ): Promise<CreatedApiKey> {
    const { workspaceId, grants } = input;
    return this.field(
      Documents.CreateApiKeyDocument,
      { workspaceId, ...(grants === undefined ? {} : { grants: [...grants] }) },
      call,
    );
  }

  /** Revokes a workspace key and every ephemeral token minted from it. */
  revokeApiKey(id: string, call?: CallOptions): Promise<boolean> {
    return this.field(Documents.RevokeApiKeyDocument, { id }, call);
  }

  // Personal access tokens (`pats:manage`).

  /** The tenant's PATs, without secrets. */
  listPats(call?: CallOptions): Promise<Pat[]> {
    return this.field(Documents.PatsDocument, {}, call);
  }

  /** Creates a PAT with some of the caller's own permissions (never more); the token is returned once. */
  createPat(
    input: { permissions: readonly (PatPermission | (string & {}))[]; name?: string },
    call?: CallOptions,
  ): Promise<CreatedPat> {
    return this.field(Documents.CreatePatDocument, { ...input, permissions: [...input.permissions] }, call);
  }

  /** Revokes a PAT; it stops working when this returns. */
  revokePat(id: string, call?: CallOptions): Promise<boolean> {
    return this.field(Documents.RevokePatDocument, { id }, call);
  }

  // Provisioning keys (`provisioning:manage`, top-level tenants only).

  /** The tenant's provisioning keys, without secrets. */
  listProvisioningKeys(call?: CallOptions): Promise<ProvisioningKey[]> {
    return this.field(Documents.ProvisioningKeysDocument, {}, call);
  }

  /** Creates a provisioning key (`tt_prov_...`) for `provisionTenant`; the key is returned once. */
  createProvisioningKey(input: { name?: string } = {}, call?: CallOptions): Promise<CreatedProvisioningKey> {
    return this.field(Documents.CreateProvisioningKeyDocument, input, call);
  }

  /** Revokes a provisioning key; it stops working when this returns. */
  revokeProvisioningKey(id: string, call?: CallOptions): Promise<boolean> {
    return this.field(Documents.RevokeProvisioningKeyDocument, { id }, call);
  }

  // The response cache (`cache:manage`).

  /** Drops a workspace's cache (exact and semantic), or one namespace of it. */
  purgeCache(input: { workspaceId: string; namespace?: string }, call?: CallOptions): Promise<PurgeResult> {
    return this.field(Documents.PurgeGatewayCacheDocument, input, call);
  }

  /** Stops every entry that declared one of the tags (at most 64) from being served; audit-logged. */
  revalidateCacheTags(
    input: { workspaceId: string; tags: readonly string[] },
    call?: CallOptions,
  ): Promise<RevalidateResult> {
    return this.field(Documents.RevalidateCacheTagsDocument, { ...input, tags: [...input.tags] }, call);
  }

  /** The cache policies of the tenant; with `workspaceId`, those in force there (workspace and tenant-wide). */
  listCachePolicies(options: { workspaceId?: string } = {}, call?: CallOptions): Promise<CachePolicy[]> {
    return this.field(Documents.CachePoliciesDocument, options, call);
  }

  /** Creates or replaces a policy (fields left out take their defaults); in force when it returns. */
  upsertCachePolicy(input: CachePolicyInput, call?: CallOptions): Promise<CachePolicy> {
    return this.field(Documents.UpsertCachePolicyDocument, { input }, call);
  }

  /** Deletes a policy of a scope (`workspaceId` absent: the tenant-wide one). */
  deleteCachePolicy(input: { name: string; workspaceId?: string }, call?: CallOptions): Promise<boolean> {
    return this.field(Documents.DeleteCachePolicyDocument, input, call);
  }

  // Connections: provider credentials (`credentials:manage`).

  /** The tenant's Connections (with `workspaceId`: those that workspace can use), with `ready` and `status`. */
  listConnections(options: { workspaceId?: string } = {}, call?: CallOptions): Promise<Connection[]> {
    return this.field(Documents.ProviderCredentialsDocument, options, call);
  }

  /** Creates or updates the Connection of a slug and its secret; returns once the gateway serves it. */
  upsertConnection(input: UpsertConnectionInput, call?: CallOptions): Promise<Connection> {
    return this.field(Documents.UpsertProviderCredentialDocument, upsertConnectionVariables(input), call);
  }

  /** Probes the upstream with the Connection's credential; `ok: false` with the upstream's status when refused. */
  testConnection(slug: string, call?: CallOptions): Promise<ConnectionTestResult> {
    return this.field(Documents.TestProviderCredentialDocument, { slug }, call);
  }

  /** Deletes the Connection and its secret; returns once the gateway no longer serves it. */
  revokeConnection(slug: string, call?: CallOptions): Promise<boolean> {
    return this.field(Documents.RevokeProviderCredentialDocument, { slug }, call);
  }

  /** Per provider: the platform's key, the workspace's own Connection slugs, and whether it is usable. */
  getProviderAvailability(workspaceId: string, call?: CallOptions): Promise<ProviderAvailability[]> {
    return this.field(Documents.ProviderAvailabilityDocument, { workspaceId }, call);
  }

  // Model routes (`credentials:manage`).

  /** The tenant's model routes; with `workspaceId`, those in force there (workspace and tenant-wide). */
  listModelRoutes(options: { workspaceId?: string } = {}, call?: CallOptions): Promise<ModelRoute[]> {
    return this.field(Documents.ModelRoutesDocument, options, call);
  }

  /**
   * Creates or replaces the route of a model at a scope (fields left out take their defaults);
   * refused (`VALIDATION_ERROR`) when a target's provider or Connection does not exist; in force on
   * the gateway when it returns.
   */
  upsertModelRoute(input: ModelRouteInput, call?: CallOptions): Promise<ModelRoute> {
    return this.field(Documents.UpsertModelRouteDocument, { input }, call);
  }

  /** Deletes the route of a model at a scope (`workspaceId` absent: the tenant-wide one). */
  deleteModelRoute(input: { model: string; workspaceId?: string }, call?: CallOptions): Promise<boolean> {
    return this.field(Documents.DeleteModelRouteDocument, input, call);
  }

  // REST endpoints without a PAT.

  /**
   * `POST /provision/tenant`: a liable parent creates a child tenant with a provisioning key (never
   * a PAT: 403). The child's workspace API key works on the gateway when this returns.
   */
  async provisionTenant(
    input: ProvisionTenantInput,
    options: ProvisionTenantOptions,
  ): Promise<ProvisionedTenant> {
    const { provisioningKey, idempotencyKey, signal } = options;
    if (typeof provisioningKey !== 'string' || provisioningKey.trim() === '') {
      throw new TypeError('provisionTenant needs a provisioningKey');
    }
    const { body } = await this.transport.rest<Record<string, unknown>>(
      '/provision/tenant',
      input,
      provisioningKey.trim(),
      idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
      signal === undefined ? {} : { signal },
    );
    return provisionedTenant(body);
  }

  /**
   * `POST /auth/org/create`: anonymous sign-up of an organisation (a top-level tenant with the
   * workspace `default`) with an optional `referral`; returns the record and an owner PAT, once.
   */
  async createOrganization(input: CreateOrganizationInput, call?: CallOptions): Promise<CreatedOrganization> {
    const { body } = await this.transport.rest<CreatedOrganization>(
      '/auth/org/create',
      input,
      undefined,
      {},
      call,
    );
    return body;
  }
}

/**
 * Every operation of the control plane's `/graphql`, one named document each. The types come from
 * graphql-codegen (src/generated/control-plane.ts, made by scripts/codegen.ts from the committed
 * schema snapshot and these documents); the platform admin's documents are admin-documents.ts.
 *
 * Editing a document means running `npm run codegen -w @inference-gateway/admin`: the unit tests
 * and the schema drift test fail until the generated types match the documents again.
 */
import type * as Operations from './generated/control-plane.ts';
import { defineDocument, defineFragment } from './typed-document.ts';

// Fragments: the full record of each object type, shared by the operations that return it.

export const TenantFields = defineFragment(/* GraphQL */ `
  fragment TenantFields on Tenant {
    id slug name parentId region billingMode suspended createdAt
    workspaces { id name }
  }
`);

export const BalanceFields = defineFragment(/* GraphQL */ `
  fragment BalanceFields on Balance { tenantId mode remainingMicros spentMicros currency }
`);

export const PatFields = defineFragment(/* GraphQL */ `
  fragment PatFields on Pat { id name permissions keyHint createdAt }
`);

export const ProvisioningKeyFields = defineFragment(/* GraphQL */ `
  fragment ProvisioningKeyFields on ProvisioningKey { id name keyHint createdAt }
`);

export const ApiKeyFields = defineFragment(/* GraphQL */ `
  fragment ApiKeyFields on ApiKey { id workspaceId grants keyHint createdAt }
`);

export const CachePolicyFields = defineFragment(/* GraphQL */ `
  fragment CachePolicyFields on CachePolicy {
    name workspaceId ttlSeconds swrSeconds maxTtlSeconds defaultTags semantic
  }
`);

export const ModelRouteFields = defineFragment(/* GraphQL */ `
  fragment ModelRouteFields on ModelRoute {
    model workspaceId strategy targets { model weight priority }
    retry { maxAttempts on backoffMs maxBackoffMs } firstByteTimeoutMs
    circuitBreaker { consecutiveFailures openSeconds } shared
  }
`);

export const ProviderCredentialFields = defineFragment(/* GraphQL */ `
  fragment ProviderCredentialFields on ProviderCredential {
    id slug label kind provider keyHint workspaceId baseUrl awsRegion vertexProject vertexRegion
    defaultModel dailyCapMicros spentTodayMicros createdAt ready status
  }
`);

// Tenant, workspaces, balance, audit log.

export const TenantDocument = defineDocument<Operations.TenantQuery, Operations.TenantQueryVariables>(
  /* GraphQL */ `
  query Tenant($withBalances: Boolean = false) {
    tenant {
      ...TenantFields
      balance @include(if: $withBalances) { ...BalanceFields }
      children {
        ...TenantFields
        balance @include(if: $withBalances) { ...BalanceFields }
      }
    }
  }`,
  TenantFields,
  BalanceFields,
);

export const WorkspacesDocument = defineDocument<
  Operations.WorkspacesQuery,
  Operations.WorkspacesQueryVariables
>(/* GraphQL */ `
  query Workspaces { workspaces { id name } }`);

export const CreateWorkspaceDocument = defineDocument<
  Operations.CreateWorkspaceMutation,
  Operations.CreateWorkspaceMutationVariables
>(/* GraphQL */ `
  mutation CreateWorkspace($name: String!, $id: String) { createWorkspace(name: $name, id: $id) { id name } }`);

export const RenameWorkspaceDocument = defineDocument<
  Operations.RenameWorkspaceMutation,
  Operations.RenameWorkspaceMutationVariables
>(/* GraphQL */ `
  mutation RenameWorkspace($id: String!, $name: String!) { renameWorkspace(id: $id, name: $name) { id name } }`);

export const BalanceDocument = defineDocument<Operations.BalanceQuery, Operations.BalanceQueryVariables>(
  /* GraphQL */ `
  query Balance { balance { ...BalanceFields } }`,
  BalanceFields,
);

export const AuditLogDocument = defineDocument<Operations.AuditLogQuery, Operations.AuditLogQueryVariables>(
  /* GraphQL */ `
  query AuditLog($limit: Int, $before: String) {
    auditLog(limit: $limit, before: $before) { id at actor operation target outcome message }
  }`,
);

export const UsageDocument = defineDocument<Operations.UsageQuery, Operations.UsageQueryVariables>(
  /* GraphQL */ `
  query Usage($workspaceId: String!, $from: String!, $to: String!, $groupBy: [UsageDimension!]) {
    usage(workspaceId: $workspaceId, from: $from, to: $to, groupBy: $groupBy) {
      workspaceId from to groupBy
      rows { day model keyId tokenId connection route requests inputTokens outputTokens costMicros cacheHits savedMicros }
      total { requests inputTokens outputTokens costMicros cacheHits savedMicros }
    }
  }`,
);

// Personal access tokens and provisioning keys.

export const PatsDocument = defineDocument<Operations.PatsQuery, Operations.PatsQueryVariables>(
  /* GraphQL */ `
  query Pats { pats { ...PatFields } }`,
  PatFields,
);

export const CreatePatDocument = defineDocument<
  Operations.CreatePatMutation,
  Operations.CreatePatMutationVariables
>(/* GraphQL */ `
  mutation CreatePat($permissions: [String!]!, $name: String) {
    createPat(permissions: $permissions, name: $name) { id name permissions token }
  }`);

export const RevokePatDocument = defineDocument<
  Operations.RevokePatMutation,
  Operations.RevokePatMutationVariables
>(/* GraphQL */ `
  mutation RevokePat($id: String!) { revokePat(id: $id) }`);

export const ProvisioningKeysDocument = defineDocument<
  Operations.ProvisioningKeysQuery,
  Operations.ProvisioningKeysQueryVariables
>(
  /* GraphQL */ `
  query ProvisioningKeys { provisioningKeys { ...ProvisioningKeyFields } }`,
  ProvisioningKeyFields,
);

export const CreateProvisioningKeyDocument = defineDocument<
  Operations.CreateProvisioningKeyMutation,
  Operations.CreateProvisioningKeyMutationVariables
>(/* GraphQL */ `
  mutation CreateProvisioningKey($name: String) { createProvisioningKey(name: $name) { id name key } }`);

export const RevokeProvisioningKeyDocument = defineDocument<
  Operations.RevokeProvisioningKeyMutation,
  Operations.RevokeProvisioningKeyMutationVariables
>(/* GraphQL */ `
  mutation RevokeProvisioningKey($id: String!) { revokeProvisioningKey(id: $id) }`);

// Ephemeral tokens.

export const MintEphemeralTokenDocument = defineDocument<
  Operations.MintEphemeralTokenMutation,
  Operations.MintEphemeralTokenMutationVariables
>(/* GraphQL */ `
  mutation MintEphemeralToken($input: MintEphemeralTokenInput!) {
    mintEphemeralToken(input: $input) { token jti expiresAt scopes }
  }`);

export const RevokeEphemeralTokenDocument = defineDocument<
  Operations.RevokeEphemeralTokenMutation,
  Operations.RevokeEphemeralTokenMutationVariables
>(/* GraphQL */ `
  mutation RevokeEphemeralToken($jti: String!) { revokeEphemeralToken(jti: $jti) }`);

export const RevokeEphemeralTokensForKeyDocument = defineDocument<
  Operations.RevokeEphemeralTokensForKeyMutation,
  Operations.RevokeEphemeralTokensForKeyMutationVariables
>(/* GraphQL */ `
  mutation RevokeEphemeralTokensForKey($parentKeyId: String!) {
    revokeEphemeralTokensForKey(parentKeyId: $parentKeyId)
  }`);

// Workspace API keys.

export const ApiKeysDocument = defineDocument<Operations.ApiKeysQuery, Operations.ApiKeysQueryVariables>(
  /* GraphQL */ `
  query ApiKeys($workspaceId: String) { apiKeys(workspaceId: $workspaceId) { ...ApiKeyFields } }`,
  ApiKeyFields,
);

export const CreateApiKeyDocument = defineDocument<
  Operations.CreateApiKeyMutation,
  Operations.CreateApiKeyMutationVariables
>(/* GraphQL */ `
  mutation CreateApiKey($workspaceId: String!, $grants: [String!]) {
    createApiKey(workspaceId: $workspaceId, grants: $grants) { id workspaceId grants key }
  }`);

export const RevokeApiKeyDocument = defineDocument<
  Operations.RevokeApiKeyMutation,
  Operations.RevokeApiKeyMutationVariables
>(/* GraphQL */ `
  mutation RevokeApiKey($id: String!) { revokeApiKey(id: $id) }`);

// The response cache.

export const CachePoliciesDocument = defineDocument<
  Operations.CachePoliciesQuery,
  Operations.CachePoliciesQueryVariables
>(
  /* GraphQL */ `
  query CachePolicies($workspaceId: String) {
    cachePolicies(workspaceId: $workspaceId) { ...CachePolicyFields }
  }`,
  CachePolicyFields,
);

export const UpsertCachePolicyDocument = defineDocument<
  Operations.UpsertCachePolicyMutation,
  Operations.UpsertCachePolicyMutationVariables
>(
  /* GraphQL */ `
  mutation UpsertCachePolicy($input: CachePolicyInput!) {
    upsertCachePolicy(input: $input) { ...CachePolicyFields }
  }`,
  CachePolicyFields,
);

export const DeleteCachePolicyDocument = defineDocument<
  Operations.DeleteCachePolicyMutation,
  Operations.DeleteCachePolicyMutationVariables
>(/* GraphQL */ `
  mutation DeleteCachePolicy($name: String!, $workspaceId: String) {
    deleteCachePolicy(name: $name, workspaceId: $workspaceId)
  }`);

export const RevalidateCacheTagsDocument = defineDocument<
  Operations.RevalidateCacheTagsMutation,
  Operations.RevalidateCacheTagsMutationVariables
>(/* GraphQL */ `
  mutation RevalidateCacheTags($workspaceId: String!, $tags: [String!]!) {
    revalidateCacheTags(workspaceId: $workspaceId, tags: $tags) { invalidated }
  }`);

export const PurgeGatewayCacheDocument = defineDocument<
  Operations.PurgeGatewayCacheMutation,
  Operations.PurgeGatewayCacheMutationVariables
>(/* GraphQL */ `
  mutation PurgeGatewayCache($workspaceId: String!, $namespace: String) {
    purgeGatewayCache(workspaceId: $workspaceId, namespace: $namespace) { purged generation }
  }`);

// Provider credentials (Connections).

export const ProviderCredentialsDocument = defineDocument<
  Operations.ProviderCredentialsQuery,
  Operations.ProviderCredentialsQueryVariables
>(
  /* GraphQL */ `
  query ProviderCredentials($workspaceId: String) {
    providerCredentials(workspaceId: $workspaceId) { ...ProviderCredentialFields }
  }`,
  ProviderCredentialFields,
);

export const ProviderAvailabilityDocument = defineDocument<
  Operations.ProviderAvailabilityQuery,
  Operations.ProviderAvailabilityQueryVariables
>(/* GraphQL */ `
  query ProviderAvailability($workspaceId: String!) {
    providerAvailability(workspaceId: $workspaceId) { provider kind platform connectionSlugs available }
  }`);

export const UpsertProviderCredentialDocument = defineDocument<
  Operations.UpsertProviderCredentialMutation,
  Operations.UpsertProviderCredentialMutationVariables
>(
  /* GraphQL */ `
  mutation UpsertProviderCredential(
    $provider: ProviderCredentialKind, $providerName: String, $slug: String, $label: String,
    $apiKey: String, $awsAccessKeyId: String, $awsSecretAccessKey: String, $awsSessionToken: String,
    $awsRegion: String, $gcpServiceAccountJson: String, $vertexProject: String, $vertexRegion: String,
    $baseUrl: String, $workspaceId: String, $defaultModel: String, $dailyCapMicros: Float
  ) {
    upsertProviderCredential(
      provider: $provider, providerName: $providerName, slug: $slug, label: $label,
      apiKey: $apiKey, awsAccessKeyId: $awsAccessKeyId, awsSecretAccessKey: $awsSecretAccessKey,
      awsSessionToken: $awsSessionToken, awsRegion: $awsRegion,
      gcpServiceAccountJson: $gcpServiceAccountJson, vertexProject: $vertexProject,
      vertexRegion: $vertexRegion, baseUrl: $baseUrl, workspaceId: $workspaceId,
      defaultModel: $defaultModel, dailyCapMicros: $dailyCapMicros
    ) { ...ProviderCredentialFields }
  }`,
  ProviderCredentialFields,
);

export const TestProviderCredentialDocument = defineDocument<
  Operations.TestProviderCredentialMutation,
  Operations.TestProviderCredentialMutationVariables
>(/* GraphQL */ `
  mutation TestProviderCredential($slug: String!) {
    testProviderCredential(slug: $slug) { ok status message latencyMs }
  }`);

export const RevokeProviderCredentialDocument = defineDocument<
  Operations.RevokeProviderCredentialMutation,
  Operations.RevokeProviderCredentialMutationVariables
>(/* GraphQL */ `
  mutation RevokeProviderCredential($slug: String!) { revokeProviderCredential(slug: $slug) }`);

// Model routes.

export const ModelRoutesDocument = defineDocument<
  Operations.ModelRoutesQuery,
  Operations.ModelRoutesQueryVariables
>(
  /* GraphQL */ `
  query ModelRoutes($workspaceId: String) {
    modelRoutes(workspaceId: $workspaceId) { ...ModelRouteFields }
  }`,
  ModelRouteFields,
);

export const UpsertModelRouteDocument = defineDocument<
  Operations.UpsertModelRouteMutation,
  Operations.UpsertModelRouteMutationVariables
>(
  /* GraphQL */ `
  mutation UpsertModelRoute($input: ModelRouteInput!) {
    upsertModelRoute(input: $input) { ...ModelRouteFields }
  }`,
  ModelRouteFields,
);

export const DeleteModelRouteDocument = defineDocument<
  Operations.DeleteModelRouteMutation,
  Operations.DeleteModelRouteMutationVariables
>(/* GraphQL */ `
  mutation DeleteModelRoute($model: String!, $workspaceId: String) {
    deleteModelRoute(model: $model, workspaceId: $workspaceId)
  }`);

/** Every `/graphql` document, in the order of the generated file. */
export const CONTROL_PLANE_DOCUMENTS = [
  TenantDocument,
  WorkspacesDocument,
  CreateWorkspaceDocument,
  RenameWorkspaceDocument,
  BalanceDocument,
  AuditLogDocument,
  UsageDocument,
  PatsDocument,
  CreatePatDocument,
  RevokePatDocument,
  ProvisioningKeysDocument,
  CreateProvisioningKeyDocument,
  RevokeProvisioningKeyDocument,
  MintEphemeralTokenDocument,
  RevokeEphemeralTokenDocument,
  RevokeEphemeralTokensForKeyDocument,
  ApiKeysDocument,
  CreateApiKeyDocument,
  RevokeApiKeyDocument,
  CachePoliciesDocument,
  UpsertCachePolicyDocument,
  DeleteCachePolicyDocument,
  RevalidateCacheTagsDocument,
  PurgeGatewayCacheDocument,
  ProviderCredentialsDocument,
  ProviderAvailabilityDocument,
  UpsertProviderCredentialDocument,
  TestProviderCredentialDocument,
  RevokeProviderCredentialDocument,
  ModelRoutesDocument,
  UpsertModelRouteDocument,
  DeleteModelRouteDocument,
] as const;

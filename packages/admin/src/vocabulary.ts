/**
 * The control plane's fixed vocabularies: provider kinds and their spellings, PAT permissions,
 * API key grants, token scopes, model route strategies and retry conditions, and limits (README "Control plane", specification 2.1, 2.6, 8).
 */
import type {
  ModelRouteStrategy,
  ProviderCredentialKind,
  RouteRetryCondition,
} from './generated/control-plane.ts';

/** GraphQL enum value of each provider kind -> the Connection resource's spelling. */
const RESOURCE_SPELLING = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
  bedrock: 'bedrock',
  bedrockMantle: 'bedrock-mantle',
  vertex: 'vertex',
  openaiCompatible: 'openai-compatible',
} as const satisfies Record<ProviderCredentialKind, string>;

/** Every `ProviderCredentialKind`, as the GraphQL enum spells them. */
export const PROVIDER_CREDENTIAL_KINDS = Object.keys(RESOURCE_SPELLING) as readonly ProviderCredentialKind[];

/** A provider kind as the Connection resource spells it (`bedrock-mantle`, `openai-compatible`). */
export type ProviderResourceName = (typeof RESOURCE_SPELLING)[ProviderCredentialKind];

/**
 * A provider kind in any spelling the control plane accepts: the enum's (`bedrockMantle`), the
 * resource's (`bedrock-mantle`), or any case with `-`, `_` or nothing between the words.
 */
export type ProviderSpelling = ProviderCredentialKind | ProviderResourceName | (string & {});

const spellingKey = (text: string) =>
  text
    .trim()
    .toLowerCase()
    .replace(/[-_\s]/g, '');
const KIND_BY_SPELLING = new Map(PROVIDER_CREDENTIAL_KINDS.map((kind) => [spellingKey(kind), kind] as const));

/**
 * The `ProviderCredentialKind` of any accepted spelling (`bedrock-mantle`, `BEDROCK_MANTLE` and
 * `bedrockMantle` are all `bedrockMantle`); undefined for an unknown provider.
 */
export function parseProviderKind(name: string): ProviderCredentialKind | undefined {
  return KIND_BY_SPELLING.get(spellingKey(name));
}

/** The Connection resource's spelling of a kind (`bedrockMantle` -> `bedrock-mantle`). */
export function providerResourceName(kind: ProviderCredentialKind): ProviderResourceName {
  return RESOURCE_SPELLING[kind];
}

/** What a personal access token may do on `/graphql`. */
export const PAT_PERMISSIONS = [
  'tokens:mint',
  'keys:manage',
  'cache:manage',
  'credentials:manage',
  'workspaces:manage',
  'pats:manage',
  'billing:read',
  'provisioning:manage',
] as const;
export type PatPermission = (typeof PAT_PERMISSIONS)[number];

/** Grants of a workspace API key (`createApiKey` defaults to both). */
export const API_KEY_GRANTS = ['chat:write', 'embed'] as const;
export type ApiKeyGrant = (typeof API_KEY_GRANTS)[number];

/** Route scopes of an ephemeral token; `model:<id>` scopes narrow them further. */
export const TOKEN_ROUTE_SCOPES = ['chat', 'embeddings', 'messages', 'responses'] as const;
export type TokenScope = (typeof TOKEN_ROUTE_SCOPES)[number] | `model:${string}`;

/** How a model route picks a target within a priority tier (`weighted` by default). */
export const MODEL_ROUTE_STRATEGIES = [
  'weighted',
  'leastBusy',
] as const satisfies readonly ModelRouteStrategy[];
/** What a model route retries on another target (all four by default). */
export const ROUTE_RETRY_CONDITIONS = [
  'rateLimited',
  'serverError',
  'timeout',
  'connectError',
] as const satisfies readonly RouteRetryCondition[];
/** The most targets one model route takes. */
export const MAX_ROUTE_TARGETS = 16;

/** The longest ephemeral token lifetime, in seconds (24 hours). */
export const MAX_TOKEN_TTL_SECONDS = 86_400;
/** The most tags one `revalidateCacheTags` call takes. */
export const MAX_REVALIDATE_TAGS = 64;

/**
 * The records tools return, as zod shapes (they become the tools' output schemas), and `pick`,
 * which builds a result from an admin SDK record by copying the shape's fields and nothing else:
 * a field the service adds later, or a secret, cannot slip into a result. TypeScript checks that
 * each SDK record fits its shape.
 */
import { PROVIDER_CREDENTIAL_KINDS } from '@inference-gateway/admin';
import { z } from 'zod';

const micros = (description: string) =>
  z.number().describe(`${description}, in USD micros (1 USD = 1,000,000)`);
const timestamp = z.string().nullable().describe('ISO 8601');

export const WorkspaceRecord = { id: z.string(), name: z.string() };

export const BalanceRecord = {
  tenantId: z.string(),
  mode: z.string().describe('prepaid (remainingMicros is set) or postpaid'),
  remainingMicros: micros('What is left of a prepaid balance').nullable(),
  spentMicros: micros('Platform spend so far'),
  currency: z.string(),
};

const TenantFields = {
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  parentId: z.string().nullable().describe('The liable parent; null for an organisation (top-level tenant)'),
  region: z.string().nullable(),
  billingMode: z.string(),
  suspended: z.boolean(),
  createdAt: timestamp,
  workspaces: z.array(z.object(WorkspaceRecord)),
  balance: z.object(BalanceRecord).optional().describe('Only with withBalances'),
};

export const TenantRecord = {
  ...TenantFields,
  children: z.array(z.object(TenantFields)).describe('The tenants this one is the liable parent of'),
};

export const ConnectionRecord = {
  id: z.string(),
  slug: z.string().describe('The routing handle: models are addressed as @<slug>/<model>'),
  label: z.string().describe('Deprecated alias of slug (always equal to it)'),
  kind: z.enum(PROVIDER_CREDENTIAL_KINDS as [string, ...string[]]),
  provider: z
    .string()
    .describe('The kind as the Connection resource spells it (bedrock-mantle, openai-compatible)'),
  keyHint: z.string().describe('The only secret-derived value ever returned (sk-…abcd)'),
  workspaceId: z.string().nullable().describe('Only this workspace may use it; null: every workspace'),
  baseUrl: z.string().nullable(),
  awsRegion: z.string().nullable(),
  vertexProject: z.string().nullable(),
  vertexRegion: z.string().nullable(),
  defaultModel: z.string().nullable(),
  dailyCapMicros: micros('Spend cap per UTC day').nullable(),
  spentTodayMicros: micros('Spend of the current UTC day').nullable(),
  createdAt: timestamp,
  ready: z.boolean().describe('Whether the gateway serves it'),
  status: z.string(),
};

export const ConnectionTestRecord = {
  ok: z.boolean().describe('Whether the upstream accepted the credential'),
  status: z.number().nullable().describe("The upstream's HTTP status; null when it was not reached"),
  message: z.string(),
  latencyMs: z.number(),
};

export const ProviderAvailabilityRecord = {
  provider: z.string(),
  kind: z.enum(PROVIDER_CREDENTIAL_KINDS as [string, ...string[]]).nullable(),
  platform: z.boolean().describe("Whether the platform's own key serves it"),
  connectionSlugs: z.array(z.string()).describe("The workspace's own Connections of this provider"),
  available: z.boolean(),
};

export const EphemeralTokenRecord = {
  token: z.string().describe('The token (tt_ev_...): a secret, returned once'),
  jti: z.string().describe('Its id, for revoke_ephemeral_token'),
  expiresAt: z.string().describe('ISO 8601'),
  scopes: z.array(z.string()),
};

export const CachePolicyRecord = {
  name: z.string(),
  workspaceId: z.string().nullable().describe('null: tenant-wide'),
  ttlSeconds: z.number(),
  swrSeconds: z.number(),
  maxTtlSeconds: z.number(),
  defaultTags: z.array(z.string()),
  semantic: z.boolean(),
};

export const ModelRouteRecord = {
  model: z.string().describe('The name clients send as "model"'),
  workspaceId: z.string().nullable().describe('null: tenant-wide'),
  strategy: z.string().describe('weighted or leastBusy'),
  targets: z.array(
    z.object({
      model: z.string().describe('provider/model or @connection/model'),
      weight: z.number(),
      priority: z.number().describe('The tier: lowest first; a higher one is a fallback'),
    }),
  ),
  retry: z.object({
    maxAttempts: z.number(),
    on: z.array(z.string()),
    backoffMs: z.number(),
    maxBackoffMs: z.number(),
  }),
  firstByteTimeoutMs: z.number(),
  circuitBreaker: z.object({ consecutiveFailures: z.number(), openSeconds: z.number() }),
  shared: z.boolean().describe('A platform route serving every tenant without its own of this model'),
};

export const ApiKeyRecord = {
  id: z.string(),
  workspaceId: z.string(),
  grants: z.array(z.string()),
  keyHint: z.string().nullable(),
  createdAt: z.string(),
};

export const CreatedApiKeyRecord = {
  id: z.string(),
  workspaceId: z.string(),
  grants: z.array(z.string()),
  key: z.string().describe('The workspace API key (tt_sk_...): a secret, returned once'),
};

export const ProvisionedTenantRecord = {
  tenantId: z.string(),
  workspaceId: z.string(),
  apiKeyId: z.string().nullable(),
  apiKey: z
    .string()
    .nullable()
    .describe("The child's workspace API key (tt_sk_...): a secret, returned once; null on a replay"),
  topUpUrl: z.string(),
  replayed: z.boolean().describe('True when an idempotency key found the tenant an earlier call made'),
  message: z.string().optional().describe("The service's explanation of a replay without a key"),
};

export const CreatedOrganizationRecord = {
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  referral: z.string().nullable(),
  createdAt: z.string(),
  ownerEmail: z.string(),
  workspaces: z.array(z.object(WorkspaceRecord)),
};

export const OwnerPatRecord = {
  id: z.string(),
  token: z.string().describe("The owner's personal access token (tt_pat_...): a secret, returned once"),
  permissions: z.array(z.string()),
};

export const OrganizationSummaryRecord = {
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  referral: z.string().nullable().describe('The referral tag given at sign-up'),
  createdAt: timestamp,
  parentId: z.string().nullable(),
  childCount: z.number(),
  region: z.string().nullable(),
  suspended: z.boolean(),
  balanceMicros: micros('Prepaid balance').nullable(),
  workspaceCount: z.number(),
  balance: z.object(BalanceRecord),
};

/**
 * The shape's fields of a record, nested records included (zod objects strip unknown keys). A record
 * that does not fit (the service changed) throws, rather than sending what the output schema denies.
 */
export function pick<S extends z.ZodRawShape>(
  shape: S,
  record: z.input<z.ZodObject<S>>,
): z.output<z.ZodObject<S>> {
  return z.object(shape).parse(record);
}

/**
 * The cache on the control plane: policies (CachePolicy resources, written through the resources
 * interface and in force on the gateway when the mutation returns), tag revalidation and purge
 * (runtime operations, in force on every gateway process within a second).
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { cacheScopeId } from '../../cache/cache-key.ts';
import { MAX_CACHE_TTL_SECONDS, TAG_PATTERN } from '../../cache/cache-request.ts';
import { desiredCachePolicyRecord } from '../../resources/desired-records.ts';
import { API_VERSION, type CachePolicyResource, tenantNamespace } from '../../resources/types.ts';
import { type CachePolicyRecord, cachePolicyId } from '../../stores/records.ts';
import { audited } from './audit.ts';
import {
  asValidation,
  notFound,
  type ResolverContext,
  requirePermission,
  requireWorkspace,
  validationError,
} from './context.ts';

export const cacheTypeDefs = /* GraphQL */ `
  type CachePolicy {
    name: String!
    "Absent: tenant-wide."
    workspaceId: String
    ttlSeconds: Int!
    swrSeconds: Int!
    maxTtlSeconds: Int!
    defaultTags: [String!]!
    semantic: Boolean!
  }

  input CachePolicyInput {
    name: String!
    "Absent: the policy is tenant-wide (a workspace policy of the same name wins)."
    workspaceId: String
    ttlSeconds: Int
    swrSeconds: Int
    maxTtlSeconds: Int
    defaultTags: [String!]
    semantic: Boolean
  }

  type RevalidateResult {
    "How many tags were invalidated."
    invalidated: Int!
  }

  type PurgeResult {
    purged: Boolean!
    "The new purge generation of the workspace (or namespace)."
    generation: Int!
  }

  type Query {
    cachePolicies(workspaceId: String): [CachePolicy!]!
  }

  type Mutation {
    upsertCachePolicy(input: CachePolicyInput!): CachePolicy!
    deleteCachePolicy(name: String!, workspaceId: String): Boolean!
    "Stops every cache entry that declared one of the tags from being served (at most 64 tags)."
    revalidateCacheTags(workspaceId: String!, tags: [String!]!): RevalidateResult!
    "Drops the workspace's cache, or one namespace of it."
    purgeGatewayCache(workspaceId: String!, namespace: String): PurgeResult!
  }
`;

const POLICY_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const MAX_REVALIDATE_TAGS = 64;

interface PolicyInput {
  name: string;
  workspaceId?: string | null;
  ttlSeconds?: number | null;
  swrSeconds?: number | null;
  maxTtlSeconds?: number | null;
  defaultTags?: string[] | null;
  semantic?: boolean | null;
}

/** Object name of a policy: its name plus a digest of its scope, so scopes never collide. */
function policyObjectName(name: string, workspaceId: string | undefined): string {
  const scope = createHash('sha256')
    .update(workspaceId ?? '*')
    .digest('hex')
    .slice(0, 8);
  return `${name}-${scope}`;
}

function checkPolicy(input: PolicyInput): void {
  if (!POLICY_NAME.test(input.name)) {
    throw validationError(
      'name must be lowercase letters, digits and dashes, starting with a letter or digit, at most 63',
    );
  }
  const range = (field: 'ttlSeconds' | 'swrSeconds' | 'maxTtlSeconds', min: number) => {
    const value = input[field];
    if (value !== null && value !== undefined && (value < min || value > MAX_CACHE_TTL_SECONDS)) {
      throw validationError(`${field} must be between ${min} and ${MAX_CACHE_TTL_SECONDS}`);
    }
  };
  range('ttlSeconds', 1);
  range('swrSeconds', 0);
  range('maxTtlSeconds', 1);
  if (input.ttlSeconds != null && input.maxTtlSeconds != null && input.ttlSeconds > input.maxTtlSeconds) {
    throw validationError('ttlSeconds must be at most maxTtlSeconds');
  }
  if (input.defaultTags) {
    if (input.defaultTags.length > 16) throw validationError('defaultTags allows at most 16 tags');
    for (const tag of input.defaultTags) {
      if (!TAG_PATTERN.test(tag)) throw validationError(`defaultTags: tag '${tag}' is not a valid tag slug`);
    }
  }
}

function present(policy: CachePolicyRecord) {
  return {
    name: policy.name,
    workspaceId: policy.workspaceId ?? null,
    ttlSeconds: policy.ttlSeconds,
    swrSeconds: policy.swrSeconds,
    maxTtlSeconds: policy.maxTtlSeconds,
    defaultTags: policy.defaultTags,
    semantic: policy.semantic,
  };
}

function policyById(context: ResolverContext, id: string) {
  return context.services.view
    .list('cachePolicy')
    .find((policy) => cachePolicyId(policy.tenantId, policy.workspaceId, policy.name) === id);
}

/**
 * The CachePolicy resource that defines this policy (name and scope), whatever its object name: one
 * applied with kubectl is updated and deleted like one this API created.
 */
async function findPolicyResource(
  context: ResolverContext,
  name: string,
  workspaceId: string | undefined,
): Promise<CachePolicyResource | undefined> {
  const policies = await context.services.resources.list('CachePolicy', tenantNamespace(context.tenantId));
  return policies.find(
    (policy) =>
      (policy.spec.policyName ?? policy.metadata.name) === name && policy.spec.workspace === workspaceId,
  );
}

async function upsertCachePolicy(_parent: unknown, args: { input: PolicyInput }, context: ResolverContext) {
  requirePermission(context, 'cache:manage');
  const { input } = args;
  const workspaceId = input.workspaceId ?? undefined;
  if (workspaceId !== undefined) requireWorkspace(context, workspaceId);
  checkPolicy(input);
  const existing = await findPolicyResource(context, input.name, workspaceId);
  const resource: CachePolicyResource = {
    apiVersion: API_VERSION,
    kind: 'CachePolicy',
    metadata: {
      name: existing?.metadata.name ?? policyObjectName(input.name, workspaceId),
      namespace: tenantNamespace(context.tenantId),
    },
    spec: {
      policyName: input.name,
      ...(workspaceId === undefined ? {} : { workspace: workspaceId }),
      ...(input.ttlSeconds == null ? {} : { ttlSeconds: input.ttlSeconds }),
      ...(input.swrSeconds == null ? {} : { swrSeconds: input.swrSeconds }),
      ...(input.maxTtlSeconds == null ? {} : { maxTtlSeconds: input.maxTtlSeconds }),
      ...(input.defaultTags == null ? {} : { defaultTags: input.defaultTags }),
      ...(input.semantic == null ? {} : { semantic: input.semantic }),
    },
  };
  await context.services.resources.apply(resource).catch(asValidation);
  // In force on the gateway: the view holds exactly the record the reconcile step makes of it
  // (fields left out reset to their defaults, which must be in force too).
  const desired = desiredCachePolicyRecord(resource);
  if (!desired.ok) throw validationError(desired.problem.message);
  await context.services.awaitConfig('cachePolicy', desired.id, (record) =>
    isDeepStrictEqual(record, desired.record),
  );
  return present(policyById(context, desired.id)!);
}

async function deleteCachePolicy(
  _parent: unknown,
  args: { name: string; workspaceId?: string | null },
  context: ResolverContext,
) {
  requirePermission(context, 'cache:manage');
  const workspaceId = args.workspaceId ?? undefined;
  const id = cachePolicyId(context.tenantId, workspaceId, args.name);
  const resource = await findPolicyResource(context, args.name, workspaceId);
  if (resource === undefined) throw notFound(`no cache policy '${args.name}' in that scope`);
  await context.services.resources.delete(
    'CachePolicy',
    resource.metadata.name,
    tenantNamespace(context.tenantId),
  );
  await context.services.awaitConfig('cachePolicy', id, (record) => record === undefined);
  return true;
}

async function revalidateCacheTags(
  _parent: unknown,
  args: { workspaceId: string; tags: string[] },
  context: ResolverContext,
) {
  requirePermission(context, 'cache:manage');
  requireWorkspace(context, args.workspaceId);
  if (args.tags.length === 0) throw validationError('tags must contain at least one tag');
  if (args.tags.length > MAX_REVALIDATE_TAGS) {
    throw validationError(`tags allows at most ${MAX_REVALIDATE_TAGS} tags, got ${args.tags.length}`);
  }
  for (const tag of args.tags) {
    if (!TAG_PATTERN.test(tag)) {
      throw validationError(
        `tag '${tag.slice(0, 64)}' must be lowercase letters, digits, '.', '_', '-' or ':', starting with a letter or digit`,
      );
    }
  }
  const tags = [...new Set(args.tags)];
  await context.services.runtime.invalidateCacheTags(
    cacheScopeId(context.tenantId, args.workspaceId),
    tags,
    Date.now(),
  );
  return { invalidated: tags.length };
}

async function purgeGatewayCache(
  _parent: unknown,
  args: { workspaceId: string; namespace?: string | null },
  context: ResolverContext,
) {
  requirePermission(context, 'cache:manage');
  requireWorkspace(context, args.workspaceId);
  if (args.namespace != null && (args.namespace === '' || args.namespace.length > 256)) {
    throw validationError('namespace must be 1 to 256 characters');
  }
  const generation = await context.services.runtime.purgeCache(
    cacheScopeId(context.tenantId, args.workspaceId),
    args.namespace ?? undefined,
  );
  return { purged: true, generation };
}

export const cacheResolvers = {
  Query: {
    cachePolicies: (_parent: unknown, args: { workspaceId?: string | null }, context: ResolverContext) => {
      requirePermission(context, 'cache:manage');
      return context.services.view
        .list('cachePolicy')
        .filter(
          (policy) =>
            policy.tenantId === context.tenantId &&
            (!args.workspaceId ||
              policy.workspaceId === undefined ||
              policy.workspaceId === args.workspaceId),
        )
        .map(present);
    },
  },
  Mutation: {
    upsertCachePolicy: audited(
      'upsertCachePolicy',
      (args: { input: PolicyInput }) => `${args.input.workspaceId ?? '*'}/${args.input.name}`,
      upsertCachePolicy,
    ),
    deleteCachePolicy: audited(
      'deleteCachePolicy',
      (args: { name: string; workspaceId?: string | null }) => `${args.workspaceId ?? '*'}/${args.name}`,
      deleteCachePolicy,
    ),
    revalidateCacheTags: audited(
      'revalidateCacheTags',
      (args: { workspaceId: string; tags: string[] }) => `${args.workspaceId}:${args.tags.join(',')}`,
      revalidateCacheTags,
    ),
    purgeGatewayCache: audited(
      'purgeGatewayCache',
      (args: { workspaceId: string; namespace?: string | null }) =>
        `${args.workspaceId}${args.namespace ? `/${args.namespace}` : ''}`,
      purgeGatewayCache,
    ),
  },
};

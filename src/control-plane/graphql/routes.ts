/**
 * Model routes on the control plane: ModelRoute resources written through the resources interface
 * (Kubernetes, or standalone's local resources) and in force on the gateway when the mutation
 * returns. Checked before the write with the rules the CRD and the reconcile step apply (a target's
 * provider, its Connection, `shared` only in the platform tenant), so that what cannot be published
 * is a VALIDATION_ERROR instead of a wait. Permission `credentials:manage`: a route decides which
 * provider credentials serve a model name, as a Connection does.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { PROVIDERS } from '../../providers/registry.ts';
import type { ModelRouteSpec } from '../../resources/crd-types.ts';
import { desiredModelRouteRecord } from '../../resources/model-route-record.ts';
import { API_VERSION, type ModelRouteResource, tenantNamespace } from '../../resources/types.ts';
import { validateResource } from '../../resources/validate.ts';
import { type ModelRouteRecord, modelRouteId, type RouteRetryCondition } from '../../stores/records.ts';
import { audited } from './audit.ts';
import {
  asValidation,
  notFound,
  type ResolverContext,
  requirePermission,
  requireWorkspace,
  validationError,
} from './context.ts';

export const routeTypeDefs = /* GraphQL */ `
  "How a target is picked within a priority tier."
  enum ModelRouteStrategy {
    "By weight."
    weighted
    "The target with the fewest requests in flight on the gateway pod (ties by weight)."
    leastBusy
  }

  "What an attempt is retried on, on another target."
  enum RouteRetryCondition {
    "429"
    rateLimited
    "500, 502, 503, 504, 529"
    serverError
    "No first byte within firstByteTimeoutMs."
    timeout
    "Connection refused or reset before an answer."
    connectError
  }

  type ModelRouteTarget {
    "provider/model or @slug/model."
    model: String!
    weight: Int!
    "The tier: lowest first; a higher tier is a fallback."
    priority: Int!
  }

  type ModelRouteRetry {
    "Attempts in all, across targets, the first included."
    maxAttempts: Int!
    on: [RouteRetryCondition!]!
    backoffMs: Int!
    "Retry-After is honoured up to this."
    maxBackoffMs: Int!
  }

  type ModelRouteCircuitBreaker {
    consecutiveFailures: Int!
    openSeconds: Int!
  }

  "One model name that stands for several targets (every default filled in)."
  type ModelRoute {
    "The name clients send as model."
    model: String!
    "Absent: tenant-wide."
    workspaceId: String
    strategy: ModelRouteStrategy!
    targets: [ModelRouteTarget!]!
    retry: ModelRouteRetry!
    "Per attempt."
    firstByteTimeoutMs: Int!
    circuitBreaker: ModelRouteCircuitBreaker!
    "Serves every tenant without a route of this model (platform tenant only)."
    shared: Boolean!
  }

  input ModelRouteTargetInput {
    "provider/model or @slug/model; never a route's name."
    model: String!
    "0..1000; default 1."
    weight: Int
    "0..100; default 0."
    priority: Int
  }

  input ModelRouteRetryInput {
    "1..10; default 3."
    maxAttempts: Int
    "Default: all four."
    on: [RouteRetryCondition!]
    "0..60000; default 100."
    backoffMs: Int
    "0..60000; default 2000."
    maxBackoffMs: Int
  }

  input ModelRouteCircuitBreakerInput {
    "1..100; default 5."
    consecutiveFailures: Int
    "1..3600; default 30."
    openSeconds: Int
  }

  "A whole route: fields left out take their defaults."
  input ModelRouteInput {
    "Letters, digits, '.', '_', ':' and '-' (no '/')."
    model: String!
    "Absent: the route is tenant-wide (a workspace route of the same model wins)."
    workspaceId: String
    "Default weighted."
    strategy: ModelRouteStrategy
    "1 to 16 targets."
    targets: [ModelRouteTargetInput!]!
    retry: ModelRouteRetryInput
    "1..600000; default 30000."
    firstByteTimeoutMs: Int
    circuitBreaker: ModelRouteCircuitBreakerInput
    "Platform tenant only, tenant-wide, platform models only."
    shared: Boolean
  }

  type Query {
    "The tenant's model routes; with workspaceId, that workspace's and the tenant-wide ones."
    modelRoutes(workspaceId: String): [ModelRoute!]!
  }

  type Mutation {
    upsertModelRoute(input: ModelRouteInput!): ModelRoute!
    deleteModelRoute(model: String!, workspaceId: String): Boolean!
  }
`;

interface RouteInput {
  model: string;
  workspaceId?: string | null;
  strategy?: 'weighted' | 'leastBusy' | null;
  targets: { model: string; weight?: number | null; priority?: number | null }[];
  retry?: {
    maxAttempts?: number | null;
    on?: RouteRetryCondition[] | null;
    backoffMs?: number | null;
    maxBackoffMs?: number | null;
  } | null;
  firstByteTimeoutMs?: number | null;
  circuitBreaker?: { consecutiveFailures?: number | null; openSeconds?: number | null } | null;
  shared?: boolean | null;
}

const PROVIDER_NAMES = [...PROVIDERS.keys()];

/** The given fields of a GraphQL input object (null and absent both mean "default"). */
function given<T extends object>(fields: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value != null)) as never;
}

function specOf(input: RouteInput): ModelRouteSpec {
  const { workspaceId, retry, circuitBreaker, targets, ...rest } = given(input);
  return {
    ...rest,
    ...(workspaceId === undefined ? {} : { workspace: workspaceId }),
    targets: targets.map((target) => given(target)),
    ...(retry === undefined ? {} : { retry: given(retry) }),
    ...(circuitBreaker === undefined ? {} : { circuitBreaker: given(circuitBreaker) }),
  };
}

/**
 * Object name of a route: its model as a DNS label (models may hold capitals, dots and colons)
 * plus a digest of model and scope, so that neither two models nor two scopes collide.
 */
export function routeObjectName(model: string, workspaceId: string | undefined): string {
  const readable =
    model
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+/, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'route';
  const digest = createHash('sha256')
    .update(`${workspaceId ?? '*'}/${model}`)
    .digest('hex')
    .slice(0, 8);
  return `${readable}-${digest}`;
}

/** The CRD's messages in the API's own terms: `targets[0].model`, `workspaceId`. */
function inputTerms(message: string): string {
  return message.replaceAll('spec.workspace', 'workspaceId').replaceAll('spec.', '');
}

function present(route: ModelRouteRecord) {
  return {
    model: route.model,
    workspaceId: route.workspaceId ?? null,
    strategy: route.strategy,
    targets: route.targets,
    retry: route.retry,
    firstByteTimeoutMs: route.firstByteTimeoutMs,
    circuitBreaker: route.circuitBreaker,
    shared: route.shared,
  };
}

/**
 * The ModelRoute resource that defines this model at this scope, whatever its object name: one
 * applied with kubectl is updated and deleted like one this API created.
 */
async function findRouteResource(
  context: ResolverContext,
  model: string,
  workspaceId: string | undefined,
): Promise<ModelRouteResource | undefined> {
  const routes = await context.services.resources.list('ModelRoute', tenantNamespace(context.tenantId));
  return routes.find(
    (route) => (route.spec.model ?? route.metadata.name) === model && route.spec.workspace === workspaceId,
  );
}

async function upsertModelRoute(_parent: unknown, args: { input: RouteInput }, context: ResolverContext) {
  requirePermission(context, 'credentials:manage');
  const { input } = args;
  const workspaceId = input.workspaceId ?? undefined;
  if (workspaceId !== undefined) requireWorkspace(context, workspaceId);
  const { services, tenantId } = context;
  const existing = await findRouteResource(context, input.model, workspaceId);
  const resource: ModelRouteResource = {
    apiVersion: API_VERSION,
    kind: 'ModelRoute',
    metadata: {
      name: existing?.metadata.name ?? routeObjectName(input.model, workspaceId),
      namespace: tenantNamespace(tenantId),
    },
    spec: specOf(input),
  };
  const messages = validateResource(resource);
  if (messages.length > 0) throw validationError(messages.map(inputTerms).join('; '));
  const desired = desiredModelRouteRecord(resource, {
    tenant: services.view.tenant(tenantId),
    platformTenant: services.platformTenant,
    providers: PROVIDER_NAMES,
    connectionOf: (slug) => services.view.connectionBySlug(tenantId, slug),
  });
  if (!desired.ok) throw validationError(inputTerms(desired.problem.message));
  await services.resources.apply(resource).catch(asValidation);
  // In force on the gateway: the view holds exactly the record the reconcile step makes of it.
  await services.awaitConfig('modelRoute', desired.id, (record) => isDeepStrictEqual(record, desired.record));
  return present(desired.record);
}

async function deleteModelRoute(
  _parent: unknown,
  args: { model: string; workspaceId?: string | null },
  context: ResolverContext,
) {
  requirePermission(context, 'credentials:manage');
  const workspaceId = args.workspaceId ?? undefined;
  const resource = await findRouteResource(context, args.model, workspaceId);
  if (resource === undefined) throw notFound(`no model route '${args.model.slice(0, 128)}' in that scope`);
  await context.services.resources.delete(
    'ModelRoute',
    resource.metadata.name,
    tenantNamespace(context.tenantId),
  );
  const id = modelRouteId(context.tenantId, workspaceId, args.model);
  await context.services.awaitConfig('modelRoute', id, (record) => record === undefined);
  return true;
}

const scopeOf = (workspaceId: string | null | undefined, model: string) =>
  `${workspaceId ?? '*'}/${model.slice(0, 128)}`;

export const routeResolvers = {
  Query: {
    modelRoutes: (_parent: unknown, args: { workspaceId?: string | null }, context: ResolverContext) => {
      requirePermission(context, 'credentials:manage');
      return context.services.view
        .list('modelRoute')
        .filter(
          (route) =>
            route.tenantId === context.tenantId &&
            (!args.workspaceId || route.workspaceId === undefined || route.workspaceId === args.workspaceId),
        )
        .map(present);
    },
  },
  Mutation: {
    upsertModelRoute: audited(
      'upsertModelRoute',
      (args: { input: RouteInput }) => scopeOf(args.input.workspaceId, args.input.model),
      upsertModelRoute,
    ),
    deleteModelRoute: audited(
      'deleteModelRoute',
      (args: { model: string; workspaceId?: string | null }) => scopeOf(args.workspaceId, args.model),
      deleteModelRoute,
    ),
  },
};

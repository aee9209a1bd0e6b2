/**
 * A ModelRoute's config store record: every default filled in, and the checks that need more than
 * the object (validate-model-route.ts has those that do not): the provider of a `provider/model`
 * target is one the gateway knows, the Connection of an `@slug/model` target is published and
 * serves the route's scope, and `shared` is claimed only by the platform tenant. Pure; shared by
 * the operator, standalone's reconcile and the control plane (which answers with the same problem
 * before it writes).
 */
import type {
  ConnectionRecord,
  ModelRouteRecord,
  RouteRetryCondition,
  TenantRecord,
} from '../stores/records.ts';
import { modelRouteId } from '../stores/records.ts';
import {
  checkScope,
  type DesiredConfigProblem,
  type DesiredRecord,
  problemOf,
  tenantIdOfNamespace,
  withoutUndefined,
} from './desired-records.ts';
import { type ModelRouteResource, tenantNamespace } from './types.ts';
import { ROUTE_RETRY_CONDITIONS } from './validate-model-route.ts';

export const MODEL_ROUTE_DEFAULTS = {
  strategy: 'weighted',
  weight: 1,
  priority: 0,
  retry: { maxAttempts: 3, on: ROUTE_RETRY_CONDITIONS, backoffMs: 100, maxBackoffMs: 2000 },
  firstByteTimeoutMs: 30_000,
  circuitBreaker: { consecutiveFailures: 5, openSeconds: 30 },
} as const;

/** What a route's targets are checked against. */
export interface ModelRouteChecks {
  /** The tenant of the route's namespace (its workspaces are checked), when known. */
  tenant?: TenantRecord;
  /** The platform's own tenant (PLATFORM_TENANT): the only one whose routes may be `shared`. */
  platformTenant?: string;
  /** The provider names of `provider/model` the gateway routes (its registry); absent: not checked. */
  providers?: readonly string[];
  /** The tenant's published Connection of a slug; absent: Connections are not checked. */
  connectionOf?: (slug: string) => ConnectionRecord | undefined;
}

/** The route's record with every default filled in (the spec is valid: validate-model-route.ts). */
export function modelRouteRecordOf(route: ModelRouteResource, tenantId: string): ModelRouteRecord {
  const { spec } = route;
  const defaults = MODEL_ROUTE_DEFAULTS;
  const given = spec.retry ?? {};
  const on = new Set<RouteRetryCondition>(given.on ?? defaults.retry.on);
  // Of the two waits, a given one bounds the default of the other (backoff <= maxBackoff).
  const maxBackoffMs = given.maxBackoffMs ?? Math.max(defaults.retry.maxBackoffMs, given.backoffMs ?? 0);
  return withoutUndefined({
    v: 1,
    tenantId,
    workspaceId: spec.workspace,
    model: spec.model ?? route.metadata.name,
    strategy: spec.strategy ?? defaults.strategy,
    targets: spec.targets.map((target) => ({
      model: target.model,
      weight: target.weight ?? defaults.weight,
      priority: target.priority ?? defaults.priority,
    })),
    retry: {
      maxAttempts: given.maxAttempts ?? defaults.retry.maxAttempts,
      // In one order whatever the spec's, so that equal routes make equal records.
      on: ROUTE_RETRY_CONDITIONS.filter((condition) => on.has(condition)),
      backoffMs: given.backoffMs ?? Math.min(defaults.retry.backoffMs, maxBackoffMs),
      maxBackoffMs,
    },
    firstByteTimeoutMs: spec.firstByteTimeoutMs ?? defaults.firstByteTimeoutMs,
    circuitBreaker: {
      consecutiveFailures:
        spec.circuitBreaker?.consecutiveFailures ?? defaults.circuitBreaker.consecutiveFailures,
      openSeconds: spec.circuitBreaker?.openSeconds ?? defaults.circuitBreaker.openSeconds,
    },
    shared: spec.shared ?? false,
  });
}

/** Why a target cannot be served for this route, or undefined. */
function targetProblem(
  route: ModelRouteResource,
  record: ModelRouteRecord,
  target: string,
  checks: ModelRouteChecks,
): DesiredConfigProblem | undefined {
  const slash = target.indexOf('/');
  const prefix = target.slice(0, slash);
  if (!prefix.startsWith('@')) {
    if (checks.providers === undefined || checks.providers.includes(prefix)) return undefined;
    const message = `target '${target}' names provider '${prefix}', which the gateway does not know (known: ${checks.providers.join(', ')})`;
    return problemOf(route, 'UnknownProvider', message);
  }
  if (checks.connectionOf === undefined) return undefined;
  const slug = prefix.slice(1);
  const connection = checks.connectionOf(slug);
  if (connection === undefined) {
    const message = `target '${target}' names Connection '${slug}', which tenant ${record.tenantId} does not have (or which is not Ready)`;
    return problemOf(route, 'ConnectionNotFound', message);
  }
  if (connection.workspaceId !== undefined && connection.workspaceId !== record.workspaceId) {
    const scope = record.workspaceId === undefined ? 'the whole tenant' : `workspace ${record.workspaceId}`;
    const message = `target '${target}' names Connection '${slug}', which serves only workspace ${connection.workspaceId}, and the route serves ${scope}`;
    return problemOf(route, 'ConnectionOutOfScope', message);
  }
  return undefined;
}

/**
 * The ModelRoute's record, or the first reason it cannot be published: an unknown tenant or
 * workspace, `shared` outside the platform tenant, a target's unknown provider or missing
 * Connection (condition reasons UnknownTenant, UnknownWorkspace, SharedOutsidePlatform,
 * UnknownProvider, ConnectionNotFound, ConnectionOutOfScope).
 */
export function desiredModelRouteRecord(
  route: ModelRouteResource,
  checks: ModelRouteChecks,
): DesiredRecord<ModelRouteRecord> {
  const scopeProblem = checkScope(route, route.spec.workspace, checks.tenant);
  if (scopeProblem) return { ok: false, problem: scopeProblem };
  const tenantId = tenantIdOfNamespace(route.metadata.namespace) as string;
  const record = modelRouteRecordOf(route, tenantId);
  if (record.shared && tenantId !== checks.platformTenant) {
    const where = checks.platformTenant
      ? `only in the platform tenant's namespace (${tenantNamespace(checks.platformTenant)})`
      : 'in no namespace (no platform tenant is configured)';
    const message = `shared: true is honoured ${where}; the route is not published`;
    return { ok: false, problem: problemOf(route, 'SharedOutsidePlatform', message) };
  }
  for (const target of record.targets) {
    const problem = targetProblem(route, record, target.model, checks);
    if (problem) return { ok: false, problem };
  }
  return { ok: true, id: modelRouteId(tenantId, record.workspaceId, record.model), record };
}

/**
 * The rules of a ModelRoute's spec, as crds/gateway.service.io_modelroutes.yaml states them in its
 * schema and CEL (same limits, same messages), for standalone and the control plane. What needs
 * other objects (providers, Connections, the platform tenant) is checked at reconcile time
 * (model-route-record.ts).
 */
import type { RouteRetryCondition } from '../stores/records.ts';
import { type Checker, type Fields, isObject } from './resource-checker.ts';

/**
 * A route's model: what clients send. Never a `/` (nor an `@`): a target always holds one, so no
 * route's target can be another route (no chains), whatever the routes of any tenant are.
 */
export const ROUTE_MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
export const ROUTE_MODEL_MAX = 128;
/** A target: `provider/model` or `@slug/model`, the model part printable ASCII without spaces. */
export const ROUTE_TARGET_PATTERN = /^(@[a-z0-9][a-z0-9-]{0,62}|[a-z0-9][a-z0-9-]{0,62})\/[!-~]+$/;
export const ROUTE_TARGET_MAX = 320;
export const ROUTE_STRATEGIES = ['weighted', 'leastBusy'] as const;
export const ROUTE_RETRY_CONDITIONS: readonly RouteRetryCondition[] = [
  'rateLimited',
  'serverError',
  'timeout',
  'connectError',
];

/** The integer limits of the CRD's rules (crd-types.test.ts checks the YAML states the same). */
export const MODEL_ROUTE_LIMITS = {
  targets: { min: 1, max: 16 },
  weight: { min: 0, max: 1000 },
  priority: { min: 0, max: 100 },
  maxAttempts: { min: 1, max: 10 },
  backoffMs: { min: 0, max: 60_000 },
  maxBackoffMs: { min: 0, max: 60_000 },
  firstByteTimeoutMs: { min: 1, max: 600_000 },
  consecutiveFailures: { min: 1, max: 100 },
  openSeconds: { min: 1, max: 3600 },
} as const;

type Limit = keyof typeof MODEL_ROUTE_LIMITS;

function limited(check: Checker, value: unknown, path: string, limit: Limit): void {
  const { min, max } = MODEL_ROUTE_LIMITS[limit];
  check.integer(value, path, min, max);
}

function checkTargets(check: Checker, targets: unknown, shared: boolean): void {
  if (!check.present(targets, 'spec.targets')) return;
  if (!Array.isArray(targets)) {
    check.fail('spec.targets must be a list');
    return;
  }
  if (targets.length < MODEL_ROUTE_LIMITS.targets.min)
    check.fail('spec.targets must have at least one target');
  if (targets.length > MODEL_ROUTE_LIMITS.targets.max) {
    check.fail(`spec.targets must have at most ${MODEL_ROUTE_LIMITS.targets.max} targets`);
  }
  const models = new Set<unknown>();
  /** Per priority: whether some target of it has a weight above 0. */
  const tiers = new Map<number, boolean>();
  let repeated = false;
  let connection = false;
  targets.forEach((target: unknown, index) => {
    const path = `spec.targets[${index}]`;
    if (!isObject(target)) {
      check.fail(`${path} must be an object with a model`);
      return;
    }
    if (check.present(target.model, `${path}.model`)) checkTarget(check, target.model, path);
    if (models.has(target.model)) repeated = true;
    models.add(target.model);
    if (typeof target.model === 'string' && target.model.startsWith('@')) connection = true;
    limited(check, target.weight, `${path}.weight`, 'weight');
    limited(check, target.priority, `${path}.priority`, 'priority');
    const priority = typeof target.priority === 'number' ? target.priority : 0;
    const weight = typeof target.weight === 'number' ? target.weight : 1;
    tiers.set(priority, (tiers.get(priority) ?? false) || weight > 0);
  });
  if (repeated) check.fail('spec.targets must not name one model twice');
  if (shared && connection) {
    check.fail(
      'a spec.shared route may target only platform models (provider/model), never a Connection (@slug/model)',
    );
  }
  if ([...tiers.values()].includes(false)) {
    check.fail('every priority of spec.targets must have a target with weight > 0');
  }
}

function checkTarget(check: Checker, model: unknown, path: string): void {
  const rule =
    'be provider/model or @connection/model (a bare name could be a route, and a route never targets a route)';
  if (!check.string(model, `${path}.model`, ROUTE_TARGET_PATTERN, rule)) return;
  if (model.length > ROUTE_TARGET_MAX)
    check.fail(`${path}.model must be at most ${ROUTE_TARGET_MAX} characters`);
}

function checkRetry(check: Checker, retry: unknown): void {
  if (retry === undefined) return;
  if (!isObject(retry)) {
    check.fail('spec.retry must be an object');
    return;
  }
  limited(check, retry.maxAttempts, 'spec.retry.maxAttempts', 'maxAttempts');
  const backoff = check.integer(retry.backoffMs, 'spec.retry.backoffMs', 0, MODEL_ROUTE_LIMITS.backoffMs.max);
  const maxBackoff = check.integer(
    retry.maxBackoffMs,
    'spec.retry.maxBackoffMs',
    0,
    MODEL_ROUTE_LIMITS.maxBackoffMs.max,
  );
  if (backoff && maxBackoff && (retry.backoffMs as number) > (retry.maxBackoffMs as number)) {
    check.fail('spec.retry.backoffMs must be <= spec.retry.maxBackoffMs');
  }
  if (retry.on === undefined) return;
  if (!Array.isArray(retry.on)) {
    check.fail('spec.retry.on must be a list');
    return;
  }
  const seen = new Set<unknown>();
  retry.on.forEach((condition: unknown, index) => {
    if (!(ROUTE_RETRY_CONDITIONS as readonly unknown[]).includes(condition)) {
      check.fail(`spec.retry.on[${index}] must be one of ${ROUTE_RETRY_CONDITIONS.join(', ')}`);
    } else if (seen.has(condition)) {
      check.fail(`spec.retry.on[${index}]: duplicate value '${String(condition)}'`);
    }
    seen.add(condition);
  });
}

function checkCircuitBreaker(check: Checker, breaker: unknown): void {
  if (breaker === undefined) return;
  if (!isObject(breaker)) {
    check.fail('spec.circuitBreaker must be an object');
    return;
  }
  limited(
    check,
    breaker.consecutiveFailures,
    'spec.circuitBreaker.consecutiveFailures',
    'consecutiveFailures',
  );
  limited(check, breaker.openSeconds, 'spec.circuitBreaker.openSeconds', 'openSeconds');
}

export function checkModelRouteSpec(check: Checker, spec: Fields): void {
  const rule =
    "be a route name: letters, digits, '.', '_', ':' and '-', starting with a letter or digit (no '/': a route is never a target)";
  if (
    check.string(spec.model, 'spec.model', ROUTE_MODEL_PATTERN, rule) &&
    spec.model.length > ROUTE_MODEL_MAX
  ) {
    check.fail(`spec.model must be at most ${ROUTE_MODEL_MAX} characters`);
  }
  check.slug(spec.workspace, 'spec.workspace');
  if (spec.strategy !== undefined && !(ROUTE_STRATEGIES as readonly unknown[]).includes(spec.strategy)) {
    check.fail(`spec.strategy must be one of ${ROUTE_STRATEGIES.join(', ')}`);
  }
  check.boolean(spec.shared, 'spec.shared');
  const shared = spec.shared === true;
  if (shared && spec.workspace !== undefined) {
    check.fail('a spec.shared route is tenant-wide; spec.workspace must be absent');
  }
  checkTargets(check, spec.targets, shared);
  checkRetry(check, spec.retry);
  limited(check, spec.firstByteTimeoutMs, 'spec.firstByteTimeoutMs', 'firstByteTimeoutMs');
  checkCircuitBreaker(check, spec.circuitBreaker);
}

/**
 * The control plane's Prometheus metrics, at /metrics on its own port: requests, their latency and
 * their errors, by endpoint and GraphQL operation. Every label takes values from a fixed set: the
 * routes below, the operation types, the schemas' root field names (control-plane/graphql/
 * operation-label.ts), status classes and the error codes listed here; never a tenant, a name or
 * an operation name the caller chose.
 */
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** The `route` label: the control plane's endpoints, everything else (unknown paths) as `other`. */
export const CONTROL_PLANE_ROUTES: ReadonlySet<string> = new Set([
  '/graphql',
  '/admin/graphql',
  '/provision/tenant',
  '/auth/org/create',
]);

/** The `code` label: the codes the control plane answers with (`extensions.code`, REST `error.code`). */
export const CONTROL_PLANE_ERROR_CODES: ReadonlySet<string> = new Set([
  'BAD_REQUEST',
  'BAD_USER_INPUT',
  'CONFLICT',
  'FORBIDDEN',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'INTERNAL_SERVER_ERROR',
  'NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'TENANT_SUSPENDED',
  'UNAUTHENTICATED',
  'VALIDATION_ERROR',
]);

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type OperationLabels = 'route' | 'operation_type' | 'operation';

export interface ControlPlaneMetrics {
  registry: Registry;
  requests: Counter<OperationLabels | 'status'>;
  requestSeconds: Histogram<OperationLabels>;
  errors: Counter<OperationLabels | 'code'>;
}

/**
 * `withDefaults`: Node's process metrics as `gateway_controlplane_process_*` (the control-plane
 * role); standalone leaves them to the gateway's registry, in the same process.
 */
export function createControlPlaneMetrics(
  registry = new Registry(),
  withDefaults = true,
): ControlPlaneMetrics {
  if (withDefaults) collectDefaultMetrics({ register: registry, prefix: 'gateway_controlplane_process_' });
  return {
    registry,
    requests: new Counter({
      name: 'gateway_controlplane_requests_total',
      help: 'Control-plane requests by route, GraphQL operation type and root field (none: REST), and status class (2xx, 4xx, 5xx)',
      labelNames: ['route', 'operation_type', 'operation', 'status'],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: 'gateway_controlplane_request_duration_seconds',
      help: 'Control-plane requests from arrival to the last byte of the answer, by route and operation',
      labelNames: ['route', 'operation_type', 'operation'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    errors: new Counter({
      name: 'gateway_controlplane_errors_total',
      help: 'Control-plane answers that carried an error, by route, operation and code (GraphQL extensions.code or the REST error code; each code once per request)',
      labelNames: ['route', 'operation_type', 'operation', 'code'],
      registers: [registry],
    }),
  };
}

/**
 * What each control-plane request leaves behind: its metrics (control-plane-metrics.ts) and, when
 * tracing is on, its server span, both carrying what the request did as bounded labels: the
 * endpoint, the GraphQL operation (graphql/operation-label.ts) and the error codes answered. The
 * handlers and error renderers note these on the request; the hooks here read them once answered.
 * Health, readiness and metrics scrapes are neither counted nor traced.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  CONTROL_PLANE_ERROR_CODES,
  CONTROL_PLANE_ROUTES,
  type ControlPlaneMetrics,
} from '../observability/control-plane-metrics.ts';
import '../observability/request-observer.ts';
import { extractContext, RequestTrace, type Tracing } from '../observability/tracing.ts';
import type { OperationLabel } from './graphql/operation-label.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The GraphQL operation the request ran, once its document was found valid. */
    controlPlaneOperation?: OperationLabel;
    /** The error codes answered (as metric labels), each once. */
    controlPlaneErrors?: string[];
  }
}

/** A GraphQL request refused before its document was valid (no body, a parse error, limits). */
const UNPARSED: OperationLabel = Object.freeze({ type: 'unknown', name: 'other' });
/** The REST endpoints and unknown paths: the route says it all. */
const NOT_GRAPHQL: OperationLabel = Object.freeze({ type: 'none', name: 'none' });
const UNOBSERVED: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

/** Notes error codes answered; codes outside the known set count as `other`. */
export function noteErrorCodes(request: FastifyRequest, codes: Iterable<unknown>): void {
  const noted = request.controlPlaneErrors ?? [];
  for (const code of codes) {
    const label = typeof code === 'string' && CONTROL_PLANE_ERROR_CODES.has(code) ? code : 'other';
    if (!noted.includes(label)) noted.push(label);
  }
  if (noted.length > 0) request.controlPlaneErrors = noted;
}

/** Notes the codes (`extensions.code`) of a GraphQL answer's errors. */
export function noteGraphQLErrors(
  request: FastifyRequest,
  errors: readonly { extensions?: { code?: unknown } | undefined }[] | undefined,
): void {
  if (errors !== undefined && errors.length > 0)
    noteErrorCodes(
      request,
      errors.map((error) => error.extensions?.code),
    );
}

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

export function registerRequestObservation(
  app: FastifyInstance,
  options: { metrics: ControlPlaneMetrics; tracing: Tracing | undefined },
): void {
  const { metrics, tracing } = options;
  app.decorateRequest('controlPlaneOperation', undefined);
  app.decorateRequest('controlPlaneErrors', undefined);
  app.decorateRequest('trace', undefined);
  // A server span per request, parented by the caller's traceparent.
  if (tracing?.enabled === true) {
    app.addHook('onRequest', (request, _reply, done) => {
      const route = request.routeOptions.url;
      if (route === undefined || UNOBSERVED.has(route)) return done();
      request.trace = new RequestTrace(
        tracing.tracer,
        `${request.method} ${route}`,
        extractContext(request.headers as Record<string, unknown>),
        { 'http.request.method': request.method, 'http.route': route, 'gateway.request.id': request.id },
      );
      done();
    });
  }
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.routeOptions.url;
    if (url !== undefined && UNOBSERVED.has(url)) return done();
    const route = url !== undefined && CONTROL_PLANE_ROUTES.has(url) ? url : 'other';
    const operation = request.controlPlaneOperation ?? (route.endsWith('/graphql') ? UNPARSED : NOT_GRAPHQL);
    const labels = { route, operation_type: operation.type, operation: operation.name };
    const status = reply.statusCode;
    metrics.requests.inc({ ...labels, status: statusClass(status) });
    metrics.requestSeconds.observe(labels, reply.elapsedTime / 1000);
    for (const code of request.controlPlaneErrors ?? []) metrics.errors.inc({ ...labels, code });
    const requestTrace = request.trace;
    if (requestTrace !== undefined) {
      request.trace = undefined;
      requestTrace.span.setAttribute('http.response.status_code', status);
      const errorCode = request.controlPlaneErrors?.[0];
      if (errorCode !== undefined) requestTrace.span.setAttribute('error.type', errorCode);
      if (status >= 500) requestTrace.span.setStatus({ code: SpanStatusCode.ERROR });
      requestTrace.span.end();
    }
    done();
  });
}

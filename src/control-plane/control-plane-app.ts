/**
 * The control plane's fastify app: `POST /graphql` (Bearer PAT), `POST /admin/graphql` (Bearer
 * platform-admin PAT), `POST /provision/tenant` (Bearer provisioning key), `POST /auth/org/create`
 * (anonymous), health, readiness and metrics. Every answer carries the request's id
 * (`x-request-id`), and so does every error: `extensions.request_id` on GraphQL errors, `request_id`
 * in the REST envelope.
 */
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { ExecutionResult, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { hashCredential } from '../auth/credential-hash.ts';
import { PAT_PREFIX } from '../auth/credential-prefixes.ts';
import { lazySchemaController } from '../config/fastify-schema-compilers.ts';
import type { TenancySettings } from '../config/tenancy-settings.ts';
import {
  type ControlPlaneMetrics,
  createControlPlaneMetrics,
} from '../observability/control-plane-metrics.ts';
import { DRAINING_BODY, registerDrain } from '../observability/drain.ts';
import type { Logger } from '../observability/logger.ts';
import { registerRequestIdHeader, requestIdOf } from '../observability/request-id.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { PatRecord } from '../stores/records.ts';
import { AbuseLimiter } from './abuse-limits.ts';
import type { ControlPlaneServices } from './graphql/context.ts';
import type { ExecutionLimits, GraphQLRequestBody } from './graphql/execute.ts';
import { organizationRoutes } from './organizations.ts';
import { provisioningRoutes } from './provisioning.ts';
import { noteErrorCodes, noteGraphQLErrors, registerRequestObservation } from './request-observation.ts';
import { answerFrameworkError, answerNotFound } from './rest-errors.ts';

export interface ControlPlaneDeps {
  log: Logger;
  /** OpenTelemetry traces: a server span per request when on. */
  tracing?: Tracing;
  /** Served at /metrics; default: a registry of its own, with Node's process metrics. */
  metrics?: ControlPlaneMetrics;
  isReady(): Promise<boolean>;
  services: ControlPlaneServices;
  tenancy: TenancySettings;
  limits?: Partial<ExecutionLimits>;
  /**
   * Load graphql and build the schemas with the first GraphQL request rather than at start (about
   * 12 MiB of RSS a process that never serves one does not hold): the standalone's choice. The
   * control-plane role builds them at start, so that its first request does not wait for them.
   */
  graphqlOnFirstRequest?: boolean;
}

/** The GraphQL side of the control plane: both schemas and the executor. */
interface GraphQLRuntime {
  tenant: GraphQLSchema;
  admin: GraphQLSchema;
  limits: ExecutionLimits;
  execute: typeof import('./graphql/execute.ts').executeGraphQL;
}

async function loadGraphQL(limits: Partial<ExecutionLimits> | undefined): Promise<GraphQLRuntime> {
  const [{ buildControlPlaneSchema }, { buildAdminSchema }, { DEFAULT_LIMITS, executeGraphQL }] =
    await Promise.all([
      import('./graphql/schema.ts'),
      import('./graphql/admin.ts'),
      import('./graphql/execute.ts'),
    ]);
  return {
    tenant: buildControlPlaneSchema(),
    admin: buildAdminSchema(),
    limits: { ...DEFAULT_LIMITS, ...limits },
    execute: executeGraphQL,
  };
}

function graphqlError(message: string, code: string): ExecutionResult {
  return { errors: [{ message, extensions: { code } } as never] };
}

/** The answer with the request's id on each of its errors (`extensions.request_id`). */
function withRequestId(result: ExecutionResult, requestId: string): ExecutionResult {
  if (result.errors === undefined || result.errors.length === 0) return result;
  const errors = result.errors.map((error): GraphQLFormattedError => {
    const formatted: GraphQLFormattedError = typeof error.toJSON === 'function' ? error.toJSON() : error;
    return { ...formatted, extensions: { ...formatted.extensions, request_id: requestId } };
  });
  return { ...result, errors: errors as never };
}

/** The PAT of the request, or the reply to send instead (401, or 403 for a suspended tenant or a non-admin). */
function authenticatePat(
  services: ControlPlaneServices,
  request: FastifyRequest,
  admin: boolean,
): { pat: PatRecord } | { status: number; body: ExecutionResult } {
  const authorization = request.headers.authorization;
  const credential =
    typeof authorization === 'string' && authorization.toLowerCase().startsWith('bearer ')
      ? authorization.slice(7).trim()
      : undefined;
  const expected = admin ? 'platform-admin personal access token' : 'personal access token';
  if (credential === undefined || !credential.startsWith(PAT_PREFIX) || credential.length > 512) {
    return { status: 401, body: graphqlError(`send Authorization: Bearer <${expected}>`, 'UNAUTHENTICATED') };
  }
  const pat = services.view.patByHash(hashCredential(credential));
  if (pat === undefined || services.view.tenant(pat.tenantId) === undefined) {
    return { status: 401, body: graphqlError('unknown or revoked personal access token', 'UNAUTHENTICATED') };
  }
  if (admin && !pat.admin) {
    return { status: 403, body: graphqlError('/admin/graphql needs a platform-admin PAT', 'FORBIDDEN') };
  }
  if (!admin && services.view.isSuspended(pat.tenantId)) {
    return { status: 403, body: graphqlError('this tenant is suspended', 'TENANT_SUSPENDED') };
  }
  return { pat };
}

export async function buildControlPlaneApp(deps: ControlPlaneDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 256 * 1024,
    // Served, with `connection: close`, rather than refused, once the listener is closing.
    return503OnClosing: false,
    // A hop count is valid (proxy-addr); fastify's types only list the other forms.
    trustProxy: deps.tenancy.trustProxy as boolean | string,
    schemaController: lazySchemaController,
    genReqId: requestIdOf,
    frameworkErrors: answerFrameworkError,
  });
  registerDrain(app);
  registerRequestIdHeader(app);
  const metrics = deps.metrics ?? createControlPlaneMetrics();
  registerRequestObservation(app, { metrics, tracing: deps.tracing });
  let graphql: Promise<GraphQLRuntime> | undefined;
  // A failed load (a module missing from the image) is not kept: the next request tries again.
  const loadedGraphQL = () =>
    (graphql ??= loadGraphQL(deps.limits).catch((error: unknown) => {
      graphql = undefined;
      throw error;
    }));
  if (deps.graphqlOnFirstRequest !== true) await loadedGraphQL();
  const limiter = new AbuseLimiter(deps.services.runtime, deps.log);

  app.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    const code = status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR';
    if (status >= 500) deps.log.error({ err: error, requestId: request.id }, 'control plane error');
    noteErrorCodes(request, [code]);
    const message = status < 500 ? error.message : 'internal error';
    return reply.code(status).send({ errors: [{ message, extensions: { code, request_id: request.id } }] });
  });
  app.setNotFoundHandler(answerNotFound);

  const serveGraphQL =
    (admin: boolean) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const caller = authenticatePat(deps.services, request, admin);
      if ('status' in caller) {
        noteGraphQLErrors(request, caller.body.errors);
        return reply.code(caller.status).send(withRequestId(caller.body, request.id));
      }
      const body = (request.body ?? {}) as GraphQLRequestBody;
      request.trace?.set({
        'gateway.tenant.id': caller.pat.tenantId,
        ...(typeof body.operationName === 'string' ? { 'graphql.operation.name': body.operationName } : {}),
      });
      const runtime = await loadedGraphQL();
      const result = await runtime.execute(
        admin ? runtime.admin : runtime.tenant,
        body,
        { services: deps.services, pat: caller.pat, tenantId: caller.pat.tenantId },
        runtime.limits,
        {
          onInternalError: (error) =>
            deps.log.error({ err: error, requestId: request.id }, 'resolver failed'),
          onOperation: (label) => {
            request.controlPlaneOperation = label;
          },
        },
      );
      noteGraphQLErrors(request, result.errors);
      const badRequest =
        result.data === undefined &&
        result.errors?.some((error) => error.extensions?.code !== 'INTERNAL_SERVER_ERROR');
      return reply.code(badRequest ? 400 : 200).send(withRequestId(result, request.id));
    };
  app.post('/graphql', serveGraphQL(false));
  app.post('/admin/graphql', serveGraphQL(true));

  const restDeps = { services: deps.services, settings: deps.tenancy, limiter, log: deps.log };
  await app.register(provisioningRoutes, restDeps);
  await app.register(organizationRoutes, restDeps);

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (app.draining) return reply.code(503).send(DRAINING_BODY);
    const ready = await deps.isReady().catch(() => false);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready' });
  });
  app.get('/metrics', async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.header('content-type', metrics.registry.contentType).send(body);
  });
  return app;
}

/**
 * The gateway's fastify app: the inference routes, health, readiness and metrics, and the one
 * error handler that renders the client's envelope.
 */
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { lazySchemaController } from '../config/fastify-schema-compilers.ts';
import { GatewayError, InvalidRequestError, PayloadTooLargeError } from '../errors/gateway-error.ts';
import { asGatewayError, renderError } from '../errors/render-error.ts';
import { DRAINING_BODY, registerDrain } from '../observability/drain.ts';
import type { Logger } from '../observability/logger.ts';
import { registerRequestIdHeader, requestIdOf } from '../observability/request-id.ts';
import { createRequestObserver } from '../observability/request-observer.ts';
import { extractContext, RequestTrace } from '../observability/tracing.ts';
import { UpstreamAbortedError } from '../upstream/upstream-client.ts';
import { registerClientDialect } from './client-dialect.ts';
import { registerCors } from './cors.ts';
import { createCountTokensHandler } from './count-tokens.ts';
import { MetricsObserver, TraceObserver, UsageObserver } from './exchange-observers.ts';
import { renderFrameworkError } from './framework-errors.ts';
import type { InferenceDeps } from './inference-deps.ts';
import { createInferenceHandler } from './inference-handler.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { registerModelRoutes } from './model-routes.ts';
import { registerResponsesRoutes } from './responses/responses-routes.ts';

export interface GatewayAppDeps extends InferenceDeps {
  /** Whether the process can serve: stores answer and the config view is loaded. */
  isReady(): Promise<boolean>;
  log: Logger;
}

/** fastify's own error codes for unreadable bodies, all of which are the client's fault. */
const CLIENT_BODY_ERRORS = new Set([
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_INVALID_JSON_BODY',
  'FST_ERR_VALIDATION',
]);

function classify(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const fastifyError = error as Partial<FastifyError> | undefined;
  if (fastifyError?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PayloadTooLargeError(0);
  if (fastifyError?.code !== undefined && CLIENT_BODY_ERRORS.has(fastifyError.code)) {
    return new InvalidRequestError(fastifyError.message ?? 'unreadable request body');
  }
  // JSON syntax errors from the body parser carry statusCode 400.
  if (error instanceof SyntaxError || fastifyError?.statusCode === 400) {
    return new InvalidRequestError(`malformed JSON body: ${(error as Error).message}`);
  }
  return asGatewayError(error);
}

export async function buildGatewayApp(deps: GatewayAppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.settings.bodyLimitBytes,
    // A request that reaches a closing listener (on a connection that was busy when it closed) is
    // served, with `connection: close`, rather than refused: the process can still answer it.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    keepAliveTimeout: 72_000,
    // No child logger per request (pino's child() with its bindings cost ~1% of a request): the
    // few per-request log lines carry the request id themselves.
    childLoggerFactory: (logger) => logger,
    genReqId: requestIdOf,
    // URLs the router refuses (a malformed percent-escape) get the envelope too.
    frameworkErrors: renderFrameworkError,
    schemaController: lazySchemaController,
  });
  registerDrain(app);
  registerRequestIdHeader(app);
  registerClientDialect(app);
  // Declared up front so that every request object has one shape (set per request further on).
  app.decorateRequest('gatewayProvider', undefined);
  app.decorateRequest('gatewayErrorCode', undefined);
  app.decorateRequest('inference', undefined);
  app.decorateRequest('trace', undefined);
  app.decorateRequest('exchange', undefined);
  registerJsonBodyParser(app);
  await registerCors(app, deps.settings.corsOrigins);

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof UpstreamAbortedError || reply.raw.destroyed) return;
    let gatewayError = classify(error);
    if (gatewayError instanceof PayloadTooLargeError)
      gatewayError = new PayloadTooLargeError(deps.settings.bodyLimitBytes);
    if (gatewayError.statusCode >= 500 && !(error instanceof GatewayError)) {
      request.log.error({ err: error, url: request.url, requestId: request.id }, 'unhandled error');
    }
    request.gatewayErrorCode = gatewayError.code;
    if (request.inference !== undefined) request.inference.errorCode = gatewayError.code;
    else if (request.trace !== undefined) request.trace.span.setAttribute('error.type', gatewayError.code);
    const rendered = renderError(gatewayError, request.clientDialect, request.id);
    return reply.code(rendered.statusCode).headers(rendered.headers).send(rendered.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const rendered = renderError(
      new GatewayError('not_found', 404, 'not_found_error', `no route ${request.method} ${request.url}`),
      request.clientDialect,
      request.id,
    );
    return reply.code(404).headers(rendered.headers).send(rendered.body);
  });

  const observe = createRequestObserver({ log: deps.log, accessLogSample: deps.settings.accessLogSample });
  const { tracing } = deps;
  // Every /v1/ request: a server span when tracing is on (parented by the caller's traceparent),
  // and the one watch of the client going away before its answer is complete.
  app.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || !route.startsWith('/v1/')) return done();
    if (tracing.enabled)
      request.trace = new RequestTrace(
        tracing.tracer,
        `${request.method} ${route}`,
        extractContext(request.headers as Record<string, unknown>),
        { 'http.request.method': request.method, 'http.route': route, 'gateway.request.id': request.id },
      );
    reply.raw.once('close', () => {
      // Ended by the gateway (the whole answer written) is not an abort, whether or not the last
      // bytes were flushed when the connection closed.
      if (reply.raw.writableEnded) return;
      request.exchange?.clientGone();
      // No onResponse follows, so the span ends here.
      if (request.trace !== undefined) {
        request.trace.span.setAttribute('gateway.client_aborted', true);
        observe(request, reply, reply.elapsedTime);
      }
    });
    done();
  });

  // Callback hooks, not async ones: fastify then makes no promise for them on every request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || !route.startsWith('/v1/')) return done();
    const provider = request.gatewayProvider ?? 'none';
    deps.metrics.requests.inc({ route, status: String(reply.raw.statusCode), provider });
    deps.metrics.requestSeconds.observe({ route, provider }, reply.elapsedTime / 1000);
    if (request.gatewayErrorCode !== undefined)
      deps.metrics.errors.inc({ route, code: request.gatewayErrorCode });
    observe(request, reply, reply.elapsedTime);
    done();
  });

  // The side concerns of every inference exchange, fixed here.
  const observers = [
    new MetricsObserver(deps.metrics),
    new UsageObserver(deps.usage),
    new TraceObserver(deps.settings.traceContent),
  ];
  app.post('/v1/chat/completions', createInferenceHandler('chat', deps, observers));
  app.post('/v1/embeddings', createInferenceHandler('embeddings', deps, observers));
  app.post('/v1/messages', createInferenceHandler('messages', deps, observers));
  app.post('/v1/messages/count_tokens', createCountTokensHandler(deps));
  app.post('/v1/responses', createInferenceHandler('responses', deps, observers));
  registerResponsesRoutes(app, deps);
  registerModelRoutes(app, deps);

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (app.draining) return reply.code(503).send(DRAINING_BODY);
    const ready = await deps.isReady().catch(() => false);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready' });
  });
  app.get('/metrics', async (_request, reply) => {
    const body = await deps.metrics.registry.metrics();
    return reply.header('content-type', deps.metrics.registry.contentType).send(body);
  });

  return app;
}

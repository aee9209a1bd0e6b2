/**
 * What one inference request leaves behind once answered (DESIGN section 8): its server span's
 * attributes, following the OpenTelemetry GenAI conventions plus the gateway's own, and one access
 * log line (sampled by GATEWAY_ACCESS_LOG_SAMPLE). The request path fills an InferenceFacts as it
 * learns things (the model, the tenant, the cache's decision, the usage and cost); both are written
 * from it, and both carry the request's id (request-id.ts). Neither ever carries a prompt, a
 * completion or a credential: only ids, names and numbers (prompts and completions reach a span
 * only with GATEWAY_TRACE_CONTENT=on, set by the handler).
 */

import type { Attributes } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from './logger.ts';
import type { RequestTrace } from './tracing.ts';

/** What the request path learned about one inference request. */
export interface InferenceFacts {
  /** GenAI operation: `chat`, `embeddings`. */
  operation: string;
  /** `openai.api.type` where the conventions tell OpenAI's APIs apart (`responses`). */
  apiType?: string;
  stream: boolean;
  requestModel?: string;
  /** The provider as the GenAI conventions name it (`openai`, `anthropic`, `gcp.gemini`, ...). */
  provider?: string;
  upstreamModel?: string;
  responseModel?: string;
  tenantId?: string;
  workspaceId?: string;
  /** `api-key` or `ephemeral`. */
  credentialKind?: string;
  byok?: boolean;
  connectionSlug?: string;
  /** A model route served (issue #25): the route's model, the target that served, the attempts made. */
  modelRoute?: string;
  routeTarget?: string;
  routeAttempts?: number;
  /** `hit`, `semantic-hit`, `stale`, `miss`, `refresh`, `bypass`, or undefined (cache off). */
  cache?: string;
  similarity?: number;
  policy?: string;
  inputTokens?: number;
  outputTokens?: number;
  costMicros?: number;
  /** Streams: milliseconds from the request's arrival to the first bytes of the answer. */
  timeToFirstTokenMs?: number;
  /** The error code answered, when the request failed. */
  errorCode?: string;
  /** Settles once the request's work is done (a stream's accounting comes after its last byte). */
  pending?: Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the inference handler. */
    inference?: InferenceFacts;
    /** The request's spans, when tracing is on. */
    trace?: RequestTrace;
    /** The service's error code, when the request was answered with an error. */
    gatewayErrorCode?: string;
  }
}

/** Provider names as the GenAI conventions spell them (gen_ai.provider.name). */
const GEN_AI_PROVIDER: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  vertex: 'gcp.vertex_ai',
  bedrock: 'aws.bedrock',
  'bedrock-mantle': 'aws.bedrock',
  mistral: 'mistral_ai',
  groq: 'groq',
  deepseek: 'deepseek',
  xai: 'x_ai',
  perplexity: 'perplexity',
  cohere: 'cohere',
};

export function genAiProvider(provider: string): string {
  return GEN_AI_PROVIDER[provider] ?? provider;
}

function spanAttributes(facts: InferenceFacts): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': facts.operation,
    'gateway.stream': facts.stream,
  };
  const put = (name: string, value: string | number | boolean | undefined) => {
    if (value !== undefined) attributes[name] = value;
  };
  put('openai.api.type', facts.apiType);
  put('gen_ai.request.model', facts.requestModel);
  put('gen_ai.provider.name', facts.provider);
  put('gen_ai.response.model', facts.responseModel);
  put('gen_ai.usage.input_tokens', facts.inputTokens);
  put('gen_ai.usage.output_tokens', facts.outputTokens);
  if (facts.timeToFirstTokenMs !== undefined)
    attributes['gen_ai.response.time_to_first_chunk'] = facts.timeToFirstTokenMs / 1000;
  put('gateway.upstream.model', facts.upstreamModel);
  put('gateway.tenant.id', facts.tenantId);
  put('gateway.workspace.id', facts.workspaceId);
  put('gateway.credential.kind', facts.credentialKind);
  put('gateway.byok', facts.byok);
  put('gateway.connection.slug', facts.connectionSlug);
  put('gateway.route', facts.modelRoute);
  put('gateway.route.target', facts.routeTarget);
  put('gateway.route.attempts', facts.routeAttempts);
  put('gateway.cache.result', facts.cache);
  put('gateway.cache.similarity', facts.similarity);
  put('gateway.cache.policy', facts.policy);
  put('gateway.cost_micros', facts.costMicros);
  return attributes;
}

export interface RequestObserverOptions {
  log: Logger;
  /** The share of requests that get an access log line, 0 to 1. */
  accessLogSample: number;
}

/** Ends a request's span and writes its access log line; called once per answered (or abandoned) request. */
export function createRequestObserver(options: RequestObserverOptions) {
  const { log, accessLogSample } = options;
  // A request aborted by its client may be seen both by the close watch and by onResponse: once.
  const observed = new WeakSet<FastifyRequest>();
  return function observe(request: FastifyRequest, reply: FastifyReply, durationMs: number): void {
    // Neither a span to end nor a line to write: the common case costs one check.
    if (request.trace === undefined && accessLogSample <= 0) return;
    if (observed.has(request)) return;
    const pending = request.inference?.pending;
    if (pending !== undefined) {
      (request.inference as InferenceFacts).pending = undefined;
      const finish = () => observe(request, reply, durationMs);
      void pending.then(finish, finish);
      return;
    }
    observed.add(request);
    const status = reply.raw.statusCode;
    const facts = request.inference;
    const requestTrace = request.trace;
    if (requestTrace !== undefined) {
      request.trace = undefined;
      const span = requestTrace.span;
      if (facts !== undefined && requestTrace.recording) span.setAttributes(spanAttributes(facts));
      span.setAttribute('http.response.status_code', status);
      if (facts?.errorCode !== undefined) span.setAttribute('error.type', facts.errorCode);
      if (status >= 500)
        span.setStatus({ code: SpanStatusCode.ERROR, message: facts?.errorCode ?? String(status) });
      span.end();
    }
    if (accessLogSample <= 0 || (accessLogSample < 1 && Math.random() >= accessLogSample)) return;
    log.info(
      {
        access: {
          requestId: request.id,
          method: request.method,
          route: request.routeOptions.url,
          status,
          durationMs: Math.round(durationMs * 1000) / 1000,
          ...facts,
          pending: undefined,
          ...(requestTrace === undefined ? {} : { traceId: requestTrace.traceId }),
        },
      },
      'request',
    );
  };
}

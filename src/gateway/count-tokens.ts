/**
 * `POST /v1/messages/count_tokens` (what the Anthropic SDK's `messages.countTokens` calls): an
 * Anthropic-shaped body, authorised like `/v1/messages` and routed by its model. An upstream that
 * speaks the Anthropic Messages API at its own URL (Anthropic, or a Connection of that kind) counts
 * them itself: the request is passed through and its answer relayed. Every other upstream gets an
 * estimate, about four characters a token over the system prompt, messages and tools, answered in
 * the same shape and marked `x-service-token-count: estimated`. Nothing is charged either way.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authorizeOperation, extractCredential } from '../auth/authenticate.ts';
import { stripCacheDeclarations } from '../cache/cache-key.ts';
import { InvalidRequestError } from '../errors/gateway-error.ts';
import { renderRoutingHeaders } from '../providers/routing-headers.ts';
import type { InferenceDeps } from './inference-deps.ts';
import { createCallSender } from './upstream-call.ts';
import type { JsonObject } from './validate-body.ts';

/** Says whether the count came from the upstream or is the gateway's estimate. */
export const TOKEN_COUNT_HEADER = 'x-service-token-count';

/** Client headers an Anthropic upstream may need to count (beta features the body uses). */
const FORWARDED_HEADERS = ['anthropic-beta'];

/** About four characters a token, over what the model reads (the same rule as usage estimates). */
export function estimateInputTokens(body: JsonObject): number {
  const read = JSON.stringify([body.system ?? null, body.messages ?? null, body.tools ?? null]);
  return Math.max(1, Math.ceil(read.length / 4));
}

function parseBody(body: unknown): JsonObject & { model: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidRequestError('the request body must be a JSON object');
  const fields = body as JsonObject;
  if (typeof fields.model !== 'string' || fields.model.trim() === '')
    throw new InvalidRequestError("'model' must be a non-empty string");
  if (!Array.isArray(fields.messages) || fields.messages.length === 0)
    throw new InvalidRequestError("'messages' must be a non-empty array");
  return fields as JsonObject & { model: string };
}

export function createCountTokensHandler(deps: InferenceDeps) {
  return async function handleCountTokens(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const body = parseBody(request.body);
    const principal = await deps.authenticator.authenticate(extractCredential(request.headers));
    authorizeOperation(principal, 'messages', body.model);
    const byokRequired = String(request.headers['x-service-byok']).toLowerCase() === 'required';
    const route = deps.routes.resolve(body.model, 'messages', principal, byokRequired);
    request.gatewayProvider = route.provider.name;
    reply.headers(renderRoutingHeaders(route));
    const countsItself =
      route.provider.shape === 'anthropic' && route.endpoint === undefined && route.nativePath !== undefined;
    if (!countsItself) {
      reply.header(TOKEN_COUNT_HEADER, 'estimated');
      return { input_tokens: estimateInputTokens(body) };
    }
    const headers: Record<string, string> = { ...route.headers, 'content-type': 'application/json' };
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const controller = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const send = createCallSender(deps, route, headers, controller.signal);
    const answer = await send({
      path: `${route.nativePath}/count_tokens`,
      body: { ...stripCacheDeclarations(body), model: route.upstreamModel },
    });
    reply.header(TOKEN_COUNT_HEADER, 'upstream');
    return reply
      .code(answer.statusCode)
      .header('content-type', answer.headers['content-type'] ?? 'application/json')
      .send(answer.text);
  };
}

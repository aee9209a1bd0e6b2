/**
 * The stored responses' own routes (reference/responses-api.md section 5):
 * `GET /v1/responses/{id}`, `DELETE /v1/responses/{id}`, `GET /v1/responses/{id}/input_items` and
 * `POST /v1/responses/{id}/cancel` (OpenAI's background responses; nothing of the gateway's runs
 * in the background).
 *
 * Authorised like `POST /v1/responses` (the `chat:write` grant, a token's `responses` scope, and
 * its `model:` scopes against the model the response was made with). A response the gateway
 * translated is served from its own store; one OpenAI keeps (a pass-through) is asked of the
 * upstream that made it, with the same route's credential. Either way only the workspace that made
 * it can reach it: another workspace's id, like an unknown one, is a 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authorizeOperation, authorizeRoute, extractCredential } from '../../auth/authenticate.ts';
import type { Principal } from '../../auth/principal.ts';
import { InvalidRequestError, ResponseNotFoundError } from '../../errors/gateway-error.ts';
import { mapUpstreamError } from '../../errors/upstream-errors.ts';
import { renderRoutingHeaders } from '../../providers/routing-headers.ts';
import type { StoredResponseRecord } from '../../stores/response-records.ts';
import type { InferenceDeps } from '../inference-deps.ts';
import { listInputItems, readRecord, responsesScopeOf } from './stored-responses.ts';

type Action = 'retrieve' | 'delete' | 'input_items' | 'cancel';

interface ResponseParams {
  id: string;
}

function readQuery(query: unknown): { limit: number; order: 'asc' | 'desc'; after: string | undefined } {
  const fields = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const limit = fields.limit === undefined ? 20 : Number(fields.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new InvalidRequestError("'limit' must be an integer from 1 to 100");
  const order = fields.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new InvalidRequestError("'order' must be 'asc' or 'desc'");
  return {
    limit,
    order,
    after: typeof fields.after === 'string' && fields.after !== '' ? fields.after : undefined,
  };
}

/** The record of the workspace, with the caller authorised for its model; a 404 when there is none. */
async function recordFor(
  principal: Principal,
  id: string,
  deps: InferenceDeps,
): Promise<StoredResponseRecord> {
  authorizeRoute(principal, 'responses');
  const record = await readRecord(deps.responses, responsesScopeOf(principal), id);
  if (record === undefined) throw new ResponseNotFoundError(id);
  authorizeOperation(principal, 'responses', record.model);
  return record;
}

/** Asks the upstream that keeps a response (GET or DELETE on its Responses API), with the caller's route. */
async function askUpstream(
  request: FastifyRequest,
  reply: FastifyReply,
  principal: Principal,
  record: StoredResponseRecord,
  action: Action,
  deps: InferenceDeps,
): Promise<unknown> {
  const route = deps.routes.resolve(record.model, 'responses', principal, false);
  if (route.nativePath === undefined) throw new ResponseNotFoundError(record.id);
  request.gatewayProvider = route.provider.name;
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  const suffix = action === 'input_items' ? `/input_items${query}` : action === 'cancel' ? '/cancel' : '';
  const url = `${route.baseUrl}${route.nativePath}/${encodeURIComponent(record.id)}${suffix}`;
  const method = action === 'delete' ? 'DELETE' : action === 'cancel' ? 'POST' : 'GET';
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  const headers =
    route.sign === undefined
      ? route.headers
      : await route.sign({ method, url, headers: route.headers, body: '' });
  const provider = route.provider.name;
  const answer = await deps.upstream.send({
    provider,
    url,
    method,
    headers,
    signal: controller.signal,
    read: 'whole',
  });
  const text = answer.text ?? '';
  if (answer.statusCode >= 400) {
    // OpenAI no longer keeps it (deleted or expired there): the gateway's pointer goes too.
    if (answer.statusCode === 404)
      await deps.responses.deleteStoredResponse(responsesScopeOf(principal), record.id);
    const retryAfter = answer.headers['retry-after'];
    throw mapUpstreamError(
      provider,
      answer.statusCode,
      text,
      typeof retryAfter === 'string' ? retryAfter : undefined,
    );
  }
  if (action === 'delete') await deps.responses.deleteStoredResponse(responsesScopeOf(principal), record.id);
  return reply
    .code(answer.statusCode)
    .headers(renderRoutingHeaders(route))
    .header('content-type', String(answer.headers['content-type'] ?? 'application/json'))
    .send(text);
}

function createHandler(action: Action, deps: InferenceDeps) {
  return async function handleStoredResponse(
    request: FastifyRequest<{ Params: ResponseParams }>,
    reply: FastifyReply,
  ): Promise<unknown> {
    const { id } = request.params;
    const principal = await deps.authenticator.authenticate(extractCredential(request.headers));
    const query = action === 'input_items' ? readQuery(request.query) : undefined;
    const record = await recordFor(principal, id, deps);
    if (record.kind === 'upstream') return askUpstream(request, reply, principal, record, action, deps);
    const scope = responsesScopeOf(principal);
    // A translated response is answered whole before it is stored: there is nothing running to cancel.
    if (action === 'cancel')
      throw new InvalidRequestError('Only responses created with background can be cancelled.');
    if (action === 'retrieve')
      return reply.header('content-type', 'application/json').send(JSON.stringify(record.response));
    if (action === 'delete') {
      await deps.responses.deleteStoredResponse(scope, id);
      return { id, object: 'response', deleted: true };
    }
    return listInputItems(deps.responses, scope, record, query as NonNullable<typeof query>);
  };
}

export function registerResponsesRoutes(app: FastifyInstance, deps: InferenceDeps): void {
  app.get('/v1/responses/:id', createHandler('retrieve', deps));
  app.delete('/v1/responses/:id', createHandler('delete', deps));
  app.get('/v1/responses/:id/input_items', createHandler('input_items', deps));
  app.post('/v1/responses/:id/cancel', createHandler('cancel', deps));
}

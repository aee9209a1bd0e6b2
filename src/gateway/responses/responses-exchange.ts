/**
 * The Responses API's part of an inference exchange (`POST /v1/responses`), around the steps of
 * inference-handler.ts: before the plan, the conversation it continues is read from the store
 * (previous_response_id, item_reference) and the response gets its id; the plan is made with that
 * history; and the answer is recorded before the client gets it whole (the JSON reply, or the
 * stream's terminal event), so that an immediate follow-up finds it (reference/responses-api.md
 * section 8: peers lost follow-ups sent within seconds to a write made afterwards).
 *
 * A translated answer is kept whole (its input and output items); one that OpenAI itself served
 * keeps OpenAI's storage, and the gateway records only that this workspace made it, so that its
 * GET, DELETE and continuations go there for this workspace alone.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { Logger } from '../../observability/logger.ts';
import type { ResponsesRequest } from '../../shapes/responses.ts';
import type { RuntimeStoredResponses } from '../../stores/types.ts';
import type { ResponsesPlanFields } from '../../translate/plans/responses.ts';
import {
  convertResponsesRequestToChat,
  createItemIdMinter,
  mintResponseId,
} from '../../translate/responses-to-chat/index.ts';
import type { UpstreamPlan } from '../../translate/types.ts';
import {
  buildTranslatedRecord,
  buildUpstreamRecord,
  type Conversation,
  normalizeInputItems,
  resolveConversation,
  responsesScopeOf,
  type StoredResponsesSettings,
  saveRecord,
} from './stored-responses.ts';

type Json = Record<string, unknown>;

/** What a Responses exchange carries besides the others' fields. */
export interface ResponsesState {
  /** The `resp_...` id of this response: the same in the answer, the events and the store. */
  id: string;
  mintId: (prefix: string) => string;
  scope: string;
  conversation: Conversation;
  /** `store` (default true): the answer is recorded. */
  store: boolean;
}

export interface ResponsesDeps {
  responses: RuntimeStoredResponses;
  settings: { responses: StoredResponsesSettings };
  log: Logger;
}

/**
 * Reads what the request continues and gives the response its id; replaces the body's
 * item_references to the gateway's items by the items. A request whose input alone is larger than
 * a stored entry may be is refused unless it says `store: false` (it could not be continued).
 */
export async function prepareResponses(
  body: Json,
  principal: { tenantId: string; workspaceId: string },
  deps: ResponsesDeps,
): Promise<{ state: ResponsesState; body: Json }> {
  const scope = responsesScopeOf(principal);
  const conversation = await resolveConversation(deps.responses, scope, body);
  const id = mintResponseId();
  const store = body.store !== false;
  const resolvedBody = conversation.input === body.input ? body : { ...body, input: conversation.input };
  if (store) {
    const inputBytes = Buffer.byteLength(JSON.stringify(conversation.input ?? null), 'utf8');
    if (inputBytes > deps.settings.responses.maxEntryBytes)
      throw new InvalidRequestError(
        `the input (${inputBytes} bytes) is larger than a stored response may be (${deps.settings.responses.maxEntryBytes} bytes): send it with "store": false`,
      );
  }
  return { state: { id, mintId: createItemIdMinter(id), scope, conversation, store }, body: resolvedBody };
}

/** The plan request's Responses fields. */
export function responsesPlanFields(state: ResponsesState): ResponsesPlanFields {
  return {
    responseId: state.id,
    generateId: state.mintId,
    ...(state.conversation.history === undefined ? {} : { history: state.conversation.history }),
  };
}

/**
 * A response OpenAI keeps continues only where OpenAI answers: a pass-through to it. OpenAI's
 * conversations (`conversation: "conv_..."`) live under the key that made them: with the
 * platform's key, shared by every tenant, an id would reach another tenant's, so they are served
 * on a Connection's own key only.
 */
export function checkResponsesPlan(
  state: ResponsesState,
  plan: UpstreamPlan,
  route: { provider: { name: string }; byok: boolean },
  body: Json,
): void {
  const provider = route.provider.name;
  if (
    plan.kind === 'passthrough' &&
    !route.byok &&
    body.conversation !== undefined &&
    body.conversation !== null
  )
    throw new InvalidRequestError(
      "'conversation' is served on a Connection's own OpenAI key only: with the platform's key OpenAI's conversations are shared by every tenant; continue with previous_response_id instead",
    );
  const kept = state.conversation.keptUpstream;
  if (kept !== undefined && plan.kind !== 'passthrough')
    throw new InvalidRequestError(
      `previous response '${kept.id}' is kept by OpenAI and continues only on a model OpenAI serves (it was made with '${kept.model}'), not on provider '${provider}'`,
    );
}

/** Records a JSON answer (the Responses object's text) before it is sent; see recordAnswer. */
export function recordJsonAnswer(
  state: ResponsesState,
  request: { body: Json; model: string; passthrough: boolean },
  text: string,
  deps: ResponsesDeps,
): Promise<void> {
  let response: Json | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    response = typeof parsed === 'object' && parsed !== null ? (parsed as Json) : undefined;
  } catch {
    response = undefined;
  }
  return recordAnswer(state, request, response, deps);
}

/**
 * Records an answer before the client has it whole. `response` is the Responses object the client
 * gets (JSON, or the stream's terminal event); `passthrough`: OpenAI made it. Never throws: a
 * store that fails is logged, and the answer still goes out (degraded mode serves).
 */
export function recordAnswer(
  state: ResponsesState,
  request: { body: Json; model: string; passthrough: boolean },
  response: Json | undefined,
  deps: ResponsesDeps,
): Promise<void> {
  if (!state.store || response === undefined) return Promise.resolve();
  let record: Parameters<typeof saveRecord>[2];
  if (request.passthrough) {
    // Whatever its status: a background response (queued) is polled and cancelled by its id.
    if (typeof response.id !== 'string' || response.id === '') return Promise.resolve();
    record = buildUpstreamRecord(response.id, request.model);
  } else {
    const status = response.status;
    if (status !== 'completed' && status !== 'incomplete') return Promise.resolve();
    record = buildTranslatedRecord(
      response,
      request.model,
      normalizeInputItems(request.body.input, state.mintId),
      state.conversation.ancestors,
    );
  }
  return saveRecord(deps.responses, state.scope, record, deps.settings.responses).then(
    (saved) => {
      if (!saved)
        deps.log.warn(
          { responseId: record.id, maxEntryBytes: deps.settings.responses.maxEntryBytes },
          'a response larger than GATEWAY_RESPONSES_MAX_ENTRY_BYTES was not stored',
        );
    },
    (error: unknown) => deps.log.error({ err: error, responseId: record.id }, 'storing a response failed'),
  );
}

/**
 * The request as the cache reads a conversation (semantic matching and tool use): the body with
 * its input as chat messages (the chat pivot's own mapping) in place of `input`, so that the
 * latest question can be told from its context; `previous_response_id`, the instructions and every
 * other field stay and name the context. Input the pivot cannot read (hosted tools' items, for
 * OpenAI) leaves no question: exact matching only.
 */
export function semanticTurnOf(body: Json): Json {
  const { input: _input, instructions: _instructions, ...context } = body;
  let messages: unknown[] = [];
  try {
    messages = convertResponsesRequestToChat(body as ResponsesRequest, {
      model: 'cache',
      provider: 'cache',
    }).messages;
  } catch {
    messages = [];
  }
  return { ...context, messages };
}

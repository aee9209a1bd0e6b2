/**
 * Plans of `/v1/responses` (the OpenAI Responses API) for every upstream shape.
 *
 * - An OpenAI-style upstream that serves the Responses API itself (its provider names a
 *   `responses` path): passthrough. The model is rewritten and nothing else the gateway does not
 *   own is touched; a conversation the gateway stored is sent as the full input instead of a
 *   `previous_response_id` OpenAI would not know.
 * - Every other upstream: through the chat-completions shape as the pivot (reference/
 *   responses-api.md section 7, what LiteLLM and Portkey do). The request becomes a chat request
 *   (responses-to-chat), which the existing `chat-><shape>` planner (translated.ts) takes to the
 *   upstream; its chat answer and chat stream come back through the same planner and then become a
 *   Responses object and typed events. One mapping per provider, kept where chat completions
 *   already test it, rather than a `responses-to-<provider>` pair per shape that would repeat the
 *   Anthropic, Gemini and Bedrock rules; the cost is one extra object per answer and one extra
 *   event object per streamed event (bench/translation.ts measures it). An OpenAI-compatible
 *   server without a Responses API is the pivot alone: its chat answer is already the middle.
 *
 * The translators are pure: the conversation before this request (previous_response_id,
 * item_reference) is resolved by the gateway from its store and handed in as `history`.
 */
import { GatewayError, InvalidRequestError, UpstreamError } from '../../errors/gateway-error.ts';
import { mapUpstreamError } from '../../errors/upstream-errors.ts';
import type { ChatCompletion, ChatCompletionRequest } from '../../shapes/openai.ts';
import type { ResponsesRequest } from '../../shapes/responses.ts';
import { parseResponsesUsage } from '../../shapes/usage.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import { chainStreamTranslators } from '../chain-stream.ts';
import {
  convertChatResponseToResponses,
  convertResponsesRequestToChat,
  createChatStreamToResponsesTranslator,
  type ResponsesContext,
  type ResponsesFailure,
} from '../responses-to-chat/index.ts';
import { checkResponsesRequestFields } from '../responses-to-chat/request-fields.ts';
import type { StreamPipeline, StreamTranslator, UpstreamPlan, UpstreamTarget } from '../types.ts';
import { createResponsesStreamObserver, type ResponsesStreamObserver } from './stream-observers.ts';
import { createStreamPipeline } from './stream-pipeline.ts';
import { MAX_COMPLETION_TOKENS_PROVIDERS, TRANSLATIONS } from './translated.ts';
import type { Translation, TranslationInput } from './translation.ts';
import { upstreamUsageReader } from './upstream-usage.ts';

export interface ResponsesPlanRequest {
  /** The client's body, validated, with the gateway's own declarations stripped. */
  body: Record<string, unknown>;
  stream: boolean;
  /** The `resp_...` id this response gets: the same in the answer, every event and the store. */
  responseId: string;
  /** Mints item ids; by default derived from `responseId` (responses-to-chat/ids.ts). */
  generateId?: (prefix: string) => string;
  /**
   * The items before this request's input, resolved from the gateway's store
   * (previous_response_id's conversation); undefined when it names none the gateway keeps.
   */
  history?: readonly unknown[];
}

/** What a Responses plan needs beyond the body: its ids and the conversation before it. */
export type ResponsesPlanFields = Pick<ResponsesPlanRequest, 'responseId' | 'generateId' | 'history'>;

/** A Responses plan's stream: the pipeline, the response its terminal event carried, and a failure's events. */
export interface ResponsesStreamPipeline extends StreamPipeline {
  /** The response of the terminal event, once it went by. */
  response(): Record<string, unknown> | undefined;
  /**
   * `error` and `response.failed` for a failure after the stream began (transport, timeout) on a
   * translated stream; undefined on a passthrough, whose events the gateway does not number.
   */
  fail?(failure: ResponsesFailure): SseEvent[];
}

export interface ResponsesUpstreamPlan extends UpstreamPlan {
  stream(): ResponsesStreamPipeline;
}

/** The plan of one `/v1/responses` request to one upstream; throws InvalidRequestError for what cannot be served. */
export function planResponsesUpstream(
  request: ResponsesPlanRequest,
  target: UpstreamTarget,
): ResponsesUpstreamPlan {
  if (target.shape === 'openai' && target.nativePath !== undefined && target.endpoint === undefined)
    return planResponsesPassthrough(request, target.nativePath, target.model);
  checkResponsesRequestFields(request.body);
  const chatPlanner =
    target.shape === 'openai' ? planChatPassthrough : TRANSLATIONS.get(`chat->${target.shape}`);
  if (chatPlanner === undefined)
    throw new InvalidRequestError(`provider '${target.provider}' does not serve /v1/responses`);
  const responses = request.body as unknown as ResponsesRequest;
  let inner: Translation;
  try {
    const chat = convertResponsesRequestToChat(responses, {
      model: target.model,
      provider: target.provider,
      maxTokensField: MAX_COMPLETION_TOKENS_PROVIDERS.has(target.provider)
        ? 'max_completion_tokens'
        : 'max_tokens',
      ...(request.history === undefined ? {} : { history: request.history }),
    });
    const input: TranslationInput = {
      body: chat as unknown as Record<string, unknown>,
      upstreamModel: target.model,
      stream: request.stream,
      provider: target.provider,
      ...(target.endpoint === undefined ? {} : { endpoint: target.endpoint }),
    };
    inner = chatPlanner(input);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new InvalidRequestError(
      `the request body cannot be translated for provider '${target.provider}': a field has a type /v1/responses does not take (input items and their content parts, tools, tool_choice, text)`,
      { cause: error },
    );
  }
  const context: ResponsesContext = {
    id: request.responseId,
    request: responses,
    ...(request.generateId === undefined ? {} : { generateId: request.generateId }),
  };
  return planThroughChat(inner, target, context);
}

function planThroughChat(
  inner: Translation,
  target: UpstreamTarget,
  context: ResponsesContext,
): ResponsesUpstreamPlan {
  // Billing reads the upstream's own usage where the chat shape would lose part of it (cache writes).
  const reader = upstreamUsageReader(target.shape);
  return {
    kind: 'translated',
    path: inner.path,
    payload: JSON.stringify(inner.body),
    forwardedHeaders: [],
    framing: inner.framing ?? 'sse',
    answer(upstreamText) {
      let upstream: unknown;
      try {
        upstream = JSON.parse(upstreamText);
      } catch {
        throw new UpstreamError(502, 200, 'the upstream answered with malformed JSON', 'api_error', true);
      }
      const response = convertChatResponseToResponses(inner.response(upstream) as ChatCompletion, context);
      return {
        text: JSON.stringify(response),
        usage: reader?.fromJson(upstream) ?? parseResponsesUsage(response.usage),
      };
    },
    stream() {
      const responses = createChatStreamToResponsesTranslator(context);
      const observer = createResponsesStreamObserver();
      const pipeline = createStreamPipeline(
        chainStreamTranslators(inner.stream(), responses),
        observer,
        reader?.stream(),
      );
      return {
        ...pipeline,
        response: observer.response,
        fail: (failure) => responses.fail(failure).filter((event) => observer.accept(event)),
      };
    },
    error: (answer) =>
      inner.error?.(answer) ??
      mapUpstreamError(answer.provider, answer.status, answer.body, answer.headers['retry-after']),
  };
}

/** Chat completions to an OpenAI-style upstream without a Responses API: the pivot is the upstream's own shape. */
function planChatPassthrough(input: TranslationInput): Translation {
  const passOn: StreamTranslator = { push: (event) => [event], end: () => [] };
  return {
    path: '/chat/completions',
    body: input.body as unknown as ChatCompletionRequest,
    response: (upstream) => upstream,
    stream: () => passOn,
  };
}

function withoutId(item: unknown): unknown {
  if (typeof item !== 'object' || item === null || !('id' in item)) return item;
  const { id: _id, ...rest } = item as Record<string, unknown>;
  return rest;
}

/** The client's input as items (a string is one user message). */
function inputItemsOf(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

function planResponsesPassthrough(
  request: ResponsesPlanRequest,
  path: string,
  model: string,
): ResponsesUpstreamPlan {
  const body: Record<string, unknown> = { ...request.body, model };
  // A conversation the gateway keeps (it began on another provider) goes as the full input, its
  // items without the gateway's ids, which OpenAI would look up as its own (reference 7.4).
  if (request.history !== undefined) {
    body.input = [...request.history.map(withoutId), ...inputItemsOf(request.body.input)];
    delete body.previous_response_id;
  }
  return {
    kind: 'passthrough',
    path,
    payload: JSON.stringify(body),
    forwardedHeaders: [],
    framing: 'sse',
    answer: (text) => {
      let usage: unknown;
      try {
        usage = (JSON.parse(text) as { usage?: unknown } | null)?.usage;
      } catch {
        usage = undefined;
      }
      return { text, usage: parseResponsesUsage(usage) };
    },
    stream: () => {
      const observer: ResponsesStreamObserver = createResponsesStreamObserver();
      return { ...createStreamPipeline(undefined, observer, undefined), response: observer.response };
    },
    error: ({ provider, status, body: text, headers }) =>
      mapUpstreamError(provider, status, text, headers['retry-after']),
  };
}

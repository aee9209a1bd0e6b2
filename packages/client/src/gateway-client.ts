/**
 * The thin client of the gateway: one method per route, each returning the body together with what
 * the gateway's headers said about it (routing, cache, balance). It sends through
 * {@link createGatewayFetch}, so the Connection pinning and cache options behave exactly as they do
 * under the official clients.
 */
import { type CacheOptions, cacheHeaders } from './cache-options.ts';
import type { ConnectionOptions } from './connection.ts';
import { errorFromBody, GatewayError, GatewayValidationError } from './errors.ts';
import { createGatewayFetch, type GatewayFetch, headersRecord } from './gateway-fetch.ts';
import {
  type ByteStreamLike,
  type FetchImplementation,
  type HeadersLike,
  isEventStream,
  isJsonContent,
  mediaType,
  type ResponseLike,
} from './http.ts';
import { type GatewayResponseInfo, parseResponseInfo } from './response-info.ts';
import type { RoutingInfo } from './routing.ts';
import { readServerSentEvents } from './sse.ts';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  CountTokensRequest,
  CountTokensResponse,
  EmbeddingRequest,
  EmbeddingResponse,
  Message,
  MessageStreamEvent,
  MessagesRequest,
  ModelList,
} from './wire-types.ts';

/** Options of {@link GatewayClient}. */
export interface GatewayClientOptions extends ConnectionOptions {
  /** The gateway's address, such as `https://gateway.example` (a trailing `/v1` is accepted). */
  baseUrl: string;
  /** A workspace API key (`tt_sk_...`) or an ephemeral token (`tt_ev_...`), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Cache controls for every inference call; a call's `cache` wins field by field. */
  cache?: CacheOptions | undefined;
  /** Headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /** Called with the routing information of every response that carries it. */
  onRouting?: ((routing: RoutingInfo, info: GatewayResponseInfo) => void) | undefined;
  /** Called with routing, cache and balance of every response. */
  onResult?: ((info: GatewayResponseInfo) => void) | undefined;
  /** The fetch to send with; default `globalThis.fetch`. undici's `fetch` is accepted as it is. */
  fetch?: FetchImplementation | undefined;
  /** Node only: an undici dispatcher for every request (see {@link GatewayFetchOptions.dispatcher}). */
  dispatcher?: unknown;
}

/** Options of one call. */
export interface CallOptions {
  /** Extra headers for this call. */
  headers?: Record<string, string> | undefined;
  /** Aborts the call (and, for streams, the stream). */
  signal?: AbortSignal | undefined;
}

/** Options of one inference call. */
export interface InferenceCallOptions extends CallOptions {
  /** Cache controls for this call; each field given wins over the client's. */
  cache?: CacheOptions | undefined;
}

/** A body, with what the gateway's headers said about the response that carried it. */
export interface GatewayResponse<T> extends GatewayResponseInfo {
  /** The parsed body; for streams, the events as they arrive (iterate once). */
  data: T;
  /** The response's headers. */
  headers: HeadersLike;
}

type StreamDialect = 'openai' | 'anthropic';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

async function discard(response: ResponseLike): Promise<void> {
  await response.body
    ?.getReader()
    .cancel()
    .catch(() => {});
}

/** The error of a non-2xx response, read from the gateway's envelope. */
async function readError(response: ResponseLike, info: GatewayResponseInfo): Promise<GatewayError> {
  const text = await response.text().catch(() => '');
  const parsed = isJsonContent(response.headers) ? parseJson(text) : { ok: false as const };
  return errorFromBody(response.status, parsed.ok ? parsed.value : text, {
    headers: response.headers,
    routing: info.routing,
  });
}

function unexpectedContent(
  response: ResponseLike,
  info: GatewayResponseInfo,
  expected: string,
): GatewayError {
  return new GatewayError({
    status: response.status,
    code: 'unexpected_content_type',
    message: `expected ${expected}, the gateway answered ${mediaType(response.headers) || 'no content type'}`,
    headers: response.headers,
    routing: info.routing,
  });
}

/** The events of a chat-completions or messages stream; an error event is thrown. */
async function* streamEvents<T>(
  response: ResponseLike,
  body: ByteStreamLike,
  info: GatewayResponseInfo,
  dialect: StreamDialect,
): AsyncGenerator<T> {
  const context = { headers: response.headers, routing: info.routing, stream: true };
  for await (const event of readServerSentEvents(body)) {
    if (dialect === 'openai' && event.data.trim() === '[DONE]') return;
    if (event.data === '') continue;
    const parsed = parseJson(event.data);
    if (!parsed.ok) {
      throw errorFromBody(
        response.status,
        { error: { code: 'invalid_stream', message: 'an event is not JSON' } },
        context,
      );
    }
    const value = parsed.value;
    const failed =
      event.event === 'error' ||
      (isRecord(value) &&
        (dialect === 'anthropic'
          ? value.type === 'error'
          : value.error !== undefined && value.choices === undefined));
    if (failed) throw errorFromBody(response.status, value, context);
    yield value as T;
  }
}

/**
 * A client of the gateway's inference routes.
 *
 * ```ts
 * const gateway = new GatewayClient({ baseUrl: 'https://gateway.example', apiKey, connection: '@mine' });
 * const { data, routing, cache, balance } = await gateway.chat({ model: 'gpt-4o', messages });
 * ```
 *
 * Every method throws a {@link GatewayError} for an error answer, and a
 * {@link GatewayValidationError} before sending when an option is invalid.
 */
export class GatewayClient {
  /** The gateway's address, without a trailing `/` or `/v1`. */
  readonly baseUrl: string;
  /**
   * The client's fetch: its Connection, cache options, dispatcher and callbacks, for an official
   * client (`new OpenAI({ fetch: gateway.fetch, ... })`) that should behave like this one.
   */
  readonly fetch: GatewayFetch;
  readonly #headers: Record<string, string>;

  /** @throws GatewayValidationError when an option is invalid. */
  constructor(options: GatewayClientOptions) {
    if (typeof options?.baseUrl !== 'string' || options.baseUrl.trim() === '')
      throw new GatewayValidationError('baseUrl', "must be the gateway's address");
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')
      throw new GatewayValidationError('apiKey', 'must be a workspace API key or an ephemeral token');
    this.baseUrl = options.baseUrl.trim().replace(/\/+$/, '').replace(/\/v1$/, '');
    this.fetch = createGatewayFetch({
      connection: options.connection,
      workspaceCredential: options.workspaceCredential,
      cache: options.cache,
      onRouting: options.onRouting,
      onResult: options.onResult,
      fetch: options.fetch,
      dispatcher: options.dispatcher,
    });
    this.#headers = { ...headersRecord(options.headers), authorization: `Bearer ${options.apiKey}` };
  }

  /** The routing information of the last response of this client (see {@link GatewayFetch.lastRouting}). */
  lastRouting(): RoutingInfo | undefined {
    return this.fetch.lastRouting();
  }

  /** Status, routing, cache and balance of the last response of this client. */
  lastResult(): GatewayResponseInfo | undefined {
    return this.fetch.lastResult();
  }

  /** `POST /v1/chat/completions`: a chat completion. For a stream use {@link GatewayClient.chatStream}. */
  async chat<T = ChatCompletion>(
    body: ChatCompletionRequest,
    options: InferenceCallOptions = {},
  ): Promise<GatewayResponse<T>> {
    if (body.stream === true) throw new GatewayValidationError('body.stream', 'use chatStream() to stream');
    return this.#json<T>(await this.#send('POST', '/v1/chat/completions', body, options));
  }

  /** `POST /v1/chat/completions` with `stream: true`: the chunks as they arrive. */
  async chatStream<T = ChatCompletionChunk>(
    body: ChatCompletionRequest,
    options: InferenceCallOptions = {},
  ): Promise<GatewayResponse<AsyncIterable<T>>> {
    const response = await this.#send('POST', '/v1/chat/completions', { ...body, stream: true }, options);
    return this.#stream<T>(response, 'openai');
  }

  /** `POST /v1/messages` (Anthropic shape). For a stream use {@link GatewayClient.messagesStream}. */
  async messages<T = Message>(
    body: MessagesRequest,
    options: InferenceCallOptions = {},
  ): Promise<GatewayResponse<T>> {
    if (body.stream === true)
      throw new GatewayValidationError('body.stream', 'use messagesStream() to stream');
    return this.#json<T>(await this.#send('POST', '/v1/messages', body, options));
  }

  /** `POST /v1/messages` with `stream: true`: the events (`message_start`, ...) as they arrive. */
  async messagesStream<T = MessageStreamEvent>(
    body: MessagesRequest,
    options: InferenceCallOptions = {},
  ): Promise<GatewayResponse<AsyncIterable<T>>> {
    const response = await this.#send('POST', '/v1/messages', { ...body, stream: true }, options);
    return this.#stream<T>(response, 'anthropic');
  }

  /** `POST /v1/embeddings`. */
  async embeddings<T = EmbeddingResponse>(
    body: EmbeddingRequest,
    options: InferenceCallOptions = {},
  ): Promise<GatewayResponse<T>> {
    return this.#json<T>(await this.#send('POST', '/v1/embeddings', body, options));
  }

  /** `GET /v1/models`: the models the gateway serves to this key. */
  async models<T = ModelList>(options: CallOptions = {}): Promise<GatewayResponse<T>> {
    return this.#json<T>(await this.#send('GET', '/v1/models', undefined, options));
  }

  /** `POST /v1/messages/count_tokens` (Anthropic shape): the input tokens a messages request would use. */
  async countTokens<T = CountTokensResponse>(
    body: CountTokensRequest,
    options: CallOptions = {},
  ): Promise<GatewayResponse<T>> {
    return this.#json<T>(await this.#send('POST', '/v1/messages/count_tokens', body, options));
  }

  async #send(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    options: InferenceCallOptions,
  ): Promise<ResponseLike> {
    const stream = isRecord(body) && body.stream === true;
    const headers: Record<string, string> = {
      accept: stream ? 'text/event-stream' : 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...this.#headers,
      ...headersRecord(options.headers),
      // Validated here, before anything is sent.
      ...cacheHeaders(options.cache),
    };
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (options.signal !== undefined) init.signal = options.signal;
    return (await this.fetch(`${this.baseUrl}${path}`, init)) as unknown as ResponseLike;
  }

  async #json<T>(response: ResponseLike): Promise<GatewayResponse<T>> {
    const info = parseResponseInfo(response);
    if (!response.ok) throw await readError(response, info);
    if (!isJsonContent(response.headers)) {
      await discard(response);
      throw unexpectedContent(response, info, 'JSON');
    }
    const parsed = parseJson(await response.text());
    if (!parsed.ok) {
      throw new GatewayError({
        status: response.status,
        code: 'invalid_json',
        message: 'the response body is not JSON',
        headers: response.headers,
        routing: info.routing,
      });
    }
    return { ...info, data: parsed.value as T, headers: response.headers };
  }

  async #stream<T>(
    response: ResponseLike,
    dialect: StreamDialect,
  ): Promise<GatewayResponse<AsyncIterable<T>>> {
    const info = parseResponseInfo(response);
    if (!response.ok) throw await readError(response, info);
    const body = response.body;
    if (!isEventStream(response.headers) || body === null) {
      await discard(response);
      throw unexpectedContent(response, info, 'an event stream');
    }
    return { ...info, data: streamEvents<T>(response, body, info, dialect), headers: response.headers };
  }
}

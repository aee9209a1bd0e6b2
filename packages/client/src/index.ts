/**
 * @inference-gateway/client: the client SDK of the inference gateway, for Node and browsers.
 *
 * - {@link createGatewayFetch}: a `fetch` for the official `openai` and `@anthropic-ai/sdk` clients
 *   (their `fetch` option) that pins a default Connection, adds cache controls and reads routing,
 *   cache and balance from every response.
 * - {@link GatewayClient}: a thin client of its own, one method per route.
 * - {@link cacheHeaders}: typed, validated cache controls for one call of an official client.
 */
export {
  CACHE_REQUEST_HEADERS,
  CACHE_TAG_PATTERN,
  type CacheMode,
  type CacheOptions,
  cacheHeaders,
  MAX_CACHE_TAGS,
  MAX_CACHE_TTL_SECONDS,
  MAX_NAMESPACE_LENGTH,
  validateCacheOptions,
} from './cache-options.ts';
export type { ConnectionOptions } from './connection.ts';
export {
  type ErrorEnvelopeInner,
  GatewayError,
  type GatewayErrorInit,
  GatewayStreamError,
  GatewayValidationError,
} from './errors.ts';
export {
  type CallOptions,
  GatewayClient,
  type GatewayClientOptions,
  type GatewayResponse,
  type InferenceCallOptions,
} from './gateway-client.ts';
export { createGatewayFetch, type GatewayFetch, type GatewayFetchOptions } from './gateway-fetch.ts';
export type { ByteStreamLike, FetchImplementation, FetchInit, HeadersLike, ResponseLike } from './http.ts';
export {
  BALANCE_HEADERS,
  type BalanceInfo,
  CACHE_RESPONSE_HEADERS,
  type CacheInfo,
  type CacheStatus,
  type GatewayResponseInfo,
  parseBalanceInfo,
  parseCacheInfo,
  parseResponseInfo,
} from './response-info.ts';
export { parseRouting, ROUTING_HEADERS, type RouteInfo, type RoutingInfo } from './routing.ts';
export type {
  AnthropicMessageParam,
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessage,
  CountTokensRequest,
  CountTokensResponse,
  EmbeddingRequest,
  EmbeddingResponse,
  Message,
  MessageStreamEvent,
  MessagesRequest,
  Model,
  ModelList,
} from './wire-types.ts';

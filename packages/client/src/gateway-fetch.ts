/**
 * A `fetch` for the official OpenAI and Anthropic clients (their `fetch` option), and the transport
 * of {@link GatewayClient}: it adds the client-wide cache headers, pins a default Connection by
 * rewriting unprefixed model names, and reads routing, cache and balance from every response.
 */
import { type CacheOptions, cacheHeaders } from './cache-options.ts';
import { type ConnectionOptions, pinModel, resolveConnection } from './connection.ts';
import { bridgeDispatcher } from './dispatcher-bridge.ts';
import type { FetchImplementation, FetchInit, ResponseLike } from './http.ts';
import { type GatewayResponseInfo, parseResponseInfo } from './response-info.ts';
import type { RoutingInfo } from './routing.ts';

/** Options of {@link createGatewayFetch}. */
export interface GatewayFetchOptions extends ConnectionOptions {
  /**
   * Cache controls for every inference request (chat completions, embeddings, messages,
   * responses). Headers a request already carries win, so a call's own `headers:
   * cacheHeaders({...})` overrides these field by field. Validated when the fetch is created.
   */
  cache?: CacheOptions | undefined;
  /** Called with the routing information of every response that carries it. */
  onRouting?: ((routing: RoutingInfo, info: GatewayResponseInfo) => void) | undefined;
  /** Called with routing, cache and balance of every response. */
  onResult?: ((info: GatewayResponseInfo) => void) | undefined;
  /** The fetch to send with; default `globalThis.fetch`. undici's `fetch` is accepted as it is. */
  fetch?: FetchImplementation | undefined;
  /**
   * Node only: an undici dispatcher (`new Agent()`, a `ProxyAgent`, ...) passed to the fetch in
   * every request's options, unless the request names its own. Typed loosely so that this package
   * needs no undici types; browsers ignore it. One dispatcher may serve undici's `fetch` and Node's
   * built-in `fetch` alike.
   */
  dispatcher?: unknown;
}

/**
 * A `fetch`-compatible function that also remembers what the gateway said about the last response.
 * "Last" is the most recent response this fetch received, whatever request it answered; with
 * concurrent requests, prefer `onResult` or {@link GatewayClient}, whose results carry their own.
 */
export interface GatewayFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The routing information of the last response; undefined before any, or when it carried none. */
  lastRouting(): RoutingInfo | undefined;
  /** Status, routing, cache and balance of the last response; undefined before any. */
  lastResult(): GatewayResponseInfo | undefined;
}

/** The paths whose JSON body names a model, and whether the response cache applies to them. */
const MODEL_ROUTES: readonly { suffix: string; cache: boolean }[] = [
  { suffix: '/v1/chat/completions', cache: true },
  { suffix: '/v1/embeddings', cache: true },
  { suffix: '/v1/messages', cache: true },
  { suffix: '/v1/messages/count_tokens', cache: false },
  { suffix: '/v1/responses', cache: true },
];

function pathOf(url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    // A relative URL (browsers resolve it against the page).
    path = url.split(/[?#]/, 1)[0] ?? '';
  }
  return path.replace(/\/+$/, '');
}

function modelRoute(url: string, method: string | undefined): { cache: boolean } | undefined {
  if ((method ?? 'GET').toUpperCase() !== 'POST') return undefined;
  const path = pathOf(url);
  return MODEL_ROUTES.find((route) => path.endsWith(route.suffix));
}

/** Any HeadersInit (a Headers of any implementation, pairs, a record) -> a record with lowercase names. */
export function headersRecord(headers: unknown): Record<string, string> {
  const record: Record<string, string> = {};
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    const key = name.toLowerCase();
    record[key] = key in record ? `${record[key]}, ${String(value)}` : String(value);
  };
  if (headers === undefined || headers === null) return record;
  if (Array.isArray(headers)) {
    for (const pair of headers as unknown[][]) add(String(pair[0]), pair[1]);
  } else if (typeof (headers as { forEach?: unknown }).forEach === 'function') {
    (headers as { forEach(callback: (value: string, name: string) => void): void }).forEach((value, name) => {
      add(name, value);
    });
  } else if (typeof headers === 'object') {
    for (const [name, value] of Object.entries(headers)) {
      if (Array.isArray(value)) for (const one of value) add(name, one);
      else add(name, value);
    }
  }
  return record;
}

interface RequestLike {
  url: string;
  method: string;
  headers: unknown;
  signal?: AbortSignal | null;
  body: unknown;
  clone(): { arrayBuffer(): Promise<ArrayBuffer> };
}

function isRequestLike(input: unknown): input is RequestLike {
  return (
    typeof input === 'object' &&
    input !== null &&
    typeof (input as RequestLike).url === 'string' &&
    typeof (input as RequestLike).method === 'string' &&
    typeof (input as RequestLike).clone === 'function'
  );
}

/** A fetch call, normalised: its URL, its options, and its headers as a record with lowercase names. */
interface NormalisedCall {
  url: string;
  init: FetchInit & Record<string, unknown>;
  headers: Record<string, string>;
}

/** The URL and options of a fetch call, whatever form it came in (a `Request` is read into options). */
async function normaliseCall(
  input: unknown,
  init: (FetchInit & Record<string, unknown>) | undefined,
): Promise<NormalisedCall> {
  if (!isRequestLike(input)) {
    const url = typeof input === 'string' ? input : String((input as { href?: unknown }).href ?? input);
    return { url, init: { ...init }, headers: headersRecord(init?.headers) };
  }
  const base: FetchInit & Record<string, unknown> = { method: input.method };
  if (input.signal) base.signal = input.signal;
  if (input.body !== null && input.body !== undefined && init?.body === undefined)
    base.body = await input.clone().arrayBuffer();
  // As with fetch itself, headers given with the call replace the Request's.
  const headers = headersRecord(init?.headers === undefined ? input.headers : init.headers);
  return { url: input.url, init: { ...base, ...init }, headers };
}

/** The text of a body this package can rewrite (a string or bytes), else undefined. */
function bodyText(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return new TextDecoder().decode(body);
  if (ArrayBuffer.isView(body))
    return new TextDecoder().decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
  return undefined;
}

/** The body with its `model` pinned to the Connection, or undefined when nothing changes. */
function pinBodyModel(body: unknown, slug: string): string | undefined {
  const text = bodyText(body);
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const json = parsed as Record<string, unknown>;
  const model = pinModel(json.model, slug);
  return model === json.model ? undefined : JSON.stringify({ ...json, model });
}

/** Calls a user callback; what it throws is reported like an event listener's, never fails the request. */
function notify<T extends unknown[]>(callback: ((...args: T) => void) | undefined, ...args: T): void {
  if (callback === undefined) return;
  try {
    callback(...args);
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}

/**
 * Creates a fetch for the gateway. Plug it into an official client:
 *
 * ```ts
 * const gatewayFetch = createGatewayFetch({ connection: '@mine', onRouting: (r) => console.log(r) });
 * const openai = new OpenAI({ apiKey, baseURL: 'https://gateway.example/v1', fetch: gatewayFetch });
 * await openai.chat.completions.create({ model: 'gpt-4o', messages }); // sent as @mine/gpt-4o
 * gatewayFetch.lastRouting(); // { byok: true, connectionSlug: 'mine', ... }
 * ```
 *
 * @throws GatewayValidationError when `connection`, `workspaceCredential` or `cache` is invalid.
 */
export function createGatewayFetch(options: GatewayFetchOptions = {}): GatewayFetch {
  const slug = resolveConnection(options);
  // Validated here, when the fetch is created.
  const clientCacheHeaders = Object.entries(cacheHeaders(options.cache));
  const { onRouting, onResult, dispatcher } = options;
  let last: GatewayResponseInfo | undefined;

  const gatewayFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call = await normaliseCall(input, init as (FetchInit & Record<string, unknown>) | undefined);
    const { headers } = call;
    const route = modelRoute(call.url, call.init.method);
    if (route?.cache === true) {
      for (const [name, value] of clientCacheHeaders) if (!(name in headers)) headers[name] = value;
    }
    if (route !== undefined && slug !== undefined) {
      const pinned = pinBodyModel(call.init.body, slug);
      if (pinned !== undefined) {
        call.init.body = pinned;
        delete headers['content-length'];
      }
    }
    const chosenDispatcher = call.init.dispatcher ?? dispatcher;
    if (chosenDispatcher !== undefined) call.init.dispatcher = bridgeDispatcher(chosenDispatcher);
    // Looked up on every call, so that a fetch installed (or mocked) after creation is the one used.
    const send: FetchImplementation = options.fetch ?? (globalThis.fetch as unknown as FetchImplementation);
    const response: ResponseLike = await send(call.url, { ...call.init, headers });
    if (typeof response?.headers?.get === 'function') {
      const info = parseResponseInfo(response);
      last = info;
      if (info.routing !== undefined) notify(onRouting, info.routing, info);
      notify(onResult, info);
    }
    return response as unknown as Response;
  };
  return Object.assign(gatewayFetch, {
    lastRouting: () => last?.routing,
    lastResult: () => last,
  });
}

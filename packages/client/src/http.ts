/**
 * The little of fetch this package relies on, typed structurally. Responses are read by duck typing
 * (`headers.get(name)`), never with `instanceof Response` or `instanceof Headers`: undici's own
 * `fetch` returns its own classes, which are not the globals (the bug fixed in 0.2.3).
 */

/** Anything with a case-insensitive `get(name)`: the `Headers` of any fetch implementation. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** The body of a response as this package reads it: a WHATWG `ReadableStream` of bytes. */
export interface ByteStreamLike {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array | string | undefined }>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
}

/** A fetch `Response` of any implementation (the global one, undici's, a polyfill). */
export interface ResponseLike {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: HeadersLike;
  readonly body: ByteStreamLike | null;
  text(): Promise<string>;
}

/**
 * The request options this package passes to the underlying fetch: a `RequestInit` (headers as a
 * record with lowercase names) plus undici's `dispatcher`. Typed loosely so that any fetch
 * implementation's own `RequestInit` fits.
 */
export interface FetchInit {
  method?: string;
  headers?: unknown;
  body?: unknown;
  signal?: AbortSignal | null;
  /** Node's fetch (undici): the dispatcher to send with. Browsers ignore it. */
  dispatcher?: unknown;
}

/**
 * A fetch implementation: `globalThis.fetch`, undici's `fetch`, or any compatible function. Declared
 * as a method so that implementations with their own `RequestInit` and `Response` types (undici's)
 * are accepted as they are.
 */
export type FetchImplementation = {
  fetch(input: string, init?: FetchInit): Promise<ResponseLike>;
}['fetch'];

/** The media type of a `content-type` value, lowercased, without its parameters. */
export function mediaType(headers: HeadersLike): string {
  const value = headers.get('content-type');
  if (value === null) return '';
  return (value.split(';', 1)[0] ?? '').trim().toLowerCase();
}

/** `application/json`, or any `+json` type (`application/problem+json`), whatever the case and parameters. */
export function isJsonContent(headers: HeadersLike): boolean {
  const type = mediaType(headers);
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** `text/event-stream`, whatever the case and parameters. */
export function isEventStream(headers: HeadersLike): boolean {
  return mediaType(headers) === 'text/event-stream';
}

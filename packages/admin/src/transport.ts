/**
 * HTTP for both clients: a GraphQL call (`POST <url>/graphql` or `/admin/graphql`, Bearer token)
 * and a REST call (`POST /provision/tenant`, `/auth/org/create`), each answer mapped to its result
 * or to a typed exception (errors.ts). The credential is held in a private field and only ever
 * written into the Authorization header.
 */
import { AdminApiError, AdminTransportError, type GraphQLErrorEntry } from './errors.ts';
import type { TypedDocument } from './typed-document.ts';

/** The `fetch` the SDK calls; the global one by default. Pass your own for proxies, retries or tests. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (it then fails with `AdminTransportError` code `ABORTED`). */
  signal?: AbortSignal;
}

/** How a client reaches the control plane. */
export interface ConnectionOptions {
  /** The control plane's base URL (`http://127.0.0.1:8081`); a path prefix is kept. */
  url: string;
  /** The `fetch` to use; default: the global `fetch`. */
  fetch?: FetchLike;
  /** Milliseconds before a call fails with `AdminTransportError` code `TIMEOUT`; default 60000. */
  timeoutMs?: number;
}

/** Default time a call may take (mutations return once the gateway serves their result). */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** A checked base URL without a trailing slash; a bad one is a TypeError (a programming error). */
export function normaliseBaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError('url must be an absolute http(s) URL of the control plane');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError('url must be an absolute http(s) URL of the control plane');
  }
  // fetch refuses URLs with credentials; the token goes in the Authorization header instead.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new TypeError('url must not carry a user name or password');
  }
  return url.replace(/\/+$/, '');
}

/** The URL as errors may show it: no user info, no query. */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Error entries as the server sent them, reduced to the documented fields. */
function errorEntries(value: unknown): GraphQLErrorEntry[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.map((entry) => {
    const error = isObject(entry) ? entry : {};
    const extensions = isObject(error.extensions) ? error.extensions : undefined;
    return {
      message: typeof error.message === 'string' ? error.message : 'unknown error',
      ...(Array.isArray(error.path) ? { path: error.path as (string | number)[] } : {}),
      ...(extensions === undefined ? {} : { extensions: extensions as GraphQLErrorEntry['extensions'] }),
    };
  });
}

/** Sends requests to one control plane with one credential (or none). */
export class Transport {
  readonly baseUrl: string;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #credential: string | undefined;

  constructor(options: ConnectionOptions, credential: string | undefined) {
    this.baseUrl = normaliseBaseUrl(options.url);
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(this.#timeoutMs) || this.#timeoutMs <= 0) {
      throw new TypeError('timeoutMs must be a positive number');
    }
    if (credential !== undefined && (typeof credential !== 'string' || credential.trim() === '')) {
      throw new TypeError('token must be a non-empty string');
    }
    this.#credential = credential?.trim();
  }

  /** Runs a document against `path`; resolves with its `data`, throws typed errors. */
  async graphql<Result, Variables>(
    path: string,
    document: TypedDocument<Result, Variables>,
    variables: Variables,
    options: CallOptions = {},
  ): Promise<Result> {
    const operation = document.operationName;
    const { status, body } = await this.#send(
      path,
      operation,
      { query: document.query, variables, operationName: operation },
      this.#credential,
      {},
      options,
    );
    const errors = isObject(body) ? errorEntries(body.errors) : undefined;
    if (errors !== undefined) throw new AdminApiError({ operation, status, errors });
    if (!isObject(body) || !isObject(body.data)) {
      throw new AdminTransportError(
        `${operation}: the answer from ${displayUrl(this.baseUrl + path)} (HTTP ${status}) is not a GraphQL result`,
        { code: 'UNEXPECTED_RESPONSE', status, operation },
      );
    }
    return body.data as Result;
  }

  /** POSTs a JSON body to a REST endpoint with `credential` (not the client's own); resolves with the JSON answer. */
  async rest<Result>(
    path: string,
    body: unknown,
    credential: string | undefined,
    headers: Record<string, string>,
    options: CallOptions = {},
  ): Promise<{ status: number; body: Result }> {
    const operation = `POST ${path}`;
    const answer = await this.#send(path, operation, body, credential, headers, options);
    if (answer.status >= 200 && answer.status < 300 && isObject(answer.body)) {
      return { status: answer.status, body: answer.body as Result };
    }
    const envelope = isObject(answer.body) && isObject(answer.body.error) ? answer.body.error : undefined;
    if (envelope === undefined || typeof envelope.code !== 'string') {
      throw new AdminTransportError(
        `${operation}: the answer from ${displayUrl(this.baseUrl + path)} (HTTP ${answer.status}) is not the control plane's`,
        { code: 'UNEXPECTED_RESPONSE', status: answer.status, operation },
      );
    }
    const fields = Array.isArray(envelope.fields)
      ? envelope.fields.filter((field): field is string => typeof field === 'string')
      : undefined;
    throw new AdminApiError({
      operation,
      status: answer.status,
      errors: [
        {
          message: typeof envelope.message === 'string' ? envelope.message : 'request refused',
          extensions: { code: envelope.code },
        },
      ],
      fields,
      retryAfterSeconds: answer.retryAfter,
    });
  }

  async #send(
    path: string,
    operation: string,
    payload: unknown,
    credential: string | undefined,
    headers: Record<string, string>,
    options: CallOptions,
  ): Promise<{ status: number; body: unknown; retryAfter: number | undefined }> {
    const url = this.baseUrl + path;
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]);
    const failed = (error: unknown, stage: string): AdminTransportError => {
      if (options.signal?.aborted) {
        return new AdminTransportError(
          `${operation}: aborted`,
          { code: 'ABORTED', operation },
          { cause: error },
        );
      }
      if (timeout.aborted) {
        return new AdminTransportError(
          `${operation}: no answer from ${displayUrl(url)} within ${this.#timeoutMs} ms`,
          { code: 'TIMEOUT', operation },
          { cause: error },
        );
      }
      const reason = (error as { cause?: { code?: unknown } }).cause?.code ?? (error as Error).message;
      return new AdminTransportError(
        `${operation}: ${stage} ${displayUrl(url)} failed (${String(reason)})`,
        { code: 'NETWORK_ERROR', operation },
        { cause: error },
      );
    };
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          ...headers,
          ...(credential === undefined ? {} : { authorization: `Bearer ${credential}` }),
        },
        body: JSON.stringify(payload),
        signal,
      });
    } catch (error) {
      throw failed(error, 'calling');
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw failed(error, 'reading the answer of');
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return {
      status: response.status,
      body,
      retryAfter: parseRetryAfter(response.headers.get('retry-after')),
    };
  }
}

/**
 * Pooled keep-alive HTTP to upstream providers (one undici Agent, a pool per origin), with the
 * configured timeouts, client aborts propagated, and transport failures turned into typed errors.
 */
import { Agent, type Dispatcher, errors as undiciErrors } from 'undici';
import type { UpstreamTimeouts } from '../config/settings.ts';
import {
  GatewayError,
  UpstreamDisconnectedError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../errors/gateway-error.ts';

export interface UpstreamRequest {
  provider: string;
  url: string;
  method?: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
}

export interface UpstreamResponse {
  statusCode: number;
  headers: Dispatcher.ResponseData['headers'];
  body: Dispatcher.ResponseData['body'];
}

/** Thrown when the request was aborted on purpose (the client went away); never rendered. */
export class UpstreamAbortedError extends Error {
  constructor() {
    super('upstream request aborted');
    this.name = 'UpstreamAbortedError';
  }
}

export class UpstreamClient {
  readonly #agent: Agent;

  constructor(timeouts: UpstreamTimeouts, connectionsPerOrigin = 128) {
    this.#agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connections: connectionsPerOrigin,
    });
  }

  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    try {
      const url = new URL(request.url);
      const response = await this.#agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method ?? 'POST',
        headers:
          request.body === undefined
            ? request.headers
            : { 'content-type': 'application/json', ...request.headers },
        body: request.body,
        signal: request.signal,
      });
      return { statusCode: response.statusCode, headers: response.headers, body: response.body };
    } catch (error) {
      throw classifyTransportError(request.provider, error, request.signal);
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

/**
 * A failure while reading an answer that had begun (status and headers received): a stall is a
 * timeout, anything else the upstream dropping the connection midway, never "could not reach".
 */
export function classifyBodyReadError(provider: string, error: unknown, signal?: AbortSignal): Error {
  const failure = classifyTransportError(provider, error, signal);
  return failure instanceof UpstreamUnreachableError
    ? new UpstreamDisconnectedError(provider, { cause: error })
    : failure;
}

/** Maps undici's error codes (never message text) to the gateway's error tree. */
export function classifyTransportError(provider: string, error: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted || (error instanceof Error && error.name === 'AbortError'))
    return new UpstreamAbortedError();
  // Already classified (a translator refusing what the upstream sent, say).
  if (error instanceof GatewayError) return error;
  if (
    error instanceof undiciErrors.ConnectTimeoutError ||
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError
  ) {
    return new UpstreamTimeoutError(provider, { cause: error });
  }
  return new UpstreamUnreachableError(provider, { cause: error });
}

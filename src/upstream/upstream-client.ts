/**
 * Pooled keep-alive HTTP to upstream providers (one undici Agent, a pool per origin), with the
 * configured timeouts, client aborts propagated, and transport failures turned into typed errors
 * (upstream-answer.ts); each call is handled by an UpstreamExchange (upstream-exchange.ts). HTTP/2
 * where allowed and the upstream offers it over TLS (ALPN); HTTP/1.1 otherwise, and always to a
 * plain-HTTP upstream.
 */
import { Agent } from 'undici';
import type { UpstreamTimeouts } from '../config/settings.ts';
import { classifyTransportError, type UpstreamRequest, type UpstreamResponse } from './upstream-answer.ts';
import { UpstreamExchange } from './upstream-exchange.ts';

export * from './upstream-answer.ts';

/** One upstream origin's connection pool right now (undici's pool stats). */
export interface UpstreamOriginStats {
  origin: string;
  /** Open connections (with HTTP/2, sessions: each carries up to STREAMS_PER_HTTP2_CONNECTION requests). */
  connected: number;
  /** Requests on a connection (sent, answer not finished): HTTP/1.1 one a connection, HTTP/2 many. */
  running: number;
  /**
   * Requests waiting for a connection: every connection is full (GATEWAY_UPSTREAM_CONNECTIONS of
   * them) or still connecting (with TLS, until ALPN has told HTTP/2 from HTTP/1.1).
   */
  queued: number;
}

/** The default of GATEWAY_UPSTREAM_CONNECTIONS: one HTTP/1.1 connection per open stream. */
export const DEFAULT_CONNECTIONS_PER_ORIGIN = 4096;

/**
 * Requests one HTTP/2 connection carries at once (fewer if the upstream's
 * SETTINGS_MAX_CONCURRENT_STREAMS says so); past it the pool opens another connection. undici's
 * default, stated here because GATEWAY_UPSTREAM_CONNECTIONS' meaning depends on it.
 */
export const STREAMS_PER_HTTP2_CONNECTION = 100;

export interface UpstreamPoolOptions {
  /**
   * Open connections to each origin at most (GATEWAY_UPSTREAM_CONNECTIONS). HTTP/1.1: one per
   * request in flight, so also the origin's concurrent requests per pod. HTTP/2: each connection
   * carries up to STREAMS_PER_HTTP2_CONNECTION requests. Requests past that wait in the pool,
   * counted by `stats()`.
   */
  connectionsPerOrigin?: number;
  /**
   * Offer HTTP/2 in TLS's ALPN (GATEWAY_UPSTREAM_HTTP2, default on); the upstream chooses. Off:
   * HTTP/1.1 only. Plain-HTTP upstreams get HTTP/1.1 either way (no cleartext HTTP/2).
   */
  http2?: boolean;
}

export class UpstreamClient {
  readonly #agent: Agent;

  constructor(timeouts: UpstreamTimeouts, options: UpstreamPoolOptions = {}) {
    const http2 = options.http2 ?? true;
    this.#agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connections: options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
      // Explicit both ways: left unset, undici (8.x) offers HTTP/2 in ALPN.
      allowH2: http2,
      ...(http2 ? { h2Options: { maxConcurrentStreams: STREAMS_PER_HTTP2_CONNECTION } } : {}),
    });
  }

  /**
   * Sends one request; resolves with the answer once its status and headers are in, the body to
   * be read after. Through undici's `dispatch` with a handler of our own rather than `request()`:
   * `request()`'s handler, body stream and promise plumbing kept about 5 KB of every request alive
   * until a full GC (bench/README.md, Throughput).
   */
  send(request: UpstreamRequest): Promise<UpstreamResponse> {
    return new Promise<UpstreamResponse>((resolve, reject) => {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (error) {
        reject(classifyTransportError(request.provider, error, request.signal));
        return;
      }
      const exchange = new UpstreamExchange(request, resolve, reject);
      try {
        this.#agent.dispatch(
          {
            origin: url.origin,
            path: url.pathname + url.search,
            method: request.method ?? 'POST',
            headers:
              request.body === undefined
                ? request.headers
                : { 'content-type': 'application/json', ...request.headers },
            body: request.body ?? null,
          },
          exchange,
        );
      } catch (error) {
        exchange.onResponseError(undefined, error as Error);
      }
    });
  }

  /** Each origin's pool now, read when metrics are scraped (not per request). */
  stats(): UpstreamOriginStats[] {
    return Object.entries(this.#agent.stats).map(([origin, pool]) => ({
      origin,
      // One connection per origin makes undici use a Client, whose `connected` is a flag.
      connected: Number(pool.connected),
      running: pool.running,
      queued: pool.pending,
    }));
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

/**
 * Pooled keep-alive HTTP to upstream providers (one undici Agent, a pool per origin), with the
 * configured timeouts, client aborts propagated, and transport failures turned into typed errors
 * (upstream-answer.ts); each call is handled by an UpstreamExchange (upstream-exchange.ts).
 */
import { Agent } from 'undici';
import type { UpstreamTimeouts } from '../config/settings.ts';
import { classifyTransportError, type UpstreamRequest, type UpstreamResponse } from './upstream-answer.ts';
import { UpstreamExchange } from './upstream-exchange.ts';

export * from './upstream-answer.ts';

/** One upstream origin's connection pool right now (undici's pool stats). */
export interface UpstreamOriginStats {
  origin: string;
  /** Open connections. */
  connected: number;
  /** Requests on a connection (sent, answer not finished). */
  running: number;
  /** Requests waiting for a connection: the pool is at GATEWAY_UPSTREAM_CONNECTIONS, or connecting. */
  queued: number;
}

/** The default of GATEWAY_UPSTREAM_CONNECTIONS: one HTTP/1.1 connection per open stream. */
export const DEFAULT_CONNECTIONS_PER_ORIGIN = 4096;

export class UpstreamClient {
  readonly #agent: Agent;

  /**
   * `connectionsPerOrigin` bounds the open connections to each origin (GATEWAY_UPSTREAM_CONNECTIONS):
   * with HTTP/1.1 one per request in flight, so it is also the origin's concurrent streams per pod;
   * requests past it wait in the pool, counted by `stats()`.
   */
  constructor(timeouts: UpstreamTimeouts, connectionsPerOrigin = DEFAULT_CONNECTIONS_PER_ORIGIN) {
    this.#agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 600_000,
      connections: connectionsPerOrigin,
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

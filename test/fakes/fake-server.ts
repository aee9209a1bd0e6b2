/**
 * A programmable local HTTP server that records every request it receives. Provider fakes build
 * on it; tests can override the next responses to simulate errors, hangs and slow streams.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  rawBody: string;
  body: unknown;
  /** Resolves when the client closed the connection before the response finished (an abort). */
  aborted: Promise<void>;
  /** Whether the abort already happened. */
  wasAborted(): boolean;
}

export type FakeHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export class FakeServer {
  readonly requests: RecordedRequest[] = [];
  readonly #routes = new Map<string, FakeHandler>();
  readonly #overrides: FakeHandler[] = [];
  readonly #server: Server;
  #waiters: { count: number; resolve: () => void }[] = [];
  url = '';

  constructor() {
    this.#server = createServer((request, response) => void this.#handle(request, response));
    this.#server.keepAliveTimeout = 60_000;
  }

  route(method: string, path: string, handler: FakeHandler): this {
    this.#routes.set(`${method} ${path}`, handler);
    return this;
  }

  /** The next request (of any route) is answered by `handler` instead of the route. */
  overrideNext(handler: FakeHandler): this {
    this.#overrides.push(handler);
    return this;
  }

  /** Resolves once `count` requests in total have been received. */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  async start(): Promise<this> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    let aborted = false;
    let resolveAborted: () => void = () => {};
    const abortedPromise = new Promise<void>((resolve) => {
      resolveAborted = resolve;
    });
    response.once('close', () => {
      if (!response.writableFinished) {
        aborted = true;
        resolveAborted();
      }
    });
    const recorded: RecordedRequest = {
      method: request.method ?? 'GET',
      path: request.url ?? '/',
      headers: request.headers,
      rawBody,
      body,
      aborted: abortedPromise,
      wasAborted: () => aborted,
    };
    this.requests.push(recorded);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.requests.length >= waiter.count) waiter.resolve();
      return this.requests.length < waiter.count;
    });
    const handler =
      this.#overrides.shift() ?? this.#routes.get(`${recorded.method} ${recorded.path.split('?')[0]}`);
    if (handler === undefined) {
      sendJson(response, 404, {
        error: { message: `fake has no route ${recorded.method} ${recorded.path}` },
      });
      return;
    }
    try {
      await handler(recorded, response);
    } catch (error) {
      if (!response.headersSent) sendJson(response, 500, { error: { message: String(error) } });
      else response.destroy();
    }
  }
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** Writes SSE events, yielding to the event loop between them so they leave as separate chunks. */
export async function sendSse(response: ServerResponse, events: string[]): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) {
    if (response.destroyed) return;
    response.write(event);
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

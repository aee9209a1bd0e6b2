import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  UpstreamDisconnectedError,
  UpstreamTimeoutError,
  UpstreamUnreachableError,
} from '../errors/gateway-error.ts';
import {
  type AnswerReading,
  BodyTooLargeError,
  MAX_ERROR_BODY_BYTES,
  UpstreamAbortedError,
  UpstreamClient,
} from './upstream-client.ts';

type Route = (request: IncomingMessage, response: ServerResponse) => void;

describe('UpstreamClient', () => {
  const routes = new Map<string, Route>();
  /** Whether the server saw each path's connection close before its answer ended. */
  const cutShort = new Map<string, Promise<boolean>>();
  let server: Server;
  let origin: string;
  const client = new UpstreamClient({ connectMs: 2000, headersMs: 5000, bodyMs: 5000 });

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = request.url ?? '/';
      cutShort.set(
        path,
        new Promise((resolve) => response.once('close', () => resolve(!response.writableFinished))),
      );
      request.resume();
      request.once('end', () => routes.get(path)?.(request, response));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await client.close();
    server.closeAllConnections();
    server.close();
  });

  const send = (path: string, signal?: AbortSignal, read?: AnswerReading) =>
    client.send({
      provider: 'test',
      url: `${origin}${path}`,
      headers: {},
      body: '{}',
      ...(signal ? { signal } : {}),
      ...(read === undefined ? {} : { read }),
    });

  it('reads an answer whole before resolving when asked: always, or by its content type', async () => {
    const parts = Array.from({ length: 200 }, (_, index) => `part ${index} é;`);
    routes.set('/whole', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      for (const part of parts) response.write(part);
      response.end();
    });
    const whole = await send('/whole', undefined, 'whole');
    expect(whole.text).toBe(parts.join(''));
    expect(await cutShort.get('/whole')).toBe(false);
    // A stream asked for, and JSON answered: read whole all the same.
    const notStream = await send('/whole', undefined, { stream: 'sse' });
    expect(notStream.text).toBe(parts.join(''));
    const raw = await send('/whole');
    expect(raw.text).toBeUndefined();
    expect(await raw.body.text()).toBe(parts.join(''));
  });

  it('refuses an answer read whole past MAX_ANSWER_BYTES, the connection dropped', async () => {
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    routes.set('/huge', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // Past the limit it goes on until the gateway hangs up: it never ends by itself.
      const writeMore = () => {
        while (!response.destroyed) {
          if (!response.write(piece)) {
            response.once('drain', writeMore);
            return;
          }
        }
      };
      writeMore();
    });
    await expect(send('/huge', undefined, 'whole')).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(await cutShort.get('/huge')).toBe(true);
  });

  it('reads an error answer before resolving: whole when short, its first 64 KiB when long', async () => {
    routes.set('/short-error', (_request, response) => {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' });
      response.end('{"error":"slow down"}');
    });
    const short = await send('/short-error');
    expect(short.statusCode).toBe(429);
    expect(short.text).toBe('{"error":"slow down"}');
    expect(await cutShort.get('/short-error')).toBe(false);

    routes.set('/long-error', (_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('e'.repeat(MAX_ERROR_BODY_BYTES * 3));
    });
    const long = await send('/long-error');
    expect(long.statusCode).toBe(500);
    expect(long.text).toBe('e'.repeat(MAX_ERROR_BODY_BYTES));
  });

  it('fails a body read before resolving that the upstream drops midway as a disconnect', async () => {
    routes.set('/dropped', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"partial":');
      setImmediate(() => response.destroy());
    });
    await expect(send('/dropped', undefined, 'whole')).rejects.toBeInstanceOf(UpstreamDisconnectedError);
  });

  it('hands over status and headers, then the body whole, however many chunks it came in', async () => {
    const parts = Array.from({ length: 300 }, (_, index) => `part ${index} é;`);
    routes.set('/chunks', (_request, response) => {
      response.writeHead(201, { 'content-type': 'text/plain', 'x-extra': 'yes' });
      for (const part of parts) response.write(part);
      response.end();
    });
    const answer = await send('/chunks');
    expect(answer.statusCode).toBe(201);
    expect(answer.headers['x-extra']).toBe('yes');
    expect(await answer.body.text()).toBe(parts.join(''));
  });

  it('gives a slow reader every byte of a large stream, holding only a few chunks at a time', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const count = 200;
    routes.set('/large', async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let index = 0; index < count; index += 1) {
        if (!response.write(chunk)) await once(response, 'drain');
      }
      response.end();
    });
    const answer = await send('/large');
    let received = 0;
    for await (const part of answer.body) {
      received += part.length;
      if (received % (1024 * 1024) < part.length) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(received).toBe(chunk.length * count);
    expect(await cutShort.get('/large')).toBe(false);
    // Read whole, the same stream is collected without pausing the upstream.
    const whole = await send('/large');
    expect((await whole.body.text()).length).toBe(chunk.length * count);
  });

  it('drops the connection when the reader stops early or destroys the body', async () => {
    const never = (_request: IncomingMessage, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first');
      // The rest never comes: only the client can end this.
    };
    routes.set('/break', never);
    routes.set('/destroy', never);
    const broken = await send('/break');
    for await (const _part of broken.body) break;
    expect(await cutShort.get('/break')).toBe(true);

    const destroyed = await send('/destroy');
    destroyed.body.destroy();
    expect(await cutShort.get('/destroy')).toBe(true);
    await expect(destroyed.body.text()).rejects.toThrow();
  });

  it('reads the rest and discards it on dump, the connection kept', async () => {
    routes.set('/dump', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'x'.repeat(100_000) }));
    });
    const answer = await send('/dump');
    await answer.body.dump();
    expect(await cutShort.get('/dump')).toBe(false);
  });

  it('aborts on the signal, before the answer and while its body is read', async () => {
    routes.set('/slow-headers', () => {});
    const early = new AbortController();
    const pending = send('/slow-headers', early.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    early.abort();
    await expect(pending).rejects.toBeInstanceOf(UpstreamAbortedError);

    routes.set('/slow-body', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('some');
    });
    const late = new AbortController();
    const answer = await send('/slow-body', late.signal);
    const reading = answer.body.text();
    late.abort();
    await expect(reading).rejects.toBeInstanceOf(UpstreamAbortedError);
    expect(await cutShort.get('/slow-body')).toBe(true);

    const already = new AbortController();
    already.abort();
    await expect(send('/chunks', already.signal)).rejects.toBeInstanceOf(UpstreamAbortedError);
  });

  it('reports an upstream it cannot reach as unreachable', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    await once(closed, 'close');
    await expect(
      client.send({ provider: 'test', url: `http://127.0.0.1:${port}/`, headers: {}, body: '{}' }),
    ).rejects.toBeInstanceOf(UpstreamUnreachableError);
  });
  it('holds at most its connections per origin, the requests past them queued and counted', async () => {
    const capped = new UpstreamClient(
      { connectMs: 2000, headersMs: 5000, bodyMs: 5000 },
      { connectionsPerOrigin: 2 },
    );
    const held: ServerResponse[] = [];
    /** Resolves once `count` requests have reached the server in all. */
    let arrivals = 0;
    const waiting = new Map<number, () => void>();
    const arrived = (count: number) =>
      new Promise<void>((resolve) => {
        if (arrivals >= count) resolve();
        else waiting.set(count, resolve);
      });
    routes.set('/held', (_request, response) => {
      held.push(response);
      arrivals += 1;
      waiting.get(arrivals)?.();
    });
    try {
      const answers = [1, 2, 3].map(() =>
        capped.send({ provider: 'test', url: `${origin}/held`, headers: {}, body: '{}' }),
      );
      await arrived(2);
      expect(capped.stats()).toEqual([{ origin, connected: 2, running: 2, queued: 1 }]);
      // Each answer frees its connection for the one waiting.
      const release = () => {
        for (const response of held.splice(0)) response.end('ok');
      };
      release();
      const [first, second] = await Promise.all(answers.slice(0, 2));
      expect(await first?.body.text()).toBe('ok');
      expect(await second?.body.text()).toBe('ok');
      await arrived(3);
      release();
      expect(await (await answers[2])?.body.text()).toBe('ok');
      expect(capped.stats()).toEqual([{ origin, connected: 2, running: 0, queued: 0 }]);
    } finally {
      await capped.close();
    }
  });
  it('relays a stream asked for as its events, decoded across chunk boundaries, comments kept', async () => {
    routes.set('/events', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': keep-alive\n\ndata: {"n":');
      setImmediate(() => response.end('1}\n\nevent: done\ndata: [DONE]\n\n'));
    });
    const answer = await send('/events', undefined, { stream: 'sse' });
    expect(answer.text).toBeUndefined();
    const seen: string[] = [];
    let flushes = 0;
    await answer.body.relayEvents({
      event: (event) => seen.push(`${event.event ?? 'message'}:${event.data}`),
      comment: (comment) => seen.push(`comment:${comment}`),
      flush: () => {
        flushes += 1;
        return undefined;
      },
    });
    expect(seen).toEqual(['comment:keep-alive', 'message:{"n":1}', 'done:[DONE]']);
    expect(flushes).toBeGreaterThanOrEqual(2);
    // Not a stream asked for: no events to relay.
    const raw = await send('/events');
    await expect(raw.body.relayEvents({ event() {}, comment() {}, flush: () => undefined })).rejects.toThrow(
      'not the stream asked for',
    );
  });

  it('relays chunks to a sink as they come, held back while the sink is behind, every byte in order', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'b');
    const count = 100;
    routes.set('/relayed', async (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      for (let index = 0; index < count; index += 1) {
        if (!response.write(chunk)) await once(response, 'drain');
      }
      response.end('end');
    });
    const answer = await send('/relayed');
    const parts: Buffer[] = [];
    let behind = 0;
    await answer.body.relay((part) => {
      parts.push(part);
      // Every fourth chunk the sink is behind for a turn of the event loop.
      if (parts.length % 4 !== 0) return undefined;
      behind += 1;
      return new Promise((resolve) => setImmediate(resolve));
    });
    const whole = Buffer.concat(parts);
    expect(whole.length).toBe(chunk.length * count + 3);
    expect(whole.subarray(-3).toString()).toBe('end');
    expect(behind).toBeGreaterThan(0);
    expect(await cutShort.get('/relayed')).toBe(false);
  });

  it('rejects a relay with the failure after the chunks before it, and aborts when the sink throws', async () => {
    routes.set('/broken', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('first');
      setImmediate(() => response.destroy());
    });
    const received: string[] = [];
    const broken = await send('/broken');
    await expect(broken.body.relay((part) => void received.push(part.toString()))).rejects.toThrow();
    expect(received.join('')).toBe('first');

    routes.set('/unwanted', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('part');
    });
    const unwanted = await send('/unwanted');
    await expect(
      unwanted.body.relay(() => {
        throw new Error('sink failed');
      }),
    ).rejects.toThrow('sink failed');
    expect(await cutShort.get('/unwanted')).toBe(true);
  });

  it('aborts a call whose first byte does not come within firstByteTimeoutMs as a timeout', async () => {
    const timed = (path: string, firstByteTimeoutMs: number, read: AnswerReading) =>
      client.send({
        provider: 'test',
        url: `${origin}${path}`,
        headers: {},
        body: '{}',
        read,
        firstByteTimeoutMs,
      });
    // Silent: no head at all.
    routes.set('/silent', () => {});
    const started = performance.now();
    await expect(timed('/silent', 100, 'whole')).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(await cutShort.get('/silent')).toBe(true);
    // A stream's head at once, then nothing: its first chunk is its first byte.
    routes.set('/head-only', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
    });
    const headOnly = await timed('/head-only', 100, { stream: 'sse' });
    await expect(
      headOnly.body.relayEvents({ event() {}, comment() {}, flush: () => undefined }),
    ).rejects.toBeInstanceOf(UpstreamTimeoutError);
    // A first chunk in time: later chunks may be slower than the deadline.
    routes.set('/slow-later', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: 1\n\n');
      setTimeout(() => response.end('data: 2\n\n'), 250);
    });
    const slowLater = await timed('/slow-later', 100, { stream: 'sse' });
    const data: string[] = [];
    await slowLater.body.relayEvents({
      event: (event) => void data.push(event.data),
      comment() {},
      flush: () => undefined,
    });
    expect(data).toEqual(['1', '2']);
    // A whole answer's head in time: its body is not under the deadline.
    routes.set('/slow-body', (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"a":');
      setTimeout(() => response.end('1}'), 250);
    });
    expect((await timed('/slow-body', 100, 'whole')).text).toBe('{"a":1}');
  });
});

import Fastify, { type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UpstreamDisconnectedError } from '../errors/gateway-error.ts';
import { createLogger } from '../observability/logger.ts';
import { createGatewayMetrics } from '../observability/metrics.ts';
import { createUpstreamEventReader } from '../sse/stream-framing.ts';
import { createOpenAiStreamObserver } from '../translate/plans/stream-observers.ts';
import { createStreamPipeline } from '../translate/plans/stream-pipeline.ts';
import type { UpstreamBody, UpstreamResponse } from '../upstream/upstream-client.ts';
import { relayStream, type StreamOutcome } from './relay-stream.ts';

/** An upstream answer whose body is these chunks, as they would come off the socket. */
function upstreamAnswer(chunks: string[], failAfter?: number): UpstreamResponse {
  const body: UpstreamBody = {
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) yield Buffer.from(chunk);
    },
    text: async () => chunks.join(''),
    dump: async () => {},
    destroy: () => {},
    async relay(onChunk) {
      for (const chunk of chunks) await onChunk(Buffer.from(chunk));
    },
    async relayEvents(sink) {
      const reader = createUpstreamEventReader('sse', sink.event, sink.comment);
      for (const [index, chunk] of chunks.entries()) {
        if (index === failAfter) throw Object.assign(new Error('socket hang up'), { code: 'UND_ERR_SOCKET' });
        reader.feed(Buffer.from(chunk));
        await sink.flush();
      }
      reader.end();
    },
  };
  return { statusCode: 200, headers: { 'content-type': 'text/event-stream' }, text: undefined, body };
}

/** `count` content events of `size` characters each, then the end marker. */
function events(count: number, size: number): string[] {
  const piece = 'y'.repeat(size);
  const content = Array.from(
    { length: count },
    () => `data: {"choices":[{"index":0,"delta":{"content":"${piece}"}}]}\n\n`,
  );
  return [...content, 'data: [DONE]\n\n'];
}

describe('relayStream', () => {
  let app: FastifyInstance;
  let url: string;
  let next: {
    chunks: string[];
    recordLimitBytes: number;
    failAfter?: number;
    holdHead?: boolean;
    beforeComplete?: () => Promise<void>;
  };
  let outcome: StreamOutcome | undefined;
  let thrown: unknown;

  beforeAll(async () => {
    app = Fastify();
    const metrics = createGatewayMetrics(new Registry(), false);
    const log = createLogger('silent', 'test');
    app.post('/stream', async (_request, reply) => {
      outcome = undefined;
      thrown = undefined;
      try {
        outcome = await relayStream(reply, upstreamAnswer(next.chunks, next.failAfter), {
          pipeline: createStreamPipeline(undefined, createOpenAiStreamObserver(true), undefined),
          framing: 'sse',
          dialect: 'openai',
          provider: 'test',
          routeLabel: '/stream',
          headers: {},
          record: true,
          recordLimitBytes: next.recordLimitBytes,
          holdHead: next.holdHead === true,
          ...(next.beforeComplete === undefined ? {} : { beforeComplete: next.beforeComplete }),
          signal: new AbortController().signal,
          metrics,
          log,
        });
      } catch (error) {
        thrown = error;
        throw error;
      }
      return reply;
    });
    url = `${await app.listen({ host: '127.0.0.1', port: 0 })}/stream`;
  });
  afterAll(async () => {
    await app.close();
  });

  it('writes the end marker only once beforeComplete has settled, and everything before it at once', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let called = 0;
    next = {
      chunks: events(3, 10),
      recordLimitBytes: 1024 * 1024,
      beforeComplete: () => {
        called += 1;
        return held;
      },
    };
    const response = await fetch(url, { method: 'POST' });
    const reader = response.body!.getReader();
    let received = '';
    while (received.split('"content"').length - 1 < 3) {
      const { value } = await reader.read();
      received += new TextDecoder().decode(value);
    }
    // The hook runs once the end marker is ready; every content event went out before it.
    await vi.waitFor(() => expect(called).toBe(1));
    expect(received).not.toContain('[DONE]');
    release();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += new TextDecoder().decode(value);
    }
    expect(received).toBe(next.chunks.join(''));
    expect(called).toBe(1);
  });

  it('records what the client received, for the cache', async () => {
    next = { chunks: events(20, 100), recordLimitBytes: 1024 * 1024 };
    const text = await (await fetch(url, { method: 'POST' })).text();
    expect(text).toBe(next.chunks.join(''));
    expect(outcome).toMatchObject({ complete: true, recorded: text });
  });

  it('drops the recording once it grows past the cache entry limit, and still relays every byte', async () => {
    next = { chunks: events(200, 1000), recordLimitBytes: 16 * 1024 };
    const text = await (await fetch(url, { method: 'POST' })).text();
    expect(text).toBe(next.chunks.join(''));
    expect(outcome?.complete).toBe(true);
    expect(outcome?.recorded).toBeUndefined();
  });

  it('holding the head, throws a failure before the first byte and sends nothing (a route may try another target)', async () => {
    next = { chunks: events(3, 10), recordLimitBytes: 1024 * 1024, failAfter: 0, holdHead: true };
    const response = await fetch(url, { method: 'POST' });
    expect(response.headers.get('content-type')).not.toContain('text/event-stream');
    expect(response.status).toBe(502);
    expect(thrown).toBeInstanceOf(UpstreamDisconnectedError);
    expect(outcome).toBeUndefined();
  });

  it('holding the head, ends the stream with an error event once a byte went out, as without it', async () => {
    next = { chunks: events(3, 10), recordLimitBytes: 1024 * 1024, failAfter: 2, holdHead: true };
    const response = await fetch(url, { method: 'POST' });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(next.chunks[1]);
    expect(text).toContain('"error"');
    expect(text).not.toContain('[DONE]');
    expect(outcome?.complete).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatCompletionChunk,
  GatewayClient,
  type GatewayClientOptions,
  GatewayError,
  GatewayStreamError,
  GatewayValidationError,
  type MessageStreamEvent,
  type RoutingInfo,
} from '../src/index.ts';
import {
  balanceHeaders,
  chatChunks,
  type FakeGateway,
  REPLY,
  routingHeadersFor,
  sendJson,
  sendSse,
  startFakeGateway,
} from './fake-gateway.ts';

let gateway: FakeGateway;

beforeAll(async () => {
  gateway = await startFakeGateway();
});

afterAll(async () => {
  await gateway.stop();
});

const client = (options: Partial<GatewayClientOptions> = {}) =>
  new GatewayClient({ baseUrl: gateway.url, apiKey: 'tt_sk_test', ...options });
const messages = [{ role: 'user' as const, content: 'Hi' }];

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('GatewayClient.chat', () => {
  it('returns the completion with routing, balance, status and headers', async () => {
    const result = await client().chat({ model: '@mine/gpt-4o', messages });
    expect(result.data.choices[0]?.message.content).toBe(REPLY);
    expect(result.status).toBe(200);
    expect(result.routing).toEqual({
      byok: true,
      credentialId: 'default/mine',
      connectionSlug: 'mine',
      credentialLabel: 'mine',
    });
    expect(result.balance).toEqual({
      mode: 'prepaid',
      chargedMicros: 1500,
      chargeDeferred: false,
      remainingMicros: 99_999_000,
      currency: 'USD',
    });
    expect(result.cache).toBeUndefined();
    expect(result.headers.get('x-service-credential-slug')).toBe('mine');
  });

  it('sends the key as a bearer, JSON, to /v1/chat/completions (a trailing /v1 of the base URL accepted)', async () => {
    await new GatewayClient({ baseUrl: `${gateway.url}/v1/`, apiKey: 'tt_ev_token' }).chat({
      model: 'openai/gpt-4o',
      messages,
    });
    expect(gateway.last()).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer tt_ev_token', 'content-type': 'application/json' },
    });
  });

  it('pins the Connection, a leading @ stripped', async () => {
    const result = await client({ connection: '@mine' }).chat({ model: 'gpt-4o', messages });
    expect(gateway.last().body?.model).toBe('@mine/gpt-4o');
    expect(result.routing).toMatchObject({ byok: true, connectionSlug: 'mine' });
  });

  it('reads platform traffic as byok false', async () => {
    const result = await client({ connection: 'mine' }).chat({ model: 'openai/gpt-4o', messages });
    expect(result.routing).toEqual({ byok: false });
  });

  it('calls onRouting and keeps lastRouting()', async () => {
    const seen: RoutingInfo[] = [];
    const gatewayClient = client({ onRouting: (routing) => seen.push(routing) });
    await gatewayClient.chat({ model: '@mine/gpt-4o', messages });
    expect(seen).toEqual([expect.objectContaining({ byok: true, connectionSlug: 'mine' })]);
    expect(gatewayClient.lastRouting()).toEqual(seen[0]);
  });

  it('refuses a streaming body (chatStream is for that)', async () => {
    await expect(client().chat({ model: 'openai/gpt-4o', messages, stream: true })).rejects.toThrow(
      GatewayValidationError,
    );
  });
});

describe('GatewayClient cache controls', () => {
  it('sends client-wide options, with a call overriding field by field', async () => {
    const gatewayClient = client({
      cache: { cache: 'semantic', namespace: 'team', ttlSeconds: 600, tags: ['a'] },
    });
    await gatewayClient.chat({ model: 'openai/gpt-4o', messages });
    expect(gateway.last().headers).toMatchObject({
      'x-service-cache': 'semantic',
      'x-service-cache-namespace': 'team',
      'x-service-cache-ttl': '600',
      'x-service-cache-tags': 'a',
    });
    await gatewayClient.chat(
      { model: 'openai/gpt-4o', messages },
      { cache: { cache: 'no-store', tags: ['b', 'c'], threshold: 0.95 } },
    );
    expect(gateway.last().headers).toMatchObject({
      'x-service-cache': 'no-store',
      'x-service-cache-namespace': 'team',
      'x-service-cache-ttl': '600',
      'x-service-cache-tags': 'b,c',
      'x-service-cache-threshold': '0.95',
    });
  });

  it('refuses invalid options before sending anything', async () => {
    const before = gateway.requests.length;
    const tags = Array.from({ length: 17 }, (_, index) => `t${index}`);
    await expect(client().chat({ model: 'openai/gpt-4o', messages }, { cache: { tags } })).rejects.toThrow(
      GatewayValidationError,
    );
    await expect(
      client().embeddings({ model: 'openai/x', input: 'x' }, { cache: { policy: '' } }),
    ).rejects.toMatchObject({ option: 'cache.policy' });
    expect(() => client({ cache: { threshold: 2 } })).toThrow(/threshold/);
    expect(gateway.requests.length).toBe(before);
  });

  it('parses a semantic hit with its similarity', async () => {
    gateway.next((request, response) =>
      sendJson(
        response,
        200,
        { id: 'cached', choices: [] },
        {
          ...routingHeadersFor(request.body?.model),
          ...balanceHeaders('0'),
          'x-service-cache': 'semantic-hit',
          'x-service-cache-similarity': '0.912',
        },
      ),
    );
    const result = await client().chat(
      { model: 'openai/gpt-4o', messages },
      { cache: { cache: 'semantic' } },
    );
    expect(result.cache).toEqual({ status: 'semantic-hit', served: true, similarity: 0.912 });
    expect(result.balance?.chargedMicros).toBe(0);
  });
});

describe('GatewayClient streams', () => {
  it('chatStream yields the parsed chunks, with routing and the deferred charge up front', async () => {
    const result = await client({ connection: 'mine' }).chatStream({ model: 'gpt-4o', messages });
    expect(gateway.last().body).toMatchObject({ model: '@mine/gpt-4o', stream: true });
    expect(gateway.last().headers.accept).toBe('text/event-stream');
    expect(result.routing).toMatchObject({ byok: true, connectionSlug: 'mine' });
    expect(result.balance).toMatchObject({ chargeDeferred: true });
    const chunks: ChatCompletionChunk[] = await collect(result.data);
    expect(chunks).toHaveLength(7);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe(
      'Hello from the stream.',
    );
  });

  it('reads events split across writes and an event-stream content type in any case with parameters', async () => {
    gateway.next(async (_request, response) => {
      response.writeHead(200, {
        'Content-Type': 'Text/Event-Stream; charset=UTF-8',
        ...balanceHeaders('deferred'),
      });
      const text = chatChunks('m').join('');
      for (let index = 0; index < text.length; index += 7) {
        response.write(text.slice(index, index + 7));
        await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
    });
    const result = await client().chatStream({ model: 'openai/gpt-4o', messages });
    const chunks = await collect(result.data);
    expect(chunks).toHaveLength(7);
  });

  it('throws a GatewayStreamError for an error event, after the chunks before it', async () => {
    gateway.next((_request, response) =>
      sendSse(response, [
        chatChunks('m')[1] as string,
        `data: ${JSON.stringify({ error: { code: 'service.upstream_disconnected', message: 'cut off', type: 'api_error' } })}\n\n`,
      ]),
    );
    const result = await client().chatStream({ model: 'openai/gpt-4o', messages });
    const seen: unknown[] = [];
    const failure = await (async () => {
      try {
        for await (const chunk of result.data) seen.push(chunk);
      } catch (error) {
        return error;
      }
    })();
    expect(seen).toHaveLength(1);
    expect(failure).toBeInstanceOf(GatewayStreamError);
    expect(failure).toMatchObject({ status: 200, code: 'service.upstream_disconnected', message: 'cut off' });
  });

  it('cancels the response when the loop stops early (the connection is closed, not left open)', async () => {
    let closedEarly: () => void = () => {};
    const closed = new Promise<void>((resolve) => {
      closedEarly = resolve;
    });
    gateway.next((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chatChunks('m')[1]);
      // Never ends by itself: only the client's cancel closes it.
      response.on('close', () => {
        if (!response.writableFinished) closedEarly();
      });
    });
    const result = await client().chatStream({ model: 'openai/gpt-4o', messages });
    for await (const chunk of result.data) {
      expect(chunk.choices[0]?.delta.content).toBe('Hello');
      break;
    }
    await closed;
  });

  it('messagesStream yields the Anthropic events', async () => {
    const result = await client({ connection: 'claude-own' }).messagesStream({
      model: 'claude-3-5-haiku',
      max_tokens: 16,
      messages,
    });
    expect(result.routing).toMatchObject({ byok: true, connectionSlug: 'claude-own' });
    const events: MessageStreamEvent[] = await collect(result.data);
    expect(events[0]?.type).toBe('message_start');
    expect(events.at(-1)?.type).toBe('message_stop');
    const text = events
      .filter((event) => event.type === 'content_block_delta')
      .map((event) => (event.delta as { text: string }).text)
      .join('');
    expect(text).toBe('Hello from the stream.');
  });

  it('messagesStream throws the error event', async () => {
    gateway.next((_request, response) =>
      sendSse(response, [
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { code: 'service.upstream_timeout', message: 'slow', type: 'timeout_error' } })}\n\n`,
      ]),
    );
    const result = await client().messagesStream({ model: 'anthropic/x', max_tokens: 5, messages });
    await expect(collect(result.data)).rejects.toMatchObject({
      name: 'GatewayStreamError',
      code: 'service.upstream_timeout',
      type: 'timeout_error',
    });
  });

  it('refuses an answer that is not an event stream', async () => {
    await expect(
      (async () => {
        gateway.next((_request, response) => sendJson(response, 200, { not: 'a stream' }));
        return client().chatStream({ model: 'openai/gpt-4o', messages });
      })(),
    ).rejects.toMatchObject({ code: 'unexpected_content_type' });
  });
});

describe('GatewayClient other routes', () => {
  it('messages returns the Anthropic message', async () => {
    const result = await client().messages({ model: 'anthropic/claude-3-5-haiku', max_tokens: 16, messages });
    expect(result.data.content[0]).toMatchObject({ type: 'text', text: REPLY });
    expect(gateway.last().path).toBe('/v1/messages');
  });

  it('embeddings returns the vectors', async () => {
    const result = await client({ connection: 'mine' }).embeddings({
      model: 'text-embedding-3-small',
      input: 'x',
    });
    expect(result.data.data[0]?.embedding).toEqual([0.1, 0.2, 0.3]);
    expect(gateway.last().body?.model).toBe('@mine/text-embedding-3-small');
    expect(result.routing?.byok).toBe(true);
  });

  it('models lists the models (GET /v1/models, no body, no cache headers)', async () => {
    const result = await client({ cache: { cache: 'off' } }).models();
    expect(result.data.object).toBe('list');
    expect(result.data.data.map((model) => model.id)).toEqual([
      'openai/gpt-4o',
      'anthropic/claude-3-5-haiku',
    ]);
    expect(gateway.last()).toMatchObject({ method: 'GET', path: '/v1/models', rawBody: '' });
    expect(gateway.last().headers['x-service-cache']).toBeUndefined();
    expect(gateway.last().headers['content-type']).toBeUndefined();
  });

  it('countTokens counts through the pinned Connection', async () => {
    const result = await client({ connection: 'claude-own' }).countTokens({
      model: 'claude-3-5-haiku',
      messages,
    });
    expect(result.data.input_tokens).toBe(42);
    expect(gateway.last()).toMatchObject({ path: '/v1/messages/count_tokens' });
    expect(gateway.last().body?.model).toBe('@claude-own/claude-3-5-haiku');
  });
});

describe('GatewayClient errors', () => {
  it("throws a GatewayError with the envelope's status, code, message and type", async () => {
    gateway.next((_request, response) =>
      sendJson(response, 401, {
        error: {
          code: 'service.invalid_key',
          message: 'invalid API key or token',
          type: 'authentication_error',
        },
      }),
    );
    const failure = await client()
      .chat({ model: 'openai/gpt-4o', messages })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({
      name: 'GatewayError',
      status: 401,
      code: 'service.invalid_key',
      message: 'invalid API key or token',
      type: 'authentication_error',
    });
  });

  it('reads the Anthropic-dialect envelope of /v1/messages', async () => {
    gateway.next((_request, response) =>
      sendJson(response, 403, {
        type: 'error',
        error: { code: 'service.scope_denied', message: 'not this model', type: 'permission_error' },
      }),
    );
    await expect(client().messages({ model: 'anthropic/x', max_tokens: 5, messages })).rejects.toMatchObject({
      status: 403,
      code: 'service.scope_denied',
    });
  });

  it('carries Retry-After and the routing of a routed request that failed', async () => {
    gateway.next((request, response) =>
      sendJson(
        response,
        429,
        { error: { code: 'service.upstream_error', message: 'slow down', type: 'rate_limit_error' } },
        { 'retry-after': '12', ...routingHeadersFor(request.body?.model) },
      ),
    );
    await expect(client().chat({ model: '@mine/gpt-4o', messages })).rejects.toMatchObject({
      status: 429,
      retryAfterSeconds: 12,
      routing: { byok: true, connectionSlug: 'mine' },
    });
  });

  it('makes http_<status> of an error page that is not the envelope', async () => {
    gateway.next((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<h1>Bad Gateway</h1>');
    });
    await expect(client().chat({ model: 'openai/gpt-4o', messages })).rejects.toMatchObject({
      status: 502,
      code: 'http_502',
      message: '<h1>Bad Gateway</h1>',
    });
  });

  it('detects JSON in any case and with parameters, and refuses a 200 that is not JSON', async () => {
    gateway.next((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'Application/JSON; Charset=UTF-8' });
      response.end(JSON.stringify({ id: 'x', choices: [] }));
    });
    expect((await client().chat({ model: 'openai/gpt-4o', messages })).data).toMatchObject({ id: 'x' });
    gateway.next((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('hello');
    });
    await expect(client().chat({ model: 'openai/gpt-4o', messages })).rejects.toMatchObject({
      code: 'unexpected_content_type',
      status: 200,
    });
  });

  it('refuses a missing base URL or key when constructed', () => {
    expect(() => new GatewayClient({ baseUrl: '', apiKey: 'k' })).toThrow(/baseUrl/);
    expect(() => new GatewayClient({ baseUrl: gateway.url, apiKey: '' })).toThrow(/apiKey/);
  });
});

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  type MockInstance,
  vi,
} from 'vitest';
import { resetDeprecationWarnings } from '../src/deprecation.ts';
import {
  cacheHeaders,
  createGatewayFetch,
  type GatewayResponseInfo,
  GatewayValidationError,
  type RoutingInfo,
} from '../src/index.ts';
import { type FakeGateway, REPLY, sendJson, startFakeGateway } from './fake-gateway.ts';

let gateway: FakeGateway;

beforeAll(async () => {
  gateway = await startFakeGateway();
});

afterAll(async () => {
  await gateway.stop();
});

const messages = [{ role: 'user' as const, content: 'Hi' }];

function post(fetch: ReturnType<typeof createGatewayFetch>, path: string, body: unknown, headers = {}) {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('createGatewayFetch: the pinned Connection', () => {
  it('rewrites an unprefixed model to @slug/model, a leading @ of the option stripped', async () => {
    const fetch = createGatewayFetch({ connection: '@mine' });
    await post(fetch, '/v1/chat/completions', { model: 'gpt-4o', messages });
    expect(gateway.last().body?.model).toBe('@mine/gpt-4o');
  });

  it('leaves provider-prefixed and Connection-prefixed models untouched', async () => {
    const fetch = createGatewayFetch({ connection: 'mine' });
    await post(fetch, '/v1/chat/completions', { model: 'openai/gpt-4o', messages });
    expect(gateway.last().body?.model).toBe('openai/gpt-4o');
    await post(fetch, '/v1/chat/completions', { model: '@other/gpt-4o', messages });
    expect(gateway.last().body?.model).toBe('@other/gpt-4o');
  });

  it('pins the model on embeddings, messages and count_tokens, keeping the rest of the body', async () => {
    const fetch = createGatewayFetch({ connection: 'mine' });
    await post(fetch, '/v1/embeddings', { model: 'text-embedding-3-small', input: 'x', dimensions: 3 });
    expect(gateway.last().body).toEqual({ model: '@mine/text-embedding-3-small', input: 'x', dimensions: 3 });
    await post(fetch, '/v1/messages', { model: 'claude-3-5-haiku', max_tokens: 5, messages });
    expect(gateway.last().body?.model).toBe('@mine/claude-3-5-haiku');
    await post(fetch, '/v1/messages/count_tokens', { model: 'claude-3-5-haiku', messages });
    expect(gateway.last().body?.model).toBe('@mine/claude-3-5-haiku');
  });

  it('pins the model on /v1/responses, and adds the cache headers there, but not on its GET', async () => {
    const fetch = createGatewayFetch({ connection: 'mine', cache: { cache: 'semantic' } });
    await post(fetch, '/v1/responses', { model: 'gpt-4.1', input: 'x', previous_response_id: 'resp_1' });
    expect(gateway.last().body).toEqual({
      model: '@mine/gpt-4.1',
      input: 'x',
      previous_response_id: 'resp_1',
    });
    expect(gateway.last().headers).toMatchObject({ 'x-service-cache': 'semantic' });
    await fetch(`${gateway.url}/v1/responses/resp_1`);
    expect(gateway.last()).toMatchObject({ method: 'GET', rawBody: '' });
  });

  it('touches no other path and no GET', async () => {
    const fetch = createGatewayFetch({ connection: 'mine' });
    await post(fetch, '/v1/threads/t1/messages', { model: 'gpt-4o' });
    expect(gateway.last().body?.model).toBe('gpt-4o');
    await fetch(`${gateway.url}/v1/models`);
    expect(gateway.last()).toMatchObject({ method: 'GET', rawBody: '' });
  });

  it('rewrites bodies given as bytes, and drops a stale content-length', async () => {
    const fetch = createGatewayFetch({ connection: 'mine' });
    const bytes = new TextEncoder().encode(JSON.stringify({ model: 'gpt-4o', messages }));
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) },
      body: bytes,
    });
    expect(response.status).toBe(200);
    expect(gateway.last().body?.model).toBe('@mine/gpt-4o');
  });

  it('reads a Request given as the input, its headers and body kept', async () => {
    const fetch = createGatewayFetch({ connection: 'mine', cache: { namespace: 'ns' } });
    const request = new Request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-trace': 'abc' },
      body: JSON.stringify({ model: 'gpt-4o', messages }),
    });
    await fetch(request);
    expect(gateway.last().body?.model).toBe('@mine/gpt-4o');
    expect(gateway.last().headers).toMatchObject({ 'x-trace': 'abc', 'x-service-cache-namespace': 'ns' });
  });

  it('leaves a body that is not JSON alone', async () => {
    const fetch = createGatewayFetch({ connection: 'mine' });
    await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', body: 'not json' });
    expect(gateway.last().rawBody).toBe('not json');
  });

  it('refuses an invalid connection when created', () => {
    expect(() => createGatewayFetch({ connection: 'Not A Slug' })).toThrow(GatewayValidationError);
  });
});

describe('createGatewayFetch: workspaceCredential (deprecated)', () => {
  let warn: MockInstance<typeof console.warn>;
  beforeEach(() => {
    resetDeprecationWarnings();
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  it('is honoured as the Connection', async () => {
    const fetch = createGatewayFetch({ workspaceCredential: '@legacy' });
    await post(fetch, '/v1/chat/completions', { model: 'gpt-4o', messages });
    expect(gateway.last().body?.model).toBe('@legacy/gpt-4o');
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('loses to connection when both are set, with exactly one warning across clients', async () => {
    const first = createGatewayFetch({ connection: 'mine', workspaceCredential: 'legacy' });
    const second = createGatewayFetch({ connection: 'mine', workspaceCredential: 'legacy' });
    await post(first, '/v1/chat/completions', { model: 'gpt-4o', messages });
    expect(gateway.last().body?.model).toBe('@mine/gpt-4o');
    await post(second, '/v1/chat/completions', { model: 'gpt-4o', messages });
    expect(gateway.last().body?.model).toBe('@mine/gpt-4o');
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe('createGatewayFetch: cache controls', () => {
  it('adds the client-wide cache headers to inference requests', async () => {
    const fetch = createGatewayFetch({
      cache: { cache: 'semantic', namespace: 'user-1', tags: ['a', 'b:c'] },
    });
    await post(fetch, '/v1/chat/completions', { model: 'openai/gpt-4o', messages });
    expect(gateway.last().headers).toMatchObject({
      'x-service-cache': 'semantic',
      'x-service-cache-namespace': 'user-1',
      'x-service-cache-tags': 'a,b:c',
    });
  });

  it("lets a call's own cache headers win field by field", async () => {
    const fetch = createGatewayFetch({ cache: { cache: 'semantic', namespace: 'user-1', force: true } });
    await post(
      fetch,
      '/v1/chat/completions',
      { model: 'openai/gpt-4o', messages },
      cacheHeaders({ cache: 'no-store', force: false }),
    );
    expect(gateway.last().headers).toMatchObject({
      'x-service-cache': 'no-store',
      'x-service-cache-namespace': 'user-1',
      'x-service-cache-force': '0',
    });
  });

  it('sends no cache headers on other routes', async () => {
    const fetch = createGatewayFetch({ cache: { cache: 'off' } });
    await fetch(`${gateway.url}/v1/models`);
    expect(gateway.last().headers['x-service-cache']).toBeUndefined();
    await post(fetch, '/v1/messages/count_tokens', { model: 'x', messages });
    expect(gateway.last().headers['x-service-cache']).toBeUndefined();
  });

  it('refuses invalid client-wide options when created, before any request', () => {
    const before = gateway.requests.length;
    expect(() => createGatewayFetch({ cache: { tags: ['Not A Tag'] } })).toThrow(GatewayValidationError);
    expect(() => createGatewayFetch({ cache: { ttlSeconds: 90_000 } })).toThrow(/ttlSeconds/);
    expect(gateway.requests.length).toBe(before);
  });
});

describe('createGatewayFetch: what the gateway said', () => {
  it('delivers routing to onRouting and through lastRouting(), synchronously', async () => {
    const seen: RoutingInfo[] = [];
    const fetch = createGatewayFetch({ onRouting: (routing) => seen.push(routing) });
    expect(fetch.lastRouting()).toBeUndefined();
    await post(fetch, '/v1/chat/completions', { model: '@mine/gpt-4o', messages });
    const byok = {
      byok: true,
      credentialId: 'default/mine',
      connectionSlug: 'mine',
      credentialLabel: 'mine',
    };
    expect(fetch.lastRouting()).toEqual(byok);
    await post(fetch, '/v1/chat/completions', { model: 'openai/gpt-4o', messages });
    expect(fetch.lastRouting()).toEqual({ byok: false });
    expect(seen).toEqual([byok, { byok: false }]);
  });

  it('gives status, routing, cache and balance through lastResult() and onResult', async () => {
    const results: GatewayResponseInfo[] = [];
    const fetch = createGatewayFetch({ onResult: (info) => results.push(info) });
    gateway.next((_request, response) =>
      sendJson(
        response,
        200,
        { ok: true },
        {
          'X-Service-BYOK': 'false',
          'X-Service-Cache': 'hit',
          'X-Service-Cache-Age': '3',
          'X-Service-Balance-Mode': 'prepaid',
          'X-Service-Balance-Charged-Micros': '0',
          'X-Service-Balance-Remaining-Micros': '100',
          'X-Service-Balance-Currency': 'USD',
        },
      ),
    );
    await post(fetch, '/v1/chat/completions', { model: 'openai/gpt-4o', messages });
    const expected = {
      status: 200,
      routing: { byok: false },
      cache: { status: 'hit', served: true, ageSeconds: 3 },
      balance: {
        mode: 'prepaid',
        chargedMicros: 0,
        chargeDeferred: false,
        remainingMicros: 100,
        currency: 'USD',
      },
    };
    expect(fetch.lastResult()).toEqual(expected);
    expect(results).toEqual([expected]);
  });

  it('forgets the routing when the last response carried none', async () => {
    const fetch = createGatewayFetch();
    await post(fetch, '/v1/chat/completions', { model: '@mine/gpt-4o', messages });
    gateway.next((_request, response) =>
      sendJson(response, 401, {
        error: { code: 'service.invalid_key', message: 'no', type: 'authentication_error' },
      }),
    );
    await post(fetch, '/v1/chat/completions', { model: '@mine/gpt-4o', messages });
    expect(fetch.lastRouting()).toBeUndefined();
    expect(fetch.lastResult()).toEqual({ status: 401 });
  });

  it('does not fail the request when a callback throws', async () => {
    const reported = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    const fetch = createGatewayFetch({
      onRouting: () => {
        throw new Error('callback bug');
      },
    });
    const response = await post(fetch, '/v1/chat/completions', { model: 'openai/gpt-4o', messages });
    expect(response.status).toBe(200);
    expect(await reported).toMatchObject({ message: 'callback bug' });
  });

  it('sends through the fetch it was given', async () => {
    const calls: string[] = [];
    const fetch = createGatewayFetch({
      fetch: (input, init) => {
        calls.push(input);
        return globalThis.fetch(input, init as RequestInit);
      },
    });
    await post(fetch, '/v1/chat/completions', { model: 'openai/gpt-4o', messages });
    expect(calls).toEqual([`${gateway.url}/v1/chat/completions`]);
  });
});

describe('the official openai client with the SDK fetch', () => {
  const openai = (fetch: ReturnType<typeof createGatewayFetch>) =>
    new OpenAI({ apiKey: 'tt_sk_test', baseURL: `${gateway.url}/v1`, fetch, maxRetries: 0 });

  it('reports routing on a BYOK request and on platform traffic', async () => {
    const fetch = createGatewayFetch();
    const client = openai(fetch);
    const completion = await client.chat.completions.create({ model: '@mine/gpt-4o', messages });
    expect(completion.choices[0]?.message.content).toBe(REPLY);
    expect(fetch.lastRouting()).toMatchObject({ byok: true, connectionSlug: 'mine' });
    await client.chat.completions.create({ model: 'openai/gpt-4o', messages });
    expect(fetch.lastRouting()).toEqual({ byok: false });
  });

  it('sends an unprefixed model through the pinned Connection, with per-call cache headers', async () => {
    const fetch = createGatewayFetch({ connection: '@mine', cache: { namespace: 'team' } });
    await openai(fetch).chat.completions.create(
      { model: 'gpt-4o', messages },
      { headers: cacheHeaders({ cache: 'force-refresh', ttlSeconds: 60 }) },
    );
    expect(gateway.last().body?.model).toBe('@mine/gpt-4o');
    expect(gateway.last().headers).toMatchObject({
      authorization: 'Bearer tt_sk_test',
      'x-service-cache': 'force-refresh',
      'x-service-cache-ttl': '60',
      'x-service-cache-namespace': 'team',
    });
    expect(fetch.lastRouting()).toMatchObject({ byok: true, connectionSlug: 'mine' });
  });

  it('streams, with the deferred charge in lastResult()', async () => {
    const fetch = createGatewayFetch({ connection: 'mine' });
    const stream = await openai(fetch).chat.completions.create({ model: 'gpt-4o', messages, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from the stream.');
    expect(fetch.lastResult()?.balance).toMatchObject({ chargeDeferred: true });
    expect(fetch.lastRouting()?.connectionSlug).toBe('mine');
  });
});

describe('the official Anthropic client with the SDK fetch', () => {
  const anthropic = (fetch: ReturnType<typeof createGatewayFetch>) =>
    new Anthropic({ apiKey: 'tt_sk_test', baseURL: gateway.url, fetch, maxRetries: 0 });

  it('reports routing on a BYOK request (pinned Connection) and on platform traffic', async () => {
    const fetch = createGatewayFetch({ connection: 'claude-own' });
    const client = anthropic(fetch);
    const message = await client.messages.create({ model: 'claude-3-5-haiku', max_tokens: 16, messages });
    expect(message.content[0]).toMatchObject({ type: 'text', text: REPLY });
    expect(gateway.last().body?.model).toBe('@claude-own/claude-3-5-haiku');
    expect(fetch.lastRouting()).toMatchObject({ byok: true, connectionSlug: 'claude-own' });
    await client.messages.create({ model: 'anthropic/claude-3-5-haiku', max_tokens: 16, messages });
    expect(fetch.lastRouting()).toEqual({ byok: false });
  });
});

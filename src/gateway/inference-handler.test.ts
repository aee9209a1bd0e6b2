/**
 * The request path through fastify's inject (no socket on the client side, no child process): the
 * handler's steps against in-process fake upstreams, the stream relay, and the cache step. The
 * end-to-end suites (test/integration) keep what needs real listeners and processes.
 */
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../test/fakes/fake-anthropic.ts';
import { openAiStreamEvents, startFakeOpenAi } from '../../test/fakes/fake-openai.ts';
import { type FakeServer, sendJson, type sendSse } from '../../test/fakes/fake-server.ts';
import { type InjectGateway, startInjectGateway } from '../../test/helpers/inject-gateway.ts';

let openai: FakeServer;
let anthropic: FakeServer;
let gateway: InjectGateway;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  gateway = await startInjectGateway({
    OPENAI_API_KEY: 'sk-platform',
    OPENAI_BASE_URL: `${openai.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: anthropic.url,
  });
});
afterAll(async () => {
  await gateway?.close();
  await openai?.stop();
  await anthropic?.stop();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  gateway.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json', ...headers },
    payload: payload as Record<string, unknown>,
  });

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'openai/gpt-4o-mini',
  messages: [{ role: 'user', content }],
  ...extra,
});

describe('the inference handler', () => {
  it('passes a JSON answer through with the model rewritten, balance and routing headers, and the charge', async () => {
    const response = await post('/v1/chat/completions', chat('plain', { temperature: 0.2 }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ object: 'chat.completion', model: 'gpt-4o-mini' });
    expect((openai.requests.at(-1)?.body as { model?: string } | undefined)?.model).toBe('gpt-4o-mini');
    expect(response.headers['x-service-byok']).toBe('false');
    expect(response.headers['x-service-balance-mode']).toBe('postpaid');
    expect(Number(response.headers['x-service-balance-charged-micros'])).toBeGreaterThan(0);
  });

  it('maps an upstream error answer through the plan (429 with Retry-After)', async () => {
    openai.overrideNext((_request, response) =>
      sendJson(response, 429, { error: { message: 'slow down' } }, { 'retry-after': '7' }),
    );
    const response = await post('/v1/chat/completions', chat('limited', { temperature: 0.3 }));
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.json().error).toMatchObject({ code: 'service.upstream_error', type: 'rate_limit_error' });
  });

  it('refuses an operation the provider does not serve with a 400 before any upstream call', async () => {
    const calls = anthropic.requests.length;
    const response = await post('/v1/embeddings', { model: 'anthropic/claude-3-5-haiku-latest', input: 'x' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain("provider 'anthropic' does not serve /v1/embeddings");
    expect(anthropic.requests.length).toBe(calls);
  });

  it('passes anthropic-beta on only to an upstream of the client’s own shape', async () => {
    const messages = {
      model: 'anthropic/claude-3-5-haiku-latest',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'beta' }],
      temperature: 0.4,
    };
    await post('/v1/messages', messages, { 'anthropic-beta': 'prompt-caching-2024-07-31' });
    expect(anthropic.requests.at(-1)?.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    await post('/v1/chat/completions', chat('no beta', { temperature: 0.4 }), {
      'anthropic-beta': 'prompt-caching-2024-07-31',
    });
    expect(openai.requests.at(-1)?.headers['anthropic-beta']).toBeUndefined();
  });

  it('answers errors in the dialect of the route: Anthropic’s envelope on /v1/messages', async () => {
    const response = await post('/v1/messages', { model: 'nowhere/x', max_tokens: 1, messages: [] });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });
});

describe('the stream relay', () => {
  it('relays events, asks the upstream for usage and drops that chunk when the client did not', async () => {
    const response = await post('/v1/chat/completions', chat('stream', { stream: true, temperature: 0.5 }));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['x-service-balance-charged-micros']).toBe('deferred');
    const sent = openai.requests.at(-1)?.body as { stream_options?: { include_usage?: boolean } };
    expect(sent.stream_options?.include_usage).toBe(true);
    expect(response.body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(response.body).not.toContain('"usage":{');
  });

  it('keeps the usage chunk when the client asked for it', async () => {
    const response = await post(
      '/v1/chat/completions',
      chat('stream usage', { stream: true, temperature: 0.5, stream_options: { include_usage: true } }),
    );
    expect(response.body).toContain('"usage":{');
  });

  it('ends a stream the upstream drops midway with an error event in the client’s dialect, no end marker', async () => {
    const cut = (events: string[]) => (_request: unknown, response: Parameters<typeof sendSse>[0]) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of events) response.write(event);
      setImmediate(() => response.socket?.destroy());
    };
    openai.overrideNext(cut(openAiStreamEvents('gpt-4o-mini', ['par'], false).slice(0, 2)));
    const chatStream = await post('/v1/chat/completions', chat('cut', { stream: true, temperature: 0.6 }));
    expect(chatStream.body).toContain('"code":"service.upstream_disconnected"');
    expect(chatStream.body).not.toContain('[DONE]');

    openai.overrideNext(cut(openAiStreamEvents('gpt-4o-mini', ['par'], false).slice(0, 2)));
    const messages = await post('/v1/messages', {
      model: 'openai/gpt-4o-mini',
      max_tokens: 10,
      stream: true,
      messages: [{ role: 'user', content: 'cut' }],
    });
    expect(messages.body).toContain('event: error');
    expect(messages.body).toContain('"type":"error"');
    expect(messages.body).toContain('service.upstream_disconnected');
    expect(messages.body).not.toContain('message_stop');
  });
});

describe('the cache step', () => {
  it('writes a miss, serves the hit without the upstream, and costs nothing on the hit', async () => {
    const question = chat(`cached ${Math.random()}`);
    const miss = await post('/v1/chat/completions', question);
    expect(miss.headers['x-service-cache']).toBe('miss');
    const calls = openai.requests.length;
    const hit = await post('/v1/chat/completions', question);
    expect(hit.headers['x-service-cache']).toBe('hit');
    expect(hit.headers['x-service-cache-age']).toBe('0');
    expect(hit.headers['x-service-balance-charged-micros']).toBe('0');
    expect(hit.body).toBe(miss.body);
    expect(openai.requests.length).toBe(calls);
  });

  it('replays a completed stream byte for byte, and never stores a broken one', async () => {
    const question = chat(`stream cached ${Math.random()}`, { stream: true });
    const first = await post('/v1/chat/completions', question);
    // The entry is written once the stream has ended, after the client has its last byte.
    await expect
      .poll(async () => {
        const replay = await post('/v1/chat/completions', question);
        return replay.headers['x-service-cache'] === 'hit' ? replay.body : undefined;
      })
      .toBe(first.body);

    const broken = chat(`stream broken ${Math.random()}`, { stream: true });
    openai.overrideNext((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(openAiStreamEvents('gpt-4o-mini', ['x'], false)[0] as string);
      setImmediate(() => response.socket?.destroy());
    });
    const skipped = async () => {
      const metrics = (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
      return Number(
        /gateway_cache_skipped_writes_total\{reason="failed_stream"\} (\d+)/.exec(metrics)?.[1] ?? 0,
      );
    };
    const skippedBefore = await skipped();
    const failed = await post('/v1/chat/completions', broken);
    expect(failed.body).toContain('service.upstream_disconnected');
    // Once its end is handled, the broken stream is counted as a skipped write, and not stored.
    await expect.poll(skipped).toBe(skippedBefore + 1);
    const after = await post('/v1/chat/completions', broken);
    expect(after.headers['x-service-cache']).toBe('miss');
  });

  it('has no cache header when asked off or when the request is not cacheable', async () => {
    const off = await post('/v1/chat/completions', chat('off'), { 'x-service-cache': 'off' });
    expect(off.headers['x-service-cache']).toBeUndefined();
    const warm = await post('/v1/chat/completions', chat('warm', { temperature: 0.9 }));
    expect(warm.headers['x-service-cache']).toBeUndefined();
  });
});

/** The value of the first sample of `name` whose labels include all of `labels` (0 when none). */
function sampleOf(metrics: string, name: string, labels: string[]): number {
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (labels.every((label) => line.includes(label))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('a client gone before its answer is complete', () => {
  it('aborts the upstream call, and counts one 499 and one client abort (its close is watched once)', async () => {
    openai.overrideNext((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // The first event only: the answer never completes, the client goes first.
      response.write(openAiStreamEvents('gpt-4o-mini', ['par'], false)[0]);
    });
    const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const metricsNow = async () => (await gateway.app.inject({ method: 'GET', url: '/metrics' })).body;
    const route = 'route="/v1/chat/completions"';
    const count = (metrics: string) => ({
      aborts: sampleOf(metrics, 'gateway_client_aborts_total', [route]),
      gone: sampleOf(metrics, 'gateway_requests_total', [route, 'status="499"', 'provider="openai"']),
    });
    const before = count(await metricsNow());
    const client = httpRequest(`${address}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
    });
    client.end(JSON.stringify(chat('gone', { stream: true, temperature: 0.7 })));
    const [response] = (await once(client, 'response')) as [IncomingMessage];
    await once(response, 'data');
    client.destroy();
    await openai.requests.at(-1)?.aborted;
    expect(count(await metricsNow())).toEqual({ aborts: before.aborts + 1, gone: before.gone + 1 });
  });
});

/**
 * The exact cache on `/v1/responses`, on the memory and the Redis stores: the same eligibility as
 * chat completions, streams replayed verbatim, and `previous_response_id` part of the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConversationalAnthropic } from '../../fakes/fake-conversation-upstreams.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis: RedisServer | undefined = await startRedisServer();
const backends = redis === undefined ? ['memory'] : ['memory', 'redis'];

afterAll(async () => {
  await redis?.stop();
});

describe.each(backends)('the exact cache on /v1/responses (%s store)', (backend) => {
  let anthropic: FakeServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    anthropic = await startConversationalAnthropic();
    gateway = await startTestGateway({
      ANTHROPIC_API_KEY: 'sk-ant-platform',
      ANTHROPIC_BASE_URL: anthropic.url,
      GATEWAY_CACHE: 'on',
      ...(backend === 'redis' ? { REDIS_URL: redis!.url } : {}),
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await anthropic?.stop();
  });

  const post = async (body: Record<string, unknown>) => {
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.credentials.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'anthropic/claude-sonnet-4-5', temperature: 0, ...body }),
    });
    return {
      status: response.status,
      cache: response.headers.get('x-service-cache'),
      text: await response.text(),
    };
  };

  it('answers the same request from the cache, the same response id included', async () => {
    const first = await post({ input: `cached ${backend}` });
    const second = await post({ input: `cached ${backend}` });
    expect([first.status, first.cache, second.cache]).toEqual([200, 'miss', 'hit']);
    expect(second.text).toBe(first.text);
    expect(
      anthropic.requests.filter((request) => JSON.stringify(request.body).includes(`cached ${backend}`)),
    ).toHaveLength(1);
  });

  it('replays a stream verbatim, typed events and sequence numbers alike', async () => {
    const first = await post({ input: `streamed ${backend}`, stream: true });
    const second = await post({ input: `streamed ${backend}`, stream: true });
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    expect(second.text).toBe(first.text);
    expect(first.text).toContain('event: response.completed');
    expect(first.text).not.toContain('[DONE]');
  });

  it('keys by previous_response_id: the same input after another response is a miss', async () => {
    const a = JSON.parse((await post({ input: `turn a ${backend}` })).text) as { id: string };
    const b = JSON.parse((await post({ input: `turn b ${backend}` })).text) as { id: string };
    const afterA = await post({ input: 'next', previous_response_id: a.id });
    const againAfterA = await post({ input: 'next', previous_response_id: a.id });
    const afterB = await post({ input: 'next', previous_response_id: b.id });
    expect([afterA.cache, againAfterA.cache, afterB.cache]).toEqual(['miss', 'hit', 'miss']);
    expect(JSON.parse(afterB.text).output[0].content[0].text).toContain(`turn b ${backend}`);
  });

  it('does not cache above temperature 0, as on chat completions', async () => {
    const answer = await post({ input: 'warm', temperature: 0.7 });
    expect(answer.status).toBe(200);
    expect(answer.cache).toBeNull();
  });
});

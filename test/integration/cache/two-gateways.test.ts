import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { type GatewayProcess, startGatewayProcess } from '../../helpers/gateway-process.ts';
import { graphql } from '../../helpers/graphql.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis = await startRedisServer();

describe.runIf(redis !== undefined)('the cache shared by two gateway processes on one Redis', () => {
  let openai: FakeServer;
  let first: TestGateway;
  /** A real second process (`node src/main/cli.ts gateway`), as a second pod would be. */
  let second: GatewayProcess;
  let counter = 0;

  beforeAll(async () => {
    openai = await startFakeOpenAi();
    const env = {
      REDIS_URL: (redis as RedisServer).url,
      SERVICE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      OPENAI_API_KEY: 'sk-platform',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      GATEWAY_CACHE: 'on',
    };
    first = await startTestGateway(env);
    second = await startGatewayProcess(env);
  });

  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await openai?.stop();
    await redis?.stop();
  });

  const body = () => ({
    model: 'openai/gpt-4o',
    messages: [{ role: 'user', content: `shared ${++counter}` }],
  });
  const cacheHeader = async (url: string, request: unknown, headers: Record<string, string> = {}) => {
    const response = await postJson(`${url}/v1/chat/completions`, request, first.credentials.apiKey, headers);
    await response.text();
    return response.headers.get('x-service-cache');
  };
  const admin = (query: string) =>
    graphql(first.controlUrl, first.credentials.pat, query, { ws: first.credentials.workspaceId });

  it('a write on one is a hit on the other', async () => {
    const request = body();
    expect(await cacheHeader(first.url, request)).toBe('miss');
    expect(await cacheHeader(second.url, request)).toBe('hit');
  });

  it('revalidation through the control plane takes effect on both within a second', async () => {
    const request = body();
    expect(await cacheHeader(first.url, request, { 'x-service-cache-tags': 'pricing' })).toBe('miss');
    expect(await cacheHeader(second.url, request)).toBe('hit');
    await admin(
      'mutation($ws: String!) { revalidateCacheTags(workspaceId: $ws, tags: ["pricing"]) { invalidated } }',
    );
    const started = Date.now();
    await expect
      .poll(() => cacheHeader(second.url, request, { 'x-service-cache': 'no-store' }), {
        timeout: 1000,
        interval: 5,
      })
      .toBe('miss');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await cacheHeader(first.url, request, { 'x-service-cache': 'no-store' })).toBe('miss');
  });

  it('purge through the control plane takes effect on both within a second', async () => {
    const request = body();
    expect(await cacheHeader(first.url, request)).toBe('miss');
    expect(await cacheHeader(second.url, request)).toBe('hit');
    await admin('mutation($ws: String!) { purgeGatewayCache(workspaceId: $ws) { purged } }');
    await expect
      .poll(() => cacheHeader(second.url, request, { 'x-service-cache': 'no-store' }), {
        timeout: 1000,
        interval: 5,
      })
      .toBe('miss');
    expect(await cacheHeader(first.url, request, { 'x-service-cache': 'no-store' })).toBe('miss');
  });

  it('serves from upstream with the cache bypassed when Redis is unreachable, never a 5xx', async () => {
    const request = body();
    await (redis as RedisServer).stop();
    for (const url of [first.url, second.url]) {
      const response = await postJson(`${url}/v1/chat/completions`, request, first.credentials.apiKey);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-service-cache')).toBeNull();
    }
    const metrics = await (await fetch(`${second.url}/metrics`)).text();
    expect(metrics).toMatch(
      /gateway_cache_requests_total\{route="\/v1\/chat\/completions",result="bypass"\} [1-9]/,
    );
    expect(metrics).toMatch(/gateway_cache_errors_total\{operation="lookup"\} [1-9]/);
  });
});

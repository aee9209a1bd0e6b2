/**
 * Usage analytics through the control plane's `usage` query: two workspaces of one tenant (and
 * another tenant) are counted apart; a cache hit counts as a request that cost nothing and saved
 * what its answer cost; groupBy sums by model, key, token and day. Run on the memory stores and on
 * a real redis-server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const redis: RedisServer | undefined = await startRedisServer();

interface Row {
  day: string | null;
  model: string | null;
  keyId: string | null;
  tokenId: string | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  cacheHits: number;
  savedMicros: number;
}

const USAGE = `query Usage($workspaceId: String!, $from: String!, $to: String!, $groupBy: [UsageDimension!]) {
  usage(workspaceId: $workspaceId, from: $from, to: $to, groupBy: $groupBy) {
    rows { day model keyId tokenId requests inputTokens outputTokens costMicros cacheHits savedMicros }
    total { requests inputTokens outputTokens costMicros cacheHits savedMicros }
  }
}`;

function describeUsage(name: string, env: () => Record<string, string>) {
  describe.runIf(name === 'memory stores' || redis !== undefined)(`usage analytics (${name})`, () => {
    let openai: FakeServer;
    let gateway: TestGateway;
    let researchKey: string;
    let researchKeyId: string;
    const today = new Date().toISOString().slice(0, 10);

    const call = <T>(query: string, variables: Record<string, unknown> = {}) =>
      graphql<T>(gateway.controlUrl, gateway.credentials.pat, query, variables);
    const ask = (key: string, content: string, model = 'openai/gpt-4o') =>
      postJson(`${gateway.url}/v1/chat/completions`, { model, messages: [{ role: 'user', content }] }, key, {
        'x-service-cache': 'on',
      });
    const usage = async (workspaceId: string, groupBy: string[] = []) => {
      const result = await call<{ usage: { rows: Row[]; total: Row } }>(USAGE, {
        workspaceId,
        from: today,
        to: today,
        groupBy,
      });
      expect(result.errors).toBeUndefined();
      return result.data?.usage as { rows: Row[]; total: Row };
    };

    beforeAll(async () => {
      openai = await startFakeOpenAi();
      gateway = await startTestGateway({
        ...env(),
        GATEWAY_CACHE: 'on',
        USAGE_FLUSH_INTERVAL_MS: '20',
        SERVICE_TOKEN_SIGNING_KEY: 'usage-test-signing-key-0123456789abcdef',
        OPENAI_API_KEY: 'sk-platform',
        OPENAI_BASE_URL: `${openai.url}/v1`,
      });
      const workspace = await call('mutation { createWorkspace(name: "Research", id: "research") { id } }');
      expect(workspace.errors).toBeUndefined();
      const key = await call<{ createApiKey: { id: string; key: string } }>(
        'mutation { createApiKey(workspaceId: "research") { id key } }',
      );
      researchKey = key.data?.createApiKey.key as string;
      researchKeyId = key.data?.createApiKey.id as string;
    });
    afterAll(async () => {
      await gateway?.stop();
      await openai?.stop();
    });

    it('counts each workspace apart, with cache hits and what they saved', async () => {
      const defaultKey = gateway.credentials.apiKey;
      for (const content of ['one', 'two', 'one']) expect((await ask(defaultKey, content)).status).toBe(200);
      expect((await ask(defaultKey, 'three', 'openai/gpt-4o-mini')).status).toBe(200);
      expect((await ask(researchKey, 'research question')).status).toBe(200);

      // The gateway adds its sums to the store every 20 ms.
      await expect.poll(async () => (await usage('default')).total.requests, { timeout: 5000 }).toBe(4);
      await expect.poll(async () => (await usage('research')).total.requests, { timeout: 5000 }).toBe(1);
      const byModel = await usage('default', ['MODEL']);
      const gpt4o = byModel.rows.find((row) => row.model === 'openai/gpt-4o') as Row;
      const mini = byModel.rows.find((row) => row.model === 'openai/gpt-4o-mini') as Row;
      expect(gpt4o).toMatchObject({ requests: 3, cacheHits: 1, day: null, keyId: null });
      expect(mini).toMatchObject({ requests: 1, cacheHits: 0 });
      // The hit saved what the first 'one' cost: half of the two misses' cost, the answers being alike.
      expect(gpt4o.savedMicros).toBeGreaterThan(0);
      expect(gpt4o.savedMicros * 2).toBe(gpt4o.costMicros);
      expect(gpt4o.inputTokens).toBeGreaterThan(0);
      expect(gpt4o.outputTokens).toBeGreaterThan(0);
      expect(byModel.total.costMicros).toBe(gpt4o.costMicros + mini.costMicros);

      const research = await usage('research', ['MODEL', 'KEY', 'DAY']);
      expect(research.rows).toHaveLength(1);
      expect(research.rows[0]).toMatchObject({
        model: 'openai/gpt-4o',
        day: today,
        requests: 1,
        cacheHits: 0,
      });
      expect(research.rows[0]?.keyId).not.toBe(byModel.rows[0]?.keyId ?? '');
    });

    it('groups an ephemeral token’s requests by its id', async () => {
      const minted = await call<{ mintEphemeralToken: { token: string; jti: string } }>(
        'mutation Mint($parent: String!) { mintEphemeralToken(input: { parentKeyId: $parent, ttlSeconds: 300, scopes: ["chat"] }) { token jti } }',
        { parent: researchKeyId },
      );
      if (minted.errors !== undefined) throw new Error(JSON.stringify(minted.errors));
      const { token, jti } = (minted.data?.mintEphemeralToken ?? {}) as { token: string; jti: string };
      expect((await ask(token, 'token question')).status).toBe(200);
      await expect
        .poll(
          async () => (await usage('research', ['TOKEN'])).rows.find((row) => row.tokenId === jti)?.requests,
          {
            timeout: 5000,
          },
        )
        .toBe(1);
    });

    it('refuses another tenant’s workspace, bad days and too long a range', async () => {
      const unknown = await call(USAGE, { workspaceId: 'not-mine', from: today, to: today });
      expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
      const badDay = await call(USAGE, { workspaceId: 'default', from: '2026-02-30', to: today });
      expect(badDay.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
      const tooLong = await call(USAGE, { workspaceId: 'default', from: '2020-01-01', to: today });
      expect(tooLong.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    });
  });
}

describeUsage('memory stores', () => ({}));
describeUsage('Redis', () => ({ REDIS_URL: (redis as RedisServer).url }));

afterAll(async () => {
  await redis?.stop();
});

/**
 * The response cache's behaviour through HTTP, with a fake upstream that counts calls. Defined
 * once and run on the memory store and on a real Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, tenantNamespace } from '../../../src/resources/types.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import { type FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { graphql } from '../../helpers/graphql.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

export function describeCache(name: string, env: () => Record<string, string> | undefined): void {
  describe.runIf(env() !== undefined)(`response cache (${name})`, () => {
    let openai: FakeServer;
    let gateway: TestGateway;
    let counter = 0;

    beforeAll(async () => {
      openai = await startFakeOpenAi();
      gateway = await startTestGateway({
        ...env(),
        GATEWAY_CACHE: 'on',
        OPENAI_API_KEY: 'sk-platform',
        OPENAI_BASE_URL: `${openai.url}/v1`,
        GATEWAY_CACHE_MAX_ENTRY_BYTES: '4096',
      });
    });

    afterAll(async () => {
      await gateway?.stop();
      await openai?.stop();
    });

    /** A body no other test uses, so tests do not see each other's entries. */
    const unique = (extra: Record<string, unknown> = {}) => ({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: `question ${name} ${++counter}` }],
      ...extra,
    });
    const send = (body: unknown, headers: Record<string, string> = {}) =>
      postJson(`${gateway.url}/v1/chat/completions`, body, gateway.credentials.apiKey, headers);
    const calls = () => openai.requests.length;
    const admin = (query: string, variables: Record<string, unknown> = {}) =>
      graphql(gateway.controlUrl, gateway.credentials.pat, query, variables);
    /** The upstream's next answer says `content`, held back until the returned function is called. */
    const holdNextAnswer = (content: string) => {
      const { promise: released, resolve: release } = Promise.withResolvers<void>();
      openai.overrideNext(async (_request, response) => {
        await released;
        sendJson(response, 200, {
          id: 'held',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        });
      });
      return release;
    };

    it('answers a repeat from the cache: hit, age, no upstream call, no charge, balance headers kept', async () => {
      const body = unique();
      const first = await send(body);
      expect(first.headers.get('x-service-cache')).toBe('miss');
      const firstText = await first.text();
      const before = calls();
      const second = await send(body);
      expect(second.headers.get('x-service-cache')).toBe('hit');
      expect(second.headers.get('x-service-cache-age')).toMatch(/^\d+$/);
      expect(await second.text()).toBe(firstText);
      expect(calls()).toBe(before);
      expect(second.headers.get('x-service-balance-charged-micros')).toBe('0');
      expect(second.headers.get('x-service-balance-remaining-micros')).toBe(
        first.headers.get('x-service-balance-remaining-micros'),
      );
    });

    it('misses on any difference in model, messages or tools, but not on tool order or cache declarations', async () => {
      const tool = (fn: string, declaration?: object) => ({
        type: 'function',
        function: { name: fn, parameters: { type: 'object', properties: {} } },
        ...(declaration === undefined ? {} : { 'x-service-cache': declaration }),
      });
      const body = unique({ tools: [tool('alpha'), tool('beta')] });
      await (await send(body)).text();
      expect((await send({ ...body, model: 'openai/gpt-4o-mini' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
      expect((await send({ ...body, tools: [tool('alpha')] })).headers.get('x-service-cache')).toBe('miss');
      expect(
        (await send({ ...body, messages: [{ role: 'user', content: 'other' }] })).headers.get(
          'x-service-cache',
        ),
      ).toBe('miss');
      expect(
        (await send({ ...body, tools: [tool('beta'), tool('alpha')] })).headers.get('x-service-cache'),
      ).toBe('hit');
      const declared = { ...body, tools: [tool('beta', { safe: true, tags: ['x'] }), tool('alpha')] };
      expect((await send(declared)).headers.get('x-service-cache')).toBe('hit');
      // The declaration never reaches the provider.
      await (await send({ ...unique(), tools: [tool('gamma', { safe: true })] })).text();
      expect(JSON.stringify(openai.requests.at(-1)!.body)).not.toContain('x-service-cache');
    });

    it('does not cache temperature > 0 unless forced or semantic, and sends no header then', async () => {
      const body = unique({ temperature: 0.7 });
      const first = await send(body);
      expect(first.headers.get('x-service-cache')).toBeNull();
      expect((await send(body)).headers.get('x-service-cache')).toBeNull();
      const forced = unique({ temperature: 0.7 });
      expect((await send(forced, { 'x-service-cache-force': '1' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
      expect((await send(forced, { 'x-service-cache-force': '1' })).headers.get('x-service-cache')).toBe(
        'hit',
      );
      const semantic = unique({ temperature: 0.9 });
      expect((await send(semantic, { 'x-service-cache': 'semantic' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
      expect((await send(semantic, { 'x-service-cache': 'semantic' })).headers.get('x-service-cache')).toBe(
        'hit',
      );
      expect((await send(unique({ temperature: 0 }))).headers.get('x-service-cache')).toBe('miss');
    });

    it('off bypasses entirely, with no header', async () => {
      const body = unique();
      await (await send(body)).text();
      const before = calls();
      const off = await send(body, { 'x-service-cache': 'off' });
      expect(off.headers.get('x-service-cache')).toBeNull();
      expect(calls()).toBe(before + 1);
    });

    it('no-store serves a hit but never writes', async () => {
      const body = unique();
      expect((await send(body, { 'x-service-cache': 'no-store' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
      expect((await send(body)).headers.get('x-service-cache')).toBe('miss');
      expect((await send(body, { 'x-service-cache': 'no-store' })).headers.get('x-service-cache')).toBe(
        'hit',
      );
    });

    it('force-refresh skips the read, overwrites, and answers refresh', async () => {
      const body = unique();
      await (await send(body)).text();
      openai.overrideNext((_request, response) =>
        sendJson(response, 200, {
          id: 'new',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'fresh' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        }),
      );
      const before = calls();
      const refreshed = await send(body, { 'x-service-cache': 'force-refresh' });
      expect(refreshed.headers.get('x-service-cache')).toBe('refresh');
      expect(calls()).toBe(before + 1);
      const hit = await send(body);
      expect(hit.headers.get('x-service-cache')).toBe('hit');
      expect(await hit.text()).toContain('fresh');
    });

    it('ignores an unknown x-service-cache value', async () => {
      const body = unique();
      expect((await send(body, { 'x-service-cache': 'sometimes' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
      expect((await send(body, { 'x-service-cache': 'sometimes' })).headers.get('x-service-cache')).toBe(
        'hit',
      );
    });

    it('keeps namespaces apart', async () => {
      const body = unique();
      await (await send(body, { 'x-service-cache-namespace': 'tenant-a' })).text();
      expect(
        (await send(body, { 'x-service-cache-namespace': 'tenant-b' })).headers.get('x-service-cache'),
      ).toBe('miss');
      expect((await send(body)).headers.get('x-service-cache')).toBe('miss');
      expect(
        (await send(body, { 'x-service-cache-namespace': 'tenant-a' })).headers.get('x-service-cache'),
      ).toBe('hit');
    });

    it.each([
      ['x-service-cache-ttl', 'soon', 'x-service-cache-ttl'],
      ['x-service-cache-ttl', '0', 'x-service-cache-ttl'],
      ['x-service-cache-tags', Array.from({ length: 17 }, (_v, i) => `t${i}`).join(','), 'at most 16 tags'],
      ['x-service-cache-tags', 'Bad_Tag', "tag 'Bad_Tag'"],
      ['x-service-cache-tags', '-starts-with-dash', 'starting with a letter or digit'],
      ['x-service-cache-policy', 'no-such-policy', "unknown cache policy 'no-such-policy'"],
    ])('answers 400 naming the rule for %s: %s', async (headerName, value, message) => {
      const response = await send(unique(), { [headerName]: value });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.message).toContain(message);
    });

    it('expires entries after the requested TTL', async () => {
      const body = unique();
      await (await send(body, { 'x-service-cache-ttl': '1' })).text();
      expect((await send(body)).headers.get('x-service-cache')).toBe('hit');
      await expect
        .poll(async () => (await send(body)).headers.get('x-service-cache'), { timeout: 3000, interval: 200 })
        .toBe('miss');
    });

    it('applies policies: workspace beats tenant-wide, the TTL ceiling caps a requested TTL, default tags attach', async () => {
      const upsert = `mutation($input: CachePolicyInput!) { upsertCachePolicy(input: $input) { name workspaceId ttlSeconds maxTtlSeconds defaultTags } }`;
      const tenantWide = await admin(upsert, {
        input: { name: 'docs', ttlSeconds: 100, maxTtlSeconds: 100, defaultTags: ['from-tenant'] },
      });
      expect(tenantWide.errors).toBeUndefined();
      const workspace = await admin(upsert, {
        input: {
          name: 'docs',
          workspaceId: gateway.credentials.workspaceId,
          ttlSeconds: 1,
          maxTtlSeconds: 1,
          defaultTags: ['docs-v1'],
        },
      });
      expect(workspace.data).toEqual({
        upsertCachePolicy: {
          name: 'docs',
          workspaceId: gateway.credentials.workspaceId,
          ttlSeconds: 1,
          maxTtlSeconds: 1,
          defaultTags: ['docs-v1'],
        },
      });
      // The workspace policy (1 s ceiling) wins and caps the requested hour.
      const body = unique();
      await (await send(body, { 'x-service-cache-policy': 'docs', 'x-service-cache-ttl': '3600' })).text();
      await expect
        .poll(
          async () => (await send(body, { 'x-service-cache-policy': 'docs' })).headers.get('x-service-cache'),
          { timeout: 3000, interval: 200 },
        )
        .toBe('miss');
      // Its default tag is attached: revalidating it drops the entry.
      const tagged = unique();
      await (await send(tagged, { 'x-service-cache-policy': 'docs' })).text();
      await admin(
        'mutation($ws: String!) { revalidateCacheTags(workspaceId: $ws, tags: ["docs-v1"]) { invalidated } }',
        { ws: gateway.credentials.workspaceId },
      );
      expect((await send(tagged, { 'x-service-cache-policy': 'docs' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
      const listed = await admin('{ cachePolicies { name workspaceId } }');
      expect((listed.data as { cachePolicies: unknown[] }).cachePolicies).toHaveLength(2);
      const deleted = await admin(
        'mutation($ws: String) { deleteCachePolicy(name: "docs", workspaceId: $ws) }',
        { ws: gateway.credentials.workspaceId },
      );
      expect(deleted.data).toEqual({ deleteCachePolicy: true });
      // With the workspace policy gone, the tenant-wide one applies at once: its entries carry its
      // default tag, not the workspace policy's.
      const after = unique();
      await (await send(after, { 'x-service-cache-policy': 'docs' })).text();
      const revalidate = (tag: string) =>
        admin(
          'mutation($ws: String!, $tags: [String!]!) { revalidateCacheTags(workspaceId: $ws, tags: $tags) { invalidated } }',
          {
            ws: gateway.credentials.workspaceId,
            tags: [tag],
          },
        );
      await revalidate('docs-v1');
      expect((await send(after, { 'x-service-cache-policy': 'docs' })).headers.get('x-service-cache')).toBe(
        'hit',
      );
      await revalidate('from-tenant');
      expect((await send(after, { 'x-service-cache-policy': 'docs' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
    });

    it('updates and deletes a policy applied as a resource under another object name', async () => {
      await gateway.running.resources.apply({
        apiVersion: API_VERSION,
        kind: 'CachePolicy',
        metadata: { name: 'hand-written', namespace: tenantNamespace(gateway.credentials.tenantId) },
        spec: { policyName: 'handmade', ttlSeconds: 30 },
      });
      await gateway.running.settled();
      const updated = await admin(
        'mutation { upsertCachePolicy(input: { name: "handmade", swrSeconds: 5 }) { name ttlSeconds swrSeconds } }',
      );
      // Fields left out are back at their defaults, and in force when the mutation returns.
      expect(updated.data).toEqual({
        upsertCachePolicy: { name: 'handmade', ttlSeconds: 600, swrSeconds: 5 },
      });
      const resources = await gateway.running.resources.list(
        'CachePolicy',
        tenantNamespace(gateway.credentials.tenantId),
      );
      expect(
        resources.filter((policy) => policy.spec.policyName === 'handmade').map((p) => p.metadata.name),
      ).toEqual(['hand-written']);
      expect((await admin('mutation { deleteCachePolicy(name: "handmade") }')).data).toEqual({
        deleteCachePolicy: true,
      });
      const body = unique();
      const refused = await send(body, { 'x-service-cache-policy': 'handmade' });
      expect(refused.status).toBe(400);
    });

    it('refuses bad policies through GraphQL with VALIDATION_ERROR', async () => {
      const result = await admin(
        `mutation { upsertCachePolicy(input: { name: "x", ttlSeconds: 100, maxTtlSeconds: 10 }) { name } }`,
      );
      expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
      expect(result.errors?.[0]?.message).toContain('ttlSeconds must be at most maxTtlSeconds');
    });

    it('revalidates tags: entries with the tag stop being served, others stay', async () => {
      const tagged = unique();
      const other = unique();
      await (await send(tagged, { 'x-service-cache-tags': 'product:42,catalog' })).text();
      await (await send(other, { 'x-service-cache-tags': 'product:7' })).text();
      const result = await admin(
        'mutation($ws: String!) { revalidateCacheTags(workspaceId: $ws, tags: ["product:42"]) { invalidated } }',
        {
          ws: gateway.credentials.workspaceId,
        },
      );
      expect(result.data).toEqual({ revalidateCacheTags: { invalidated: 1 } });
      const audit = await admin('{ auditLog(limit: 20) { operation target outcome } }');
      expect((audit.data as { auditLog: unknown[] }).auditLog).toContainEqual({
        operation: 'revalidateCacheTags',
        target: `${gateway.credentials.workspaceId}:product:42`,
        outcome: 'success',
      });
      expect((await send(tagged)).headers.get('x-service-cache')).toBe('miss');
      expect((await send(other)).headers.get('x-service-cache')).toBe('hit');
      // The new entry written after the revalidation is served again.
      expect(
        (await send(tagged, { 'x-service-cache-tags': 'product:42' })).headers.get('x-service-cache'),
      ).toBe('hit');
    });

    it('does not serve an answer that was on its way when its tag was revalidated', async () => {
      const body = unique();
      const release = holdNextAnswer('old data');
      const before = calls();
      const inFlight = send(body, { 'x-service-cache-tags': 'price-list' });
      await openai.waitForRequests(before + 1);
      await admin(
        'mutation($ws: String!) { revalidateCacheTags(workspaceId: $ws, tags: ["price-list"]) { invalidated } }',
        {
          ws: gateway.credentials.workspaceId,
        },
      );
      release();
      expect(await (await inFlight).text()).toContain('old data');
      const next = await send(body, { 'x-service-cache-tags': 'price-list' });
      expect(next.headers.get('x-service-cache')).toBe('miss');
      expect(await next.text()).not.toContain('old data');
    });

    it('does not serve an answer that was on its way when the cache was purged (workspace or namespace)', async () => {
      for (const namespace of [undefined, 'in-flight']) {
        const body = unique();
        const headers: Record<string, string> =
          namespace === undefined ? {} : { 'x-service-cache-namespace': namespace };
        const release = holdNextAnswer('before the purge');
        const before = calls();
        const inFlight = send(body, headers);
        await openai.waitForRequests(before + 1);
        const purged = await admin(
          'mutation($ws: String!, $ns: String) { purgeGatewayCache(workspaceId: $ws, namespace: $ns) { purged } }',
          { ws: gateway.credentials.workspaceId, ns: namespace ?? null },
        );
        expect(purged.errors).toBeUndefined();
        release();
        const answered = await inFlight;
        expect(answered.headers.get('x-service-cache')).toBe('miss');
        expect(await answered.text()).toContain('before the purge');
        const next = await send(body, headers);
        expect(next.headers.get('x-service-cache')).toBe('miss');
        expect(await next.text()).not.toContain('before the purge');
      }
    });

    it('refuses more than 64 tags in a revalidation', async () => {
      const tags = Array.from({ length: 65 }, (_v, i) => `t${i}`);
      const result = await admin(
        'mutation($ws: String!, $tags: [String!]!) { revalidateCacheTags(workspaceId: $ws, tags: $tags) { invalidated } }',
        {
          ws: gateway.credentials.workspaceId,
          tags,
        },
      );
      expect(result.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    });

    it('purges a namespace, then the whole workspace', async () => {
      const body = unique();
      await (await send(body)).text();
      await (await send(body, { 'x-service-cache-namespace': 'ns1' })).text();
      await (await send(body, { 'x-service-cache-namespace': 'ns2' })).text();
      const purged = await admin(
        'mutation($ws: String!) { purgeGatewayCache(workspaceId: $ws, namespace: "ns1") { purged generation } }',
        {
          ws: gateway.credentials.workspaceId,
        },
      );
      expect((purged.data as { purgeGatewayCache: { purged: boolean } }).purgeGatewayCache.purged).toBe(true);
      expect((await send(body, { 'x-service-cache-namespace': 'ns1' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
      expect((await send(body, { 'x-service-cache-namespace': 'ns2' })).headers.get('x-service-cache')).toBe(
        'hit',
      );
      expect((await send(body)).headers.get('x-service-cache')).toBe('hit');
      await admin('mutation($ws: String!) { purgeGatewayCache(workspaceId: $ws) { purged } }', {
        ws: gateway.credentials.workspaceId,
      });
      expect((await send(body)).headers.get('x-service-cache')).toBe('miss');
      expect((await send(body, { 'x-service-cache-namespace': 'ns2' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
    });

    it('never serves across workspaces', async () => {
      // A second workspace, and a key in it.
      const { resources } = gateway.running;
      const tenant = (await resources.get('Tenant', gateway.credentials.tenantId))!;
      await resources.apply({
        ...tenant,
        spec: { ...tenant.spec, workspaces: [...tenant.spec.workspaces, { id: 'second', name: 'Second' }] },
      });
      await gateway.running.settled();
      const created = await admin('mutation { createApiKey(workspaceId: "second") { key } }');
      const otherKey = (created.data as { createApiKey: { key: string } }).createApiKey.key;
      const body = unique();
      await (await send(body)).text();
      const other = await postJson(`${gateway.url}/v1/chat/completions`, body, otherKey);
      expect(other.headers.get('x-service-cache')).toBe('miss');
    });

    it('replays a streamed response byte for byte, and never stores an aborted stream', async () => {
      const body = unique({ stream: true });
      const first = await send(body);
      expect(first.headers.get('x-service-cache')).toBe('miss');
      const firstBytes = await first.text();
      // The write happens when the stream ends; wait for it to be visible.
      await expect
        .poll(
          async () => {
            const response = await send(body);
            const text = await response.text();
            return response.headers.get('x-service-cache') === 'hit' ? text : undefined;
          },
          { timeout: 2000, interval: 20 },
        )
        .toBe(firstBytes);
      const replay = await send(body);
      expect(replay.headers.get('content-type')).toContain('text/event-stream');

      const aborted = unique({ stream: true });
      openai.overrideNext(async (request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'partial' } }] })}\n\n`,
        );
        await request.aborted;
      });
      const controller = new AbortController();
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${gateway.credentials.apiKey}`,
        },
        body: JSON.stringify(aborted),
        signal: controller.signal,
      });
      await response.body!.getReader().read();
      controller.abort();
      await openai.requests.at(-1)!.aborted;
      expect((await send(aborted)).headers.get('x-service-cache')).toBe('miss');

      // A stream the upstream breaks off midway is not stored either.
      const broken = unique({ stream: true });
      openai.overrideNext((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'partial' } }] })}\n\n`,
        );
        setImmediate(() => response.socket?.destroy());
      });
      expect(await (await send(broken)).text()).toContain('"error"');
      expect((await send(broken)).headers.get('x-service-cache')).toBe('miss');
    });

    it('does not cache responses over the size limit', async () => {
      const body = unique();
      openai.overrideNext((_request, response) =>
        sendJson(response, 200, {
          id: 'big',
          object: 'chat.completion',
          choices: [
            { index: 0, message: { role: 'assistant', content: 'x'.repeat(10_000) }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        }),
      );
      expect((await send(body)).status).toBe(200);
      expect((await send(body)).headers.get('x-service-cache')).toBe('miss');
    });

    it('does not cache a stream over the size limit, gives every byte to the client, and counts it too_large', async () => {
      const skipped = async () => {
        const text = await (await fetch(`${gateway.url}/metrics`)).text();
        return Number(
          /^gateway_cache_skipped_writes_total\{reason="too_large"\} (\d+)$/m.exec(text)?.[1] ?? 0,
        );
      };
      const before = await skipped();
      const body = unique({ stream: true });
      const piece = 'y'.repeat(1000);
      openai.overrideNext((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let index = 0; index < 8; index += 1) {
          const chunk = {
            id: 'big',
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: { content: piece } }],
          };
          response.write(`data: ${JSON.stringify(chunk)}\n\n`);
        }
        response.end(
          `data: ${JSON.stringify({ id: 'big', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
        );
      });
      const first = await send(body);
      expect(first.headers.get('x-service-cache')).toBe('miss');
      expect((await first.text()).split(piece).length - 1).toBe(8);
      await expect.poll(skipped).toBe(before + 1);
      expect((await send(body)).headers.get('x-service-cache')).toBe('miss');
    });

    it('serves stale inside the SWR window: N parallel callers make exactly one upstream call', async () => {
      await admin(
        `mutation { upsertCachePolicy(input: { name: "swr", ttlSeconds: 1, swrSeconds: 60 }) { name } }`,
      );
      const body = unique();
      const headers = { 'x-service-cache-policy': 'swr' };
      await (await send(body, headers)).text();
      // Only time makes an entry stale: wait out the one-second TTL.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const release = holdNextAnswer('refreshed');
      const before = calls();
      const answered: Response[] = [];
      const parallel = Array.from({ length: 10 }, () =>
        send(body, headers).then((response) => {
          answered.push(response);
          return response;
        }),
      );
      // The nine that did not take the lock answer at once, while the one refresh is still held.
      await expect.poll(() => answered.length, { timeout: 5000, interval: 10 }).toBe(9);
      expect(answered.every((response) => response.headers.get('x-service-cache') === 'stale')).toBe(true);
      expect(answered.every((response) => response.headers.get('x-service-cache-age') === null)).toBe(true);
      release();
      const all = await Promise.all(parallel);
      expect(all.filter((response) => response.headers.get('x-service-cache') === 'refresh')).toHaveLength(1);
      expect(calls()).toBe(before + 1);
      const fresh = await send(body, headers);
      expect(fresh.headers.get('x-service-cache')).toBe('hit');
      expect(await fresh.text()).toContain('refreshed');
    });

    it('serves no-store callers the stale copy without using up the refresh', async () => {
      await admin(
        `mutation { upsertCachePolicy(input: { name: "swr3", ttlSeconds: 1, swrSeconds: 60 }) { name } }`,
      );
      const body = unique();
      const headers = { 'x-service-cache-policy': 'swr3' };
      await (await send(body, headers)).text();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const before = calls();
      const readOnly = await send(body, { ...headers, 'x-service-cache': 'no-store' });
      expect(readOnly.headers.get('x-service-cache')).toBe('stale');
      expect(calls()).toBe(before);
      // The window's one refresh is still there for a caller that writes.
      const next = await send(body, headers);
      expect(next.headers.get('x-service-cache')).toBe('refresh');
      expect(calls()).toBe(before + 1);
      expect((await send(body, headers)).headers.get('x-service-cache')).toBe('hit');
    });

    it('keeps the stale entry and releases the lock when a refresh fails', async () => {
      await admin(
        `mutation { upsertCachePolicy(input: { name: "swr2", ttlSeconds: 1, swrSeconds: 60 }) { name } }`,
      );
      const body = unique();
      const headers = { 'x-service-cache-policy': 'swr2' };
      const original = await (await send(body, headers)).text();
      await new Promise((resolve) => setTimeout(resolve, 1100));
      openai.overrideNext((_request, response) => sendJson(response, 500, { error: { message: 'down' } }));
      const failed = await send(body, headers);
      expect(failed.status).toBe(200);
      expect(failed.headers.get('x-service-cache')).toBe('stale');
      expect(await failed.text()).toBe(original);
      // The lock was released: the next caller refreshes.
      const before = calls();
      const next = await send(body, headers);
      expect(next.headers.get('x-service-cache')).toBe('refresh');
      expect(calls()).toBe(before + 1);
    });

    it('exports hit, miss, stale, refresh, bytes and saved-cost metrics', async () => {
      const text = await (await fetch(`${gateway.url}/metrics`)).text();
      for (const result of ['hit', 'miss', 'stale', 'refresh']) {
        expect(text).toMatch(
          new RegExp(
            `gateway_cache_requests_total\\{route="/v1/chat/completions",result="${result}"\\} [1-9]`,
          ),
        );
      }
      expect(text).toMatch(/gateway_cache_written_bytes_total [1-9]/);
      expect(text).toMatch(/gateway_cache_saved_micros_total [1-9]/);
    });
  });
}

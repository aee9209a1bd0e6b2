/**
 * Model routes with everything else (issue #25): the cache (keyed by the client's model; a hit
 * never touches the route), budgets and Connection caps (charged once, for the attempt that
 * served, at its price), BYOK headers, token scopes, shared platform routes and scoping, and what
 * the route leaves in the access log, the metrics and usage analytics. Defined once, run on the
 * memory stores and on a real Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionSpendCounterName } from '../../../src/billing/connection-caps.ts';
import { budgetCounterName } from '../../../src/billing/ephemeral-token-limits.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { postJson } from '../../helpers/test-gateway.ts';
import { failWith, metricValue, type RouteBed, routeHeaders, startRouteBed, target } from './route-bed.ts';

export function describeComposition(name: string, env: () => Record<string, string> | undefined): void {
  describe.runIf(env() !== undefined)(`model routes with the rest of the gateway (${name})`, () => {
    let bed: RouteBed;
    let routeCount = 0;
    const fresh = () => `composed-${++routeCount}`;
    const charged = (response: Response) => Number(response.headers.get('x-service-balance-charged-micros'));

    beforeAll(async () => {
      bed = await startRouteBed(env() ?? {});
    });
    afterAll(async () => {
      await bed?.stop();
    });

    async function mint(scopes: string[], extra: Record<string, unknown> = {}): Promise<MintedToken> {
      const result = await graphql<{ mintEphemeralToken: MintedToken }>(
        bed.gateway.controlUrl,
        bed.gateway.credentials.pat,
        MINT,
        { input: { parentKeyId: bed.gateway.credentials.apiKeyId, ttlSeconds: 600, scopes, ...extra } },
      );
      if (result.errors) throw new Error(JSON.stringify(result.errors));
      return result.data?.mintEphemeralToken as MintedToken;
    }

    it("caches under the client's model: a hit never touches the route, even with every target open", async () => {
      const model = fresh();
      await bed.putRoute(model, {
        circuitBreaker: { consecutiveFailures: 1, openSeconds: 30 },
        targets: [target('openai/gpt-4o-mini')],
      });
      const body = { model, messages: [{ role: 'user', content: `cached through ${model}` }] };
      const send = (sent: object) =>
        postJson(`${bed.gateway.url}/v1/chat/completions`, sent, bed.gateway.credentials.apiKey);
      const first = await send(body);
      expect(first.headers.get('x-service-cache')).toBe('miss');
      expect(routeHeaders(first).target).toBe('openai/gpt-4o-mini');
      const text = await first.text();
      // The target's own model is another key.
      expect((await send({ ...body, model: 'openai/gpt-4o-mini' })).headers.get('x-service-cache')).toBe(
        'miss',
      );
      // Open the only target's circuit.
      bed.openai.overrideNext(failWith(503));
      expect((await bed.chat(model)).status).toBe(503);
      const before = bed.openai.requests.length;
      const hit = await send(body);
      expect(hit.status).toBe(200);
      expect(hit.headers.get('x-service-cache')).toBe('hit');
      expect(await hit.text()).toBe(text);
      expect(routeHeaders(hit)).toEqual({ route: null, target: null, attempts: null });
      expect(bed.openai.requests.length).toBe(before);
      const miss = await bed.chat(model);
      expect(miss.status).toBe(503);
      expect(((await miss.json()) as { error: { code: string } }).error.code).toBe(
        'service.no_healthy_target',
      );
    });

    it('charges a budget and the balance once, for the target that served, at its price', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        targets: [target('openai/gpt-4o'), target('openai/gpt-4o-mini', { priority: 1 })],
      });
      const direct = await bed.chat('openai/gpt-4o-mini');
      const miniPrice = charged(direct);
      const full = charged(await bed.chat('openai/gpt-4o'));
      expect(miniPrice).toBeGreaterThan(0);
      expect(miniPrice).not.toBe(full);

      const { token, jti } = await mint(['chat'], { budgetMicros: 1_000_000 });
      const runtime = bed.gateway.running.stores.runtime;
      const tenantId = bed.gateway.credentials.tenantId;
      const balanceBefore = await runtime.getBalance(tenantId);
      bed.openai.overrideNext(failWith(503));
      const response = await bed.chat(model, {}, token);
      expect(response.status).toBe(200);
      expect(routeHeaders(response)).toMatchObject({ target: 'openai/gpt-4o-mini', attempts: '2' });
      expect(charged(response)).toBe(miniPrice);
      expect(await runtime.getCounter(budgetCounterName(jti))).toBe(miniPrice);
      expect(await runtime.getBalance(tenantId)).toBe((balanceBefore as number) - miniPrice);
    });

    it("never charges a failed attempt's Connection cap, and the BYOK headers describe the target that served", async () => {
      const runtime = bed.gateway.running.stores.runtime;
      const connectionId = `${bed.gateway.credentials.tenantId}/mine`;
      const spent = () => runtime.getCounter(connectionSpendCounterName(connectionId, Date.now()));
      const fromConnection = fresh();
      await bed.putRoute(fromConnection, {
        targets: [target('@mine/gpt-4o'), target('openai/gpt-4o-mini', { priority: 1 })],
      });
      const before = await spent();
      bed.tenant.overrideNext(failWith(503));
      const platform = await bed.chat(fromConnection);
      expect(platform.status).toBe(200);
      expect(routeHeaders(platform)).toMatchObject({ target: 'openai/gpt-4o-mini', attempts: '2' });
      expect(platform.headers.get('x-service-byok')).toBe('false');
      expect(platform.headers.get('x-service-credential-slug')).toBeNull();
      expect(charged(platform)).toBeGreaterThan(0);
      expect(await spent()).toBe(before);

      const toConnection = fresh();
      await bed.putRoute(toConnection, {
        targets: [target('openai/gpt-4o-mini'), target('@mine/gpt-4o', { priority: 1 })],
      });
      bed.openai.overrideNext(failWith(503));
      const byok = await bed.chat(toConnection);
      expect(routeHeaders(byok)).toMatchObject({ target: '@mine/gpt-4o', attempts: '2' });
      expect(byok.headers.get('x-service-byok')).toBe('true');
      expect(byok.headers.get('x-service-credential-slug')).toBe('mine');
      expect(charged(byok)).toBe(0);
      expect(bed.tenant.requests.at(-1)?.headers.authorization).toBe('Bearer sk-tenant-own');
      expect(await spent()).toBeGreaterThan(before);
    });

    it("lets a token's model: scope name the route, not its targets", async () => {
      const model = fresh();
      await bed.putRoute(model, { targets: [target('openai/gpt-4o-mini')] });
      const routeScoped = await mint(['chat', `model:${model}`]);
      expect((await bed.chat(model, {}, routeScoped.token)).status).toBe(200);
      const targetScoped = await mint(['chat', 'model:openai/gpt-4o-mini']);
      const denied = await bed.chat(model, {}, targetScoped.token);
      expect(denied.status).toBe(403);
      expect(((await denied.json()) as { error: { code: string } }).error.code).toBe('service.scope_denied');
    });

    it("serves a shared platform route to a tenant without its own; the tenant's beats it, the workspace's beats both", async () => {
      const model = fresh();
      await bed.putRoute(
        model,
        { shared: true, targets: [target('groq/llama-3.1-8b-instant')] },
        { tenantId: 'platform-tenant' },
      );
      expect(routeHeaders(await bed.chat(model)).target).toBe('groq/llama-3.1-8b-instant');
      await bed.putRoute(model, { targets: [target('openai/gpt-4o-mini')] });
      expect(routeHeaders(await bed.chat(model)).target).toBe('openai/gpt-4o-mini');
      await bed.putRoute(
        model,
        { targets: [target('anthropic/claude-3-5-haiku-latest')] },
        { workspaceId: bed.gateway.credentials.workspaceId },
      );
      const workspace = await bed.chat(model);
      expect(workspace.status).toBe(200);
      expect(routeHeaders(workspace).target).toBe('anthropic/claude-3-5-haiku-latest');
      // A model string that names no route routes as it always did.
      expect(routeHeaders(await bed.chat('openai/gpt-4o-mini')).route).toBeNull();
    });

    it('names the route and its target in the access log, counts attempts and fallbacks, and groups usage by route', async () => {
      const model = fresh();
      await bed.putRoute(model, {
        targets: [target('openai/gpt-4o-mini'), target('groq/llama-3.1-8b-instant', { priority: 1 })],
      });
      const url = bed.gateway.url;
      const failedSeries = 'gateway_route_attempts_total{provider="openai",outcome="server_error"}';
      const servedSeries = 'gateway_route_attempts_total{provider="groq",outcome="ok"}';
      const fallbackSeries = 'gateway_route_fallbacks_total{reason="server_error"}';
      const failedBefore = await metricValue(url, failedSeries);
      const servedBefore = await metricValue(url, servedSeries);
      const fallbacksBefore = await metricValue(url, fallbackSeries);
      bed.openai.overrideNext(failWith(503));
      const response = await bed.chat(model);
      await response.text();
      expect(await metricValue(url, failedSeries)).toBe(failedBefore + 1);
      expect(await metricValue(url, servedSeries)).toBe(servedBefore + 1);
      expect(await metricValue(url, fallbackSeries)).toBe(fallbacksBefore + 1);

      const requestId = response.headers.get('x-request-id');
      await expect
        .poll(() => bed.logLines.some((line) => line.includes(`"requestId":"${requestId}"`)))
        .toBe(true);
      const line = bed.logLines.find((candidate) =>
        candidate.includes(`"requestId":"${requestId}"`),
      ) as string;
      expect((JSON.parse(line) as { access: Record<string, unknown> }).access).toMatchObject({
        modelRoute: model,
        routeTarget: 'groq/llama-3.1-8b-instant',
        routeAttempts: 2,
        status: 200,
      });

      const today = new Date().toISOString().slice(0, 10);
      const query = `query Usage($workspaceId: String!, $from: String!, $to: String!, $groupBy: [UsageDimension!]) {
        usage(workspaceId: $workspaceId, from: $from, to: $to, groupBy: $groupBy) { rows { route model requests } }
      }`;
      const rows = async () => {
        const result = await graphql<{
          usage: { rows: { route: string; model: string; requests: number }[] };
        }>(bed.gateway.controlUrl, bed.gateway.credentials.pat, query, {
          workspaceId: bed.gateway.credentials.workspaceId,
          from: today,
          to: today,
          groupBy: ['ROUTE', 'MODEL'],
        });
        return result.data?.usage.rows.filter((row) => row.route === model) ?? [];
      };
      await expect
        .poll(rows, { timeout: 5000 })
        .toEqual([{ route: model, model: 'groq/llama-3.1-8b-instant', requests: 1 }]);
    });
  });
}

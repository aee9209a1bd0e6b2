/**
 * What the model-route suites share: a standalone gateway whose platform providers are fakes that
 * fail on purpose (OpenAI, Groq as a second OpenAI-shaped upstream, Anthropic, Gemini, and Mistral
 * on a port nobody listens on), a Connection `mine` on a fake of its own, and model routes put
 * straight into the config store (the resources are all applied first: the standalone reconciler
 * makes the store equal to the resources on every resource change).
 */
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_VERSION, tenantNamespace } from '../../../src/resources/types.ts';
import type { ModelRouteRecord, ModelRouteTargetRecord } from '../../../src/stores/records.ts';
import { makeModelRoute } from '../../contract/config-fixtures.ts';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeGemini } from '../../fakes/fake-gemini.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import { type FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

export const SIGNING_KEY = 'route-test-signing-key-0123456789abcdef012345';

/** A target of a route: `model`, weight 1 and priority 0 unless said. */
export const target = (
  model: string,
  extra: Partial<ModelRouteTargetRecord> = {},
): ModelRouteTargetRecord => ({
  model,
  weight: 1,
  priority: 0,
  ...extra,
});

/** Quick retries for tests: a 10 ms backoff. */
export const QUICK_RETRY: ModelRouteRecord['retry'] = {
  maxAttempts: 3,
  on: ['rateLimited', 'serverError', 'timeout', 'connectError'],
  backoffMs: 10,
  maxBackoffMs: 2000,
};

export interface RouteBed {
  gateway: TestGateway;
  openai: FakeServer;
  groq: FakeServer;
  anthropic: FakeServer;
  gemini: FakeServer;
  /** The Connection `mine`'s upstream (openai-compatible). */
  tenant: FakeServer;
  /** Every log line of the gateway (access log included). */
  logLines: string[];
  /** Puts a route straight into the config store and waits until the gateway's view holds it. */
  putRoute(
    model: string,
    overrides: Partial<ModelRouteRecord>,
    scope?: { tenantId?: string; workspaceId?: string },
  ): Promise<ModelRouteRecord>;
  /** A chat completion with a body no other request sends (so no cache hit), as JSON. */
  chat(model: string, extra?: Record<string, unknown>, credential?: string): Promise<Response>;
  /** An Anthropic Messages request, as unique as `chat`'s. */
  messages(model: string, extra?: Record<string, unknown>): Promise<Response>;
  stop(): Promise<void>;
}

/** A port with nothing listening on it: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startRouteBed(env: Record<string, string>): Promise<RouteBed> {
  const [openai, groq, anthropic, gemini, tenant] = await Promise.all([
    startFakeOpenAi(),
    startFakeOpenAi(),
    startFakeAnthropic(),
    startFakeGemini('gemini-platform-key'),
    startFakeOpenAi(),
  ]);
  const refused = await closedPort();
  const logLines: string[] = [];
  const gateway = await startTestGateway(
    {
      ...env,
      LOG_LEVEL: 'info',
      GATEWAY_ACCESS_LOG_SAMPLE: '1',
      GATEWAY_CACHE: 'on',
      GATEWAY_ROUTE_SEED: '20261128',
      USAGE_FLUSH_INTERVAL_MS: '20',
      SERVICE_TOKEN_SIGNING_KEY: SIGNING_KEY,
      OPENAI_API_KEY: 'sk-platform-openai',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      GROQ_API_KEY: 'gsk-platform',
      GROQ_BASE_URL: `${groq.url}/v1`,
      ANTHROPIC_API_KEY: 'sk-ant-platform',
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_API_KEY: 'gemini-platform-key',
      GEMINI_BASE_URL: gemini.url,
      MISTRAL_API_KEY: 'mistral-platform',
      MISTRAL_BASE_URL: `http://127.0.0.1:${refused}/v1`,
    },
    undefined,
    { logLines },
  );
  const namespace = tenantNamespace(gateway.credentials.tenantId);
  await gateway.running.resources.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'mine-key', namespace },
    stringData: { apiKey: 'sk-tenant-own' },
  });
  await gateway.running.resources.apply({
    apiVersion: API_VERSION,
    kind: 'Connection',
    metadata: { name: 'mine', namespace },
    spec: {
      provider: 'openai-compatible',
      secretRef: { name: 'mine-key' },
      baseUrl: `${tenant.url}/v1`,
      dailyCapMicros: 50_000_000,
    },
  });
  await gateway.running.settled();
  let counter = 0;
  return {
    gateway,
    openai,
    groq,
    anthropic,
    gemini,
    tenant,
    logLines,
    async putRoute(model, overrides, scope = {}) {
      const { id, record } = makeModelRoute(
        scope.tenantId ?? gateway.credentials.tenantId,
        scope.workspaceId,
        model,
        { retry: QUICK_RETRY, ...overrides },
      );
      await gateway.running.stores.config.put('modelRoute', id, record);
      const text = JSON.stringify(record);
      await gateway.running.view.whenApplied(
        'modelRoute',
        id,
        (held) => JSON.stringify(held) === text,
        10_000,
      );
      return record;
    },
    chat(model, extra = {}, credential = gateway.credentials.apiKey) {
      counter += 1;
      return postJson(
        `${gateway.url}/v1/chat/completions`,
        { model, messages: [{ role: 'user', content: `route question ${counter}` }], ...extra },
        credential,
      );
    },
    messages(model, extra = {}) {
      counter += 1;
      return postJson(
        `${gateway.url}/v1/messages`,
        {
          model,
          max_tokens: 64,
          messages: [{ role: 'user', content: `route message ${counter}` }],
          ...extra,
        },
        gateway.credentials.apiKey,
      );
    },
    async stop() {
      await gateway.stop();
      await Promise.all([openai.stop(), groq.stop(), anthropic.stop(), gemini.stop(), tenant.stop()]);
    },
  };
}

/** Answers with `status` in the upstream's own error shape (OpenAI's, Anthropic's or Gemini's). */
export function failWith(status: number, headers: Record<string, string> = {}) {
  return (_request: unknown, response: ServerResponse) =>
    sendJson(
      response,
      status,
      { error: { message: `failing on purpose with ${status}`, type: 'fake', code: status } },
      headers,
    );
}

/** Drops the connection before answering anything. */
export function resetConnection(_request: unknown, response: ServerResponse): void {
  response.socket?.destroy();
}

/** Route headers of an answer. */
export function routeHeaders(response: Response) {
  return {
    route: response.headers.get('x-service-route'),
    target: response.headers.get('x-service-route-target'),
    attempts: response.headers.get('x-service-route-attempts'),
  };
}

/** The value of one series of a Prometheus text exposition (0 when absent). */
export async function metricValue(gatewayUrl: string, series: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

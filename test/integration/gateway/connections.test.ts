import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, tenantNamespace } from '../../../src/resources/types.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let platform: FakeServer;
let tenantUpstream: FakeServer;
let gateway: TestGateway;
const TENANT_KEY = 'sk-tenant-own-key-0123456789';

beforeAll(async () => {
  platform = await startFakeOpenAi();
  tenantUpstream = await startFakeOpenAi();
  gateway = await startTestGateway({
    OPENAI_API_KEY: 'sk-platform-key',
    OPENAI_BASE_URL: `${platform.url}/v1`,
  });
  const namespace = tenantNamespace(gateway.credentials.tenantId);
  await gateway.running.resources.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'my-llm-key', namespace },
    stringData: { apiKey: TENANT_KEY },
  });
  await gateway.running.resources.apply({
    apiVersion: API_VERSION,
    kind: 'Connection',
    metadata: { name: 'my-llm', namespace },
    spec: {
      provider: 'openai-compatible',
      secretRef: { name: 'my-llm-key' },
      baseUrl: `${tenantUpstream.url}/v1`,
    },
  });
  await gateway.running.settled();
});

afterAll(async () => {
  await gateway?.stop();
  await platform?.stop();
  await tenantUpstream?.stop();
});

const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'Hi' }] });

describe('Connections (@slug/model)', () => {
  it("serves with the tenant's key on the Connection's upstream, never the platform key", async () => {
    const platformBefore = platform.requests.length;
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat('@my-llm/gpt-4o'),
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    const upstream = tenantUpstream.requests.at(-1)!;
    expect(upstream.headers.authorization).toBe(`Bearer ${TENANT_KEY}`);
    expect((upstream.body as { model: string }).model).toBe('gpt-4o');
    expect(platform.requests.length).toBe(platformBefore);
    expect(response.headers.get('x-service-byok')).toBe('true');
    expect(response.headers.get('x-service-credential-slug')).toBe('my-llm');
    expect(response.headers.get('x-service-credential-label')).toBe('my-llm');
    expect(response.headers.get('x-service-credential-id')).toBe(`${gateway.credentials.tenantId}/my-llm`);
    // BYOK traffic is not charged to the platform balance.
    expect(response.headers.get('x-service-balance-charged-micros')).toBe('0');
  });

  it('says a BYOK stream is charged 0, not "deferred": BYOK traffic is never charged', async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { ...chat('@my-llm/gpt-4o'), stream: true },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-service-byok')).toBe('true');
    expect(response.headers.get('x-service-balance-charged-micros')).toBe('0');
    expect(await response.text()).toContain('data: [DONE]');
  });

  it('falls back to the platform key for an unknown slug, and says so', async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat('@nope/gpt-4o'),
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-service-byok')).toBe('false');
    expect(platform.requests.at(-1)!.headers.authorization).toBe('Bearer sk-platform-key');
  });

  it('answers 404 for an unknown slug when the request requires BYOK', async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat('@nope/gpt-4o'),
      gateway.credentials.apiKey,
      // Header values are matched without regard to case.
      { 'x-service-byok': 'Required' },
    );
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'service.connection_not_found',
    );
  });

  it('marks platform-key responses X-Service-BYOK: false', async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat('openai/gpt-4o'),
      gateway.credentials.apiKey,
    );
    expect(response.headers.get('x-service-byok')).toBe('false');
    expect(response.headers.get('x-service-credential-id')).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openai: FakeServer;
beforeAll(async () => {
  openai = await startFakeOpenAi();
});
afterAll(async () => {
  await openai?.stop();
});

const env = () => ({ OPENAI_API_KEY: 'sk-platform', OPENAI_BASE_URL: `${openai.url}/v1` });

function preflight(gateway: TestGateway, origin: string): Promise<Response> {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-stainless-os',
    },
  });
}

/** A page's request; `stream` asks for SSE (a live stream is written past fastify's reply). */
async function browserPost(gateway: TestGateway, origin: string, stream = false): Promise<Response> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      origin,
      authorization: `Bearer ${gateway.credentials.apiKey}`,
      'content-type': 'application/json',
      'x-service-cache': 'off',
    },
    body: JSON.stringify({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream }),
  });
  const text = await response.text();
  if (stream) expect(text).toContain('data: [DONE]');
  return response;
}

describe('CORS, by default (any origin: credentials are bearer tokens, never cookies)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(env());
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('answers a browser preflight for the headers the client asks for', async () => {
    const response = await preflight(gateway, 'https://app.example.com');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'authorization,content-type,x-stainless-os',
    );
  });

  it.each([
    ['a JSON answer', false],
    ['a streamed answer', true],
  ])("lets the page read %s and the gateway's routing, balance and cache headers", async (_, stream) => {
    const response = await browserPost(gateway, 'https://app.example.com', stream);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = response.headers.get('access-control-expose-headers')!.split(/,\s*/);
    for (const name of [
      'x-service-balance-remaining-micros',
      'x-service-byok',
      'x-service-cache',
      'x-service-cache-similarity',
      'retry-after',
    ])
      expect(exposed).toContain(name);
  });
});

describe('CORS limited to named origins', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ ...env(), GATEWAY_CORS_ORIGINS: 'https://app.example.com' });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it.each([
    ['JSON', false],
    ['streams', true],
  ])('allows a named origin and no other (%s)', async (_, stream) => {
    const allowed = await browserPost(gateway, 'https://app.example.com', stream);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('vary')).toMatch(/origin/i);
    const other = await browserPost(gateway, 'https://evil.example.com', stream);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(
      (await preflight(gateway, 'https://evil.example.com')).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });
});

describe('CORS turned off', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ ...env(), GATEWAY_CORS_ORIGINS: 'off' });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('sends no CORS headers and does not answer preflights', async () => {
    for (const stream of [false, true])
      expect(
        (await browserPost(gateway, 'https://app.example.com', stream)).headers.get(
          'access-control-allow-origin',
        ),
      ).toBeNull();
    expect((await preflight(gateway, 'https://app.example.com')).status).toBe(404);
  });
});

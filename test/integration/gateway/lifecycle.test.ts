import { mkdtemp } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantNamespace } from '../../../src/resources/types.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openai: FakeServer;
const env = () => ({ OPENAI_API_KEY: 'sk-platform', OPENAI_BASE_URL: `${openai.url}/v1` });
const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'openai/gpt-4o',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});

beforeAll(async () => {
  openai = await startFakeOpenAi();
});
afterAll(async () => {
  await openai?.stop();
});

describe('client aborts', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(env());
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('aborts the upstream request when the client goes away before the answer', async () => {
    const before = openai.requests.length;
    openai.overrideNext(async (request) => {
      await request.aborted;
    });
    const controller = new AbortController();
    const response = fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.credentials.apiKey}` },
      body: JSON.stringify(chat()),
      signal: controller.signal,
    }).catch(() => undefined);
    await openai.waitForRequests(before + 1);
    controller.abort();
    await response;
    await openai.requests[before]!.aborted;
    expect(openai.requests[before]!.wasAborted()).toBe(true);
  });

  it('aborts the upstream stream when the client disconnects mid-stream', async () => {
    const before = openai.requests.length;
    openai.overrideNext(async (request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'a' } }] })}\n\n`,
      );
      await request.aborted;
    });
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.credentials.apiKey}` },
      body: JSON.stringify(chat({ stream: true })),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await openai.requests[before]!.aborted;
    expect(openai.requests[before]!.wasAborted()).toBe(true);
  });
});

describe('health, readiness and metrics', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway(env());
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('answers /healthz and /readyz', async () => {
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${gateway.controlUrl}/healthz`)).status).toBe(200);
  });

  it('exposes request, latency and stream metrics', async () => {
    await (await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey)).text();
    await (
      await postJson(`${gateway.url}/v1/chat/completions`, chat({ stream: true }), gateway.credentials.apiKey)
    ).text();
    await postJson(`${gateway.url}/v1/chat/completions`, chat(), 'tt_sk_wrong');
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(text).toMatch(
      /gateway_requests_total\{route="\/v1\/chat\/completions",status="200",provider="openai"\} 2/,
    );
    expect(text).toMatch(
      /gateway_requests_total\{route="\/v1\/chat\/completions",status="401",provider="none"\} 1/,
    );
    expect(text).toContain('gateway_overhead_seconds_bucket');
    expect(text).toContain('gateway_upstream_seconds_bucket');
    expect(text).toContain('gateway_inflight_streams');
    // The upstream pool: its connection kept alive, nothing on it or waiting for it now.
    const origin = new URL(openai.url).origin.replace(/[.]/g, '\\.');
    expect(text).toMatch(new RegExp(`^gateway_upstream_connections\\{origin="${origin}"\\} [1-9]`, 'm'));
    expect(text).toMatch(new RegExp(`^gateway_upstream_requests_active\\{origin="${origin}"\\} 0$`, 'm'));
    expect(text).toMatch(new RegExp(`^gateway_upstream_requests_queued\\{origin="${origin}"\\} 0$`, 'm'));
  });
});

describe('upstream connections', () => {
  it('holds at most GATEWAY_UPSTREAM_CONNECTIONS per origin, the request past them queued and counted', async () => {
    const gateway = await startTestGateway({ ...env(), GATEWAY_UPSTREAM_CONNECTIONS: '1' });
    try {
      const { promise: released, resolve: release } = Promise.withResolvers<void>();
      openai.overrideNext(async (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'one' } }] })}\n\n`,
        );
        await released;
        response.end('data: [DONE]\n\n');
      });
      const streaming = await postJson(
        `${gateway.url}/v1/chat/completions`,
        chat({ stream: true }),
        gateway.credentials.apiKey,
      );
      const reader = streaming.body!.getReader();
      await reader.read();
      const upstreamRequests = openai.requests.length;
      const second = postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey);
      // The second request waits for the one connection; the gauge says so while it does.
      const origin = new URL(openai.url).origin.replace(/[.]/g, '\\.');
      const queued = new RegExp(`^gateway_upstream_requests_queued\\{origin="${origin}"\\} 1$`, 'm');
      const deadline = Date.now() + 5000;
      let text = '';
      while (!queued.test(text) && Date.now() < deadline)
        text = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(text).toMatch(queued);
      expect(text).toMatch(new RegExp(`^gateway_upstream_connections\\{origin="${origin}"\\} 1$`, 'm'));
      expect(openai.requests.length).toBe(upstreamRequests);
      release();
      while (!(await reader.read()).done) {
        // the rest of the stream
      }
      expect((await second).status).toBe(200);
      expect(openai.requests.length).toBe(upstreamRequests + 1);
    } finally {
      await gateway.stop();
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes an open stream, then stops accepting', async () => {
    const gateway = await startTestGateway(env());
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    openai.overrideNext(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'one' } }] })}\n\n`,
      );
      await released;
      response.write(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'two' } }] })}\n\n`,
      );
      response.end('data: [DONE]\n\n');
    });
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      chat({ stream: true }),
      gateway.credentials.apiKey,
    );
    const reader = response.body!.getReader();
    await reader.read();
    const stopped = gateway.stop();
    release();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(rest).toContain('"two"');
    expect(rest).toContain('[DONE]');
    await stopped;
    await expect(fetch(`${gateway.url}/healthz`)).rejects.toThrow();
  });
});

describe('standalone restarts', () => {
  it('keeps keys and balances across a restart and does not bootstrap twice', async () => {
    const first = await startTestGateway(env());
    await (await postJson(`${first.url}/v1/chat/completions`, chat(), first.credentials.apiKey)).text();
    const balance = await first.running.stores.runtime.getBalance(first.credentials.tenantId);
    await first.stop({ keepState: true });

    const second = await startTestGateway(env(), first.stateDir);
    try {
      // The bootstrap file is not rewritten: it still holds the first start's credentials.
      expect(second.credentials.apiKey).toBe(first.credentials.apiKey);
      const response = await postJson(`${second.url}/v1/chat/completions`, chat(), first.credentials.apiKey);
      expect(response.status).toBe(200);
      const charged = Number(response.headers.get('x-service-balance-charged-micros'));
      expect(Number(response.headers.get('x-service-balance-remaining-micros'))).toBe(balance! - charged);
      expect((await second.running.resources.list('Tenant')).length).toBe(1);
    } finally {
      await second.stop();
    }
  });

  it('starts a first start over when it failed before delivering its credentials', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const stateDir = await mkdtemp(join(tmpdir(), 'gateway-test-'));
    try {
      const port = String((taken.address() as AddressInfo).port);
      await expect(startTestGateway({ ...env(), GATEWAY_PORT: port }, stateDir)).rejects.toThrow(
        /EADDRINUSE/,
      );
    } finally {
      taken.close();
    }
    const second = await startTestGateway(env(), stateDir);
    try {
      const response = await postJson(`${second.url}/v1/chat/completions`, chat(), second.credentials.apiKey);
      expect(response.status).toBe(200);
      // The undelivered credentials of the failed start are gone: one of each remains.
      const secrets = await second.running.resources.list(
        'Secret',
        tenantNamespace(second.credentials.tenantId),
      );
      expect(secrets.map((secret) => secret.metadata.name.split('-').slice(0, -1).join('-')).sort()).toEqual([
        'api-key',
        'pat',
        'pat',
        'provisioning-key',
      ]);
    } finally {
      await second.stop({ keepState: true });
    }
    // Delivered this time: a third start leaves them alone.
    const third = await startTestGateway(env(), stateDir);
    try {
      const response = await postJson(`${third.url}/v1/chat/completions`, chat(), third.credentials.apiKey);
      expect(response.status).toBe(200);
      expect(
        await third.running.resources.list('Secret', tenantNamespace(third.credentials.tenantId)),
      ).toHaveLength(4);
    } finally {
      await third.stop();
    }
  });
});

import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCredential } from '../../../src/auth/credential-hash.ts';
import { credentialSecret } from '../../../src/resources/credential-secret.ts';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import { type FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openai: FakeServer;
let anthropic: FakeServer;
let gateway: TestGateway;
let closedPort: number;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  closedPort = await freePort();
  gateway = await startTestGateway({
    OPENAI_API_KEY: 'sk-platform-openai',
    OPENAI_BASE_URL: `${openai.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: anthropic.url,
    // A configured provider whose upstream is down.
    MISTRAL_API_KEY: 'sk-mistral',
    MISTRAL_BASE_URL: `http://127.0.0.1:${closedPort}/v1`,
    UPSTREAM_HEADERS_TIMEOUT_MS: '300',
    UPSTREAM_BODY_TIMEOUT_MS: '300',
    GATEWAY_BODY_LIMIT_BYTES: '4096',
  });
});

afterAll(async () => {
  await gateway?.stop();
  await openai?.stop();
  await anthropic?.stop();
});

const chat = (model = 'openai/gpt-4o') => ({ model, messages: [{ role: 'user', content: 'Hello' }] });

async function expectError(
  response: Response,
  status: number,
  code: string,
): Promise<{ error: { message: string } }> {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: { code: string; message: string; type: string } };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(typeof body.error.type).toBe('string');
  return body;
}

describe('authentication errors', () => {
  it('rejects a missing credential with 401 service.invalid_key', async () => {
    await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat()),
      401,
      'service.invalid_key',
    );
  });

  it('rejects a non-bearer Authorization header', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${gateway.credentials.apiKey}` },
      body: JSON.stringify(chat()),
    });
    await expectError(response, 401, 'service.invalid_key');
  });

  it.each([
    ['an unknown workspace key', 'tt_sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a credential with an unknown prefix', 'sk-not-ours'],
    ['an ephemeral token when no signing key is configured', 'tt_ev_eyJhbGciOiJIUzI1NiJ9.x.y'],
    ['a huge credential (under the header size limit)', `tt_sk_${'A'.repeat(12_000)}`],
  ])('rejects %s with 401 service.invalid_key', async (_name, credential) => {
    await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat(), credential),
      401,
      'service.invalid_key',
    );
  });

  it('accepts the key as x-api-key, as Anthropic SDKs send it', async () => {
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.credentials.apiKey },
      body: JSON.stringify({
        model: 'anthropic/claude-3-5-haiku-latest',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      }),
    });
    expect(response.status).toBe(200);
  });

  it('refuses a route the key has no grant for with 403 service.scope_denied', async () => {
    const embedOnly = generateCredential('tt_sk_');
    await gateway.running.resources.apply(
      credentialSecret(gateway.credentials.tenantId, 'api-key', embedOnly, {
        workspace: gateway.credentials.workspaceId,
        grants: 'embed',
      }),
    );
    await gateway.running.settled();
    const embeddings = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model: 'openai/text-embedding-3-small', input: 'x' },
      embedOnly.plaintext,
    );
    expect(embeddings.status).toBe(200);
    await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat(), embedOnly.plaintext),
      403,
      'service.scope_denied',
    );
    const messages = await postJson(
      `${gateway.url}/v1/messages`,
      {
        model: 'anthropic/claude-3-5-haiku-latest',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      },
      embedOnly.plaintext,
    );
    expect(messages.status).toBe(403);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { code: 'service.scope_denied' } });
  });
});

describe('routing errors', () => {
  it('answers 400 for an unknown provider prefix', async () => {
    const body = await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat('nosuch/model'), gateway.credentials.apiKey),
      400,
      'service.unknown_provider',
    );
    expect(body.error.message).toContain('nosuch');
  });

  it('answers 502 for a provider with no platform credential', async () => {
    await expectError(
      await postJson(
        `${gateway.url}/v1/chat/completions`,
        chat('groq/llama-3.1-8b-instant'),
        gateway.credentials.apiKey,
      ),
      502,
      'service.provider_unavailable',
    );
  });

  it('answers 502 when the upstream cannot be reached', async () => {
    await expectError(
      await postJson(
        `${gateway.url}/v1/chat/completions`,
        chat('mistral/mistral-large-latest'),
        gateway.credentials.apiKey,
      ),
      502,
      'service.upstream_unreachable',
    );
  });

  it('answers 504 when the upstream does not answer in time', async () => {
    openai.overrideNext(async (request) => {
      await request.aborted;
    });
    await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey),
      504,
      'service.upstream_timeout',
    );
  });
});

describe('bad bodies', () => {
  const url = () => `${gateway.url}/v1/chat/completions`;

  it.each([
    ['malformed JSON', '{"model": "gpt-4o", '],
    ['a JSON array', '[]'],
    ['no model', JSON.stringify({ messages: [{ role: 'user', content: 'x' }] })],
    ['an empty model', JSON.stringify({ model: ' ', messages: [{ role: 'user', content: 'x' }] })],
    ['messages not an array', JSON.stringify({ model: 'gpt-4o', messages: 'hi' })],
    ['a message without a role', JSON.stringify({ model: 'gpt-4o', messages: [{ content: 'x' }] })],
    [
      'stream not a boolean',
      JSON.stringify({ model: 'gpt-4o', stream: 'yes', messages: [{ role: 'user', content: 'x' }] }),
    ],
    ['an empty body', ''],
  ])('answers 400 invalid_request for %s', async (_name, body) => {
    await expectError(await postJson(url(), body, gateway.credentials.apiKey), 400, 'invalid_request');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${gateway.credentials.apiKey}` },
      body: 'hello',
    });
    await expectError(response, 400, 'invalid_request');
  });

  it('answers 400 for a body nested deeper than the limit (never a stack overflow)', async () => {
    const deep = `${'['.repeat(200)}${']'.repeat(200)}`;
    const body = `{"model":"gpt-4o","messages":[{"role":"user","content":${deep}}]}`;
    const error = await expectError(
      await postJson(url(), body, gateway.credentials.apiKey),
      400,
      'invalid_request',
    );
    expect(error.error.message).toContain('nested deeper than 128 levels');
    // Brackets inside strings are text, not nesting.
    const text = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: '['.repeat(500) }] });
    expect((await postJson(url(), text, gateway.credentials.apiKey)).status).toBe(200);
  });

  it('answers 413 for a body over the limit', async () => {
    const big = { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(10_000) }] };
    await expectError(await postJson(url(), big, gateway.credentials.apiKey), 413, 'payload_too_large');
  });

  it('answers 400 for /v1/messages without max_tokens, in the Anthropic envelope', async () => {
    const response = await postJson(
      `${gateway.url}/v1/messages`,
      { model: 'anthropic/claude-3-5-haiku-latest', messages: [{ role: 'user', content: 'x' }] },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { code: 'invalid_request' } });
  });

  it('answers 404 in the envelope for an unknown path', async () => {
    await expectError(
      await postJson(`${gateway.url}/v1/nope`, {}, gateway.credentials.apiKey),
      404,
      'not_found',
    );
  });

  it('answers 400 in the envelope for a path with a malformed percent-escape', async () => {
    const key = gateway.credentials.apiKey;
    await expectError(
      await postJson(`${gateway.url}/v1/chat/completions%`, chat(), key),
      400,
      'invalid_request',
    );
    const models = await fetch(`${gateway.url}/v1/models/openai%2Fgpt-4o%E0%A4`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await expectError(models, 400, 'invalid_request');
    const messages = await postJson(`${gateway.url}/v1/messages%zz`, chat(), key);
    expect(messages.status).toBe(400);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { code: 'invalid_request' } });
  });
});

describe('upstream error mapping', () => {
  it.each([
    [400, 400, { error: { message: 'bad temperature', type: 'invalid_request_error' } }],
    [
      401,
      502,
      {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      },
    ],
    [404, 404, { error: { message: 'model not found', code: 'model_not_found' } }],
    [500, 502, { error: { message: 'server error' } }],
    [503, 503, { error: { message: 'overloaded' } }],
  ])(
    'maps upstream %i to %i keeping the upstream message',
    async (upstreamStatus, gatewayStatus, upstreamBody) => {
      openai.overrideNext((_request, response) => sendJson(response, upstreamStatus, upstreamBody));
      const response = await postJson(
        `${gateway.url}/v1/chat/completions`,
        chat(),
        gateway.credentials.apiKey,
      );
      expect(response.status).toBe(gatewayStatus);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('service.upstream_error');
      expect(body.error.message).toContain(upstreamBody.error.message);
    },
  );

  it('maps 429 with its Retry-After', async () => {
    openai.overrideNext((_request, response) =>
      sendJson(
        response,
        429,
        { error: { message: 'slow down', type: 'rate_limit_error' } },
        { 'retry-after': '7' },
      ),
    );
    const response = await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it("maps Anthropic's 529 overloaded to 503 in the Anthropic envelope on /v1/messages", async () => {
    anthropic.overrideNext((_request, response) =>
      sendJson(response, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    const response = await postJson(
      `${gateway.url}/v1/messages`,
      {
        model: 'anthropic/claude-3-5-haiku-latest',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: { code: 'service.upstream_error', message: expect.stringContaining('Overloaded') },
    });
  });

  it('answers 502 service.upstream_disconnected when the upstream resets the connection in the middle of its answer', async () => {
    openai.overrideNext((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"id":"chatcmpl-1","object":');
      setImmediate(() => response.socket?.destroy());
    });
    await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey),
      502,
      'service.upstream_disconnected',
    );
  });

  /** Writes `text` then `padding` bytes of spaces, chunked, honouring backpressure; resolves with what was written. */
  async function writeHuge(
    response: ServerResponse,
    status: number,
    text: string,
    padding: number,
  ): Promise<number> {
    response.writeHead(status, { 'content-type': 'application/json' });
    let written = 0;
    response.write(text);
    const chunk = Buffer.alloc(64 * 1024, ' ');
    while (written < padding && !response.destroyed) {
      written += chunk.length;
      if (!response.write(chunk)) {
        const drained = await Promise.race([
          once(response, 'drain').then(() => true),
          once(response, 'close').then(() => false),
        ]);
        if (!drained) break;
      }
    }
    if (!response.destroyed) response.end('}');
    return written;
  }

  it('reads only the first 64 KiB of an error answer, and still maps it', async () => {
    let written: Promise<number> | undefined;
    openai.overrideNext((_request, response) => {
      written = writeHuge(
        response,
        429,
        '{"error":{"message":"Rate limit reached","type":"requests"},"pad":"',
        256 * 1024 * 1024,
      );
    });
    const body = await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey),
      429,
      'service.upstream_error',
    );
    expect(body.error.message.length).toBeLessThan(70 * 1024);
    // The gateway dropped the connection instead of reading 256 MiB.
    expect(await written).toBeLessThan(64 * 1024 * 1024);
  });

  it('answers 502 to a whole answer larger than 32 MiB, without reading the rest', async () => {
    let written: Promise<number> | undefined;
    openai.overrideNext((_request, response) => {
      written = writeHuge(response, 200, '{"id":"chatcmpl-1","pad":"', 256 * 1024 * 1024);
    });
    const body = await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey),
      502,
      'service.upstream_error',
    );
    expect(body.error.message).toContain('larger than');
    expect(await written).toBeLessThan(128 * 1024 * 1024);
  });

  it('answers 504 when the upstream stalls in the middle of its answer', async () => {
    openai.overrideNext(async (request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      response.write('{"id":"chatcmpl-1","object":');
      await request.aborted;
    });
    await expectError(
      await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey),
      504,
      'service.upstream_timeout',
    );
  });

  it('ends a stream that fails midway with an error event', async () => {
    openai.overrideNext((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'par' } }] })}\n\n`,
      );
      setImmediate(() => response.socket?.destroy());
    });
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { ...chat(), stream: true },
      gateway.credentials.apiKey,
    );
    const text = await response.text();
    expect(text).toContain('"par"');
    // The provider was reached and began answering: not "could not reach".
    expect(text).toContain('"code":"service.upstream_disconnected"');
    expect(text).toContain('closed the connection before its answer was complete');
    expect(text).not.toContain('[DONE]');
  });
});

describe('balance', () => {
  it('refuses platform traffic with 402 once a prepaid balance is used up', async () => {
    const runtime = gateway.running.stores.runtime;
    const tenant = gateway.credentials.tenantId;
    const balance = (await runtime.getBalance(tenant))!;
    await runtime.adjustBalance(tenant, -balance);
    try {
      await expectError(
        await postJson(`${gateway.url}/v1/chat/completions`, chat(), gateway.credentials.apiKey),
        402,
        'service.insufficient_balance',
      );
    } finally {
      await runtime.adjustBalance(tenant, balance);
    }
  });
});

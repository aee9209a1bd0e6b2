/**
 * Request ids on both listeners: every answer (JSON, streams, errors, cache hits, unknown paths)
 * carries `x-request-id`, the client's own when sane and a new one otherwise; the same id is in
 * the access log line, on the server span and in error bodies, and the official SDKs read it.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const GENERATED = /^req_[0-9a-f]{16}[0-9a-z]+$/;
const SERVER = 2;

let receiver: OtlpReceiver;
let openai: FakeServer;
let anthropic: FakeServer;
let gateway: TestGateway;
const logLines: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // As a pod would carry them (this file runs in a process of its own).
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '20';
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
  gateway = await startTestGateway(
    {
      GATEWAY_CACHE: 'on',
      OPENAI_API_KEY: 'sk-platform-openai',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      ANTHROPIC_API_KEY: 'sk-ant-platform',
      ANTHROPIC_BASE_URL: anthropic.url,
      GATEWAY_ACCESS_LOG_SAMPLE: '1',
      LOG_LEVEL: 'info',
    },
    undefined,
    { logLines },
  );
});

afterAll(async () => {
  await gateway?.stop();
  await openai?.stop();
  await anthropic?.stop();
  await receiver?.stop();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
});

let asked = 0;
const chat = (headers: Record<string, string> = {}, extra: Record<string, unknown> = {}, content?: string) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    {
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: content ?? `question ${++asked}` }],
      ...extra,
    },
    gateway.credentials.apiKey,
    headers,
  );

const idOf = (response: Response) => response.headers.get('x-request-id') as string;

const accessLine = async (requestId: string) => {
  const find = () =>
    logLines
      .map((line) => JSON.parse(line) as { msg: string; access?: Record<string, unknown> })
      .find((line) => line.msg === 'request' && line.access?.requestId === requestId)?.access;
  await expect.poll(() => find() !== undefined).toBe(true);
  return find() as Record<string, unknown>;
};

const serverSpan = async (requestId: string): Promise<ReceivedSpan> => {
  const match = (span: ReceivedSpan) =>
    span.kind === SERVER && span.attributes['gateway.request.id'] === requestId;
  const spans = await receiver.waitFor((all) => all.some(match));
  return spans.find(match) as ReceivedSpan;
};

describe('request ids on the gateway', () => {
  it('gives a JSON answer a new id, the same in the access log line and on the span', async () => {
    const response = await chat();
    expect(response.status).toBe(200);
    await response.text();
    const id = idOf(response);
    expect(id).toMatch(GENERATED);
    expect(await accessLine(id)).toMatchObject({ route: '/v1/chat/completions', status: 200 });
    expect((await serverSpan(id)).attributes['http.response.status_code']).toBe(200);
  });

  it("keeps the client's sane id, and gives each request without one an id of its own", async () => {
    const mine = 'client-trace_01:ab.c/d+e=f@g';
    const response = await chat({ 'x-request-id': mine });
    await response.text();
    expect(idOf(response)).toBe(mine);
    expect(await accessLine(mine)).toMatchObject({ status: 200 });
    await serverSpan(mine);
    const [first, second] = await Promise.all([chat(), chat()]);
    expect(idOf(first as Response)).not.toBe(idOf(second as Response));
  });

  it('replaces an id that is too long or carries characters out of the safe set', async () => {
    const exactly128 = 'a'.repeat(128);
    const kept = await chat({ 'x-request-id': exactly128 });
    expect(idOf(kept)).toBe(exactly128);
    for (const sent of ['a'.repeat(129), 'has space', 'a"quote', 'semi;colon', '<script>']) {
      const response = await chat({ 'x-request-id': sent });
      expect(response.status).toBe(200);
      expect(idOf(response), sent).toMatch(GENERATED);
      expect(await accessLine(idOf(response))).toMatchObject({ status: 200 });
    }
  });

  it('puts the id on a stream, and in the error event of a stream that fails midway', async () => {
    const response = await chat({}, { stream: true });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    await response.text();
    const id = idOf(response);
    expect(id).toMatch(GENERATED);
    expect(await accessLine(id)).toMatchObject({ stream: true, status: 200 });
    expect((await serverSpan(id)).attributes['gateway.stream']).toBe(true);

    openai.overrideNext((_request, upstream) => {
      upstream.writeHead(200, { 'content-type': 'text/event-stream' });
      upstream.write(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'par' } }] })}\n\n`,
      );
      setImmediate(() => upstream.socket?.destroy());
    });
    const broken = await chat({ 'x-request-id': 'broken-stream-1' }, { stream: true });
    const text = await broken.text();
    expect(idOf(broken)).toBe('broken-stream-1');
    expect(text).toContain('"code":"service.upstream_disconnected"');
    expect(text).toContain('"request_id":"broken-stream-1"');
  });

  it('puts the id in the error body, the access log line and the span of a 401', async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] },
      'tt_sk_not-a-real-key',
    );
    expect(response.status).toBe(401);
    const id = idOf(response);
    expect(id).toMatch(GENERATED);
    expect(await response.json()).toMatchObject({ error: { code: 'service.invalid_key' }, request_id: id });
    expect(await accessLine(id)).toMatchObject({ status: 401, errorCode: 'service.invalid_key' });
    expect((await serverSpan(id)).attributes['error.type']).toBe('service.invalid_key');
  });

  it('gives a cache hit, JSON or stream, an id of its own', async () => {
    for (const extra of [{}, { stream: true }]) {
      const content = `cached ${JSON.stringify(extra)}`;
      const first = await chat({}, extra, content);
      await first.text();
      let hit: Response | undefined;
      await expect
        .poll(async () => {
          const response = await chat({}, extra, content);
          await response.text();
          hit = response;
          return response.headers.get('x-service-cache');
        })
        .toBe('hit');
      const id = idOf(hit as Response);
      expect(id).toMatch(GENERATED);
      expect(id).not.toBe(idOf(first));
      expect(await accessLine(id)).toMatchObject({ cache: 'hit', status: 200 });
    }
  });

  it('says it as request-id too on /v1/messages, with request_id in the Anthropic error body', async () => {
    const ok = await postJson(
      `${gateway.url}/v1/messages`,
      {
        model: 'anthropic/claude-3-5-sonnet-20241022',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      },
      gateway.credentials.apiKey,
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get('request-id')).toBe(idOf(ok));
    const refused = await postJson(
      `${gateway.url}/v1/messages`,
      { model: 'anthropic/claude-3-5-sonnet-20241022', messages: [{ role: 'user', content: 'hi' }] },
      gateway.credentials.apiKey,
      { 'x-request-id': 'anthropic-err-1' },
    );
    expect(refused.status).toBe(400);
    expect(refused.headers.get('request-id')).toBe('anthropic-err-1');
    expect(await refused.json()).toMatchObject({ type: 'error', request_id: 'anthropic-err-1' });
  });

  it('answers unknown paths, malformed URLs and health checks with an id too', async () => {
    const missing = await fetch(`${gateway.url}/v1/nothing-here`, { headers: { 'x-request-id': 'nf-1' } });
    expect(missing.status).toBe(404);
    expect(idOf(missing)).toBe('nf-1');
    expect(await missing.json()).toMatchObject({ error: { code: 'not_found' }, request_id: 'nf-1' });
    const malformed = await fetch(`${gateway.url}/v1/chat/%zz`, { method: 'POST' });
    expect(malformed.status).toBe(400);
    expect(idOf(malformed)).toMatch(GENERATED);
    expect(await malformed.json()).toMatchObject({ request_id: idOf(malformed) });
    expect(idOf(await fetch(`${gateway.url}/healthz`))).toMatch(GENERATED);
  });
});

describe('the official SDKs read the id', () => {
  const openaiClient = (apiKey = gateway.credentials.apiKey) =>
    new OpenAI({ apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const anthropicClient = (apiKey = gateway.credentials.apiKey) =>
    new Anthropic({ apiKey, baseURL: gateway.url, maxRetries: 0 });
  const messages = [{ role: 'user' as const, content: 'Hello SDK' }];

  it('openai: _request_id on answers and streams, requestID on errors', async () => {
    const completion = await openaiClient().chat.completions.create({ model: 'openai/gpt-4o', messages });
    expect(completion._request_id).toMatch(GENERATED);
    const { data: stream, request_id } = await openaiClient()
      .chat.completions.create({ model: 'openai/gpt-4o', messages, stream: true })
      .withResponse();
    for await (const _chunk of stream);
    expect(request_id).toMatch(GENERATED);
    const failed = await openaiClient('tt_sk_nope')
      .chat.completions.create({ model: 'openai/gpt-4o', messages })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as InstanceType<typeof OpenAI.APIError>).requestID).toMatch(GENERATED);
  });

  it('anthropic: _request_id on answers, requestID on errors', async () => {
    const message = await anthropicClient().messages.create({
      model: 'anthropic/claude-3-5-sonnet-20241022',
      max_tokens: 16,
      messages,
    });
    expect(message._request_id).toMatch(GENERATED);
    const failed = await anthropicClient('tt_sk_nope')
      .messages.create({ model: 'anthropic/claude-3-5-sonnet-20241022', max_tokens: 16, messages })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Anthropic.APIError);
    expect((failed as InstanceType<typeof Anthropic.APIError>).requestID).toMatch(GENERATED);
  });
});

describe('request ids on the control plane', () => {
  const graphql = (
    query: string,
    headers: Record<string, string> = {},
    credential = gateway.credentials.pat,
  ) => postJson(`${gateway.controlUrl}/graphql`, { query }, credential, headers);

  it("puts the id on answers and the span, keeping the client's sane one", async () => {
    const generated = await graphql('{ cachePolicies { name } }');
    expect(generated.status).toBe(200);
    expect(idOf(generated)).toMatch(GENERATED);
    const kept = await graphql('{ cachePolicies { name } }', { 'x-request-id': 'cp-client-1' });
    expect(idOf(kept)).toBe('cp-client-1');
    expect((await serverSpan('cp-client-1')).attributes['http.route']).toBe('/graphql');
    const replaced = await graphql('{ cachePolicies { name } }', { 'x-request-id': 'x'.repeat(200) });
    expect(idOf(replaced)).toMatch(GENERATED);
  });

  it('puts the id in GraphQL errors (extensions.request_id) and in the REST envelope', async () => {
    const refused = await graphql('{ cachePolicies { name } }', {}, 'tt_pat_unknown');
    expect(refused.status).toBe(401);
    const body = (await refused.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', request_id: idOf(refused) });
    const invalid = await graphql('{ notAField }', { 'x-request-id': 'cp-invalid-1' });
    expect(((await invalid.json()) as typeof body).errors[0]?.extensions).toMatchObject({
      code: 'GRAPHQL_VALIDATION_FAILED',
      request_id: 'cp-invalid-1',
    });
    const provision = await postJson(`${gateway.controlUrl}/provision/tenant`, { name: 'x' });
    expect(provision.status).toBe(401);
    expect(await provision.json()).toMatchObject({
      error: { code: 'UNAUTHENTICATED' },
      request_id: idOf(provision),
    });
  });
});

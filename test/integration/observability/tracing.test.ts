/**
 * OpenTelemetry traces end to end: a gateway exporting over OTLP/HTTP to a real receiver on
 * loopback. The server span follows the GenAI conventions and carries the gateway's own
 * attributes; auth, the cache lookup, the upstream call and the cache write are its children; the
 * upstream sees the upstream span's context as `traceparent`; the caller's `traceparent` is the
 * server span's parent; and no prompt, completion or key is ever exported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/observability/logger.ts';
import { startTracing } from '../../../src/observability/tracing.ts';
import { makeModelRoute } from '../../contract/config-fixtures.ts';
import { FAKE_OPENAI_REPLY, startFakeOpenAi } from '../../fakes/fake-openai.ts';
import { type FakeServer, sendJson } from '../../fakes/fake-server.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const SERVER = 2;
const CLIENT = 3;
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const PROMPT = 'PROMPT-TEXT-never-exported-5b1f';

let receiver: OtlpReceiver;
let openai: FakeServer;
let gateway: TestGateway;
const logLines: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // The standard variables, as a pod would carry them (this file runs in a process of its own).
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '20';
  process.env.OTEL_SERVICE_NAME = 'gateway-under-test';
  openai = await startFakeOpenAi();
  gateway = await startTestGateway(
    {
      GATEWAY_CACHE: 'on',
      OPENAI_API_KEY: 'sk-platform-secret-7c2d',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      // A compatible server without a Responses API: /v1/responses reaches it through chat.
      GROQ_API_KEY: 'gsk-platform',
      GROQ_BASE_URL: `${openai.url}/v1`,
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
  await receiver?.stop();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
});

const ask = (content: string, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
  postJson(
    `${gateway.url}/v1/chat/completions`,
    { model: 'openai/gpt-4o', messages: [{ role: 'user', content }], ...body },
    gateway.credentials.apiKey,
    headers,
  );

const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) =>
  spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId);

describe('traces over OTLP/HTTP', () => {
  it('exports a GenAI server span per request, its children, and the caller’s and the upstream’s links', async () => {
    const response = await ask(PROMPT, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` });
    expect(response.status).toBe(200);
    await response.text();
    const spans = await receiver.waitFor((all) =>
      all.some((span) => span.traceId === CALLER_TRACE && span.kind === SERVER),
    );
    const server = spans.find(
      (span) => span.traceId === CALLER_TRACE && span.kind === SERVER,
    ) as ReceivedSpan;
    expect(server.parentSpanId).toBe(CALLER_SPAN);
    expect(server.name).toBe('chat openai/gpt-4o');
    expect(server.resource['service.name']).toBe('gateway-under-test');
    expect(server.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'openai/gpt-4o',
      'gen_ai.response.model': 'gpt-4o',
      'gateway.upstream.model': 'gpt-4o',
      'gateway.tenant.id': expect.any(String),
      'gateway.workspace.id': expect.any(String),
      'gateway.credential.kind': 'api-key',
      'gateway.byok': false,
      'gateway.cache.result': 'miss',
      'gateway.cache.policy': expect.any(String),
      'http.response.status_code': 200,
      'http.route': '/v1/chat/completions',
    });
    expect(server.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(server.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    expect(server.attributes['gateway.cost_micros']).toBeGreaterThan(0);

    await receiver.waitFor((all) => childrenOf(all, server).length >= 4);
    const children = childrenOf(receiver.spans, server);
    expect(children.map((span) => span.name).sort()).toEqual(
      ['chat gpt-4o', 'gateway.auth', 'gateway.cache.lookup', 'gateway.cache.write'].sort(),
    );
    const upstream = children.find((span) => span.kind === CLIENT) as ReceivedSpan;
    expect(upstream.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'http.response.status_code': 200,
    });
    // The upstream saw the upstream span as its parent.
    const sent = openai.requests.at(-1);
    expect(sent?.headers.traceparent).toBe(`00-${CALLER_TRACE}-${upstream.spanId}-01`);
  });

  it('says a cached answer was a hit, with no upstream span', async () => {
    const trace = 'aaaabbbbccccddddeeeeffff00001111';
    await (await ask('a question asked twice')).text();
    await (await ask('a question asked twice', { traceparent: `00-${trace}-${CALLER_SPAN}-01` })).text();
    const spans = await receiver.waitFor((all) =>
      all.some((span) => span.traceId === trace && span.kind === SERVER),
    );
    const server = spans.find((span) => span.traceId === trace && span.kind === SERVER) as ReceivedSpan;
    expect(server.attributes['gateway.cache.result']).toBe('hit');
    await receiver.waitFor((all) => childrenOf(all, server).length >= 2);
    expect(childrenOf(receiver.spans, server).some((span) => span.kind === CLIENT)).toBe(false);
  });

  it('gives a stream its time to first chunk', async () => {
    const trace = '1111222233334444555566667777aaaa';
    const response = await ask(
      'stream me',
      { traceparent: `00-${trace}-${CALLER_SPAN}-01` },
      { stream: true },
    );
    expect(response.status).toBe(200);
    await response.text();
    const spans = await receiver.waitFor((all) =>
      all.some((span) => span.traceId === trace && span.kind === SERVER),
    );
    const server = spans.find((span) => span.traceId === trace && span.kind === SERVER) as ReceivedSpan;
    expect(server.attributes['gateway.stream']).toBe(true);
    expect(server.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
  });

  it('marks a refused request with its error code', async () => {
    const trace = '9999888877776666555544443333cccc';
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content: PROMPT }] },
      'tt_sk_not-a-real-key',
      { traceparent: `00-${trace}-${CALLER_SPAN}-01` },
    );
    expect(response.status).toBe(401);
    const spans = await receiver.waitFor((all) =>
      all.some((span) => span.traceId === trace && span.kind === SERVER),
    );
    const server = spans.find((span) => span.traceId === trace && span.kind === SERVER) as ReceivedSpan;
    expect(server.attributes['error.type']).toBe('service.invalid_key');
    expect(server.attributes['http.response.status_code']).toBe(401);
  });

  it('traces the control plane too: a server span per GraphQL request', async () => {
    const trace = 'dddd0000dddd0000dddd0000dddd0000';
    const response = await fetch(`${gateway.controlUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${gateway.credentials.pat}`,
        traceparent: `00-${trace}-${CALLER_SPAN}-01`,
      },
      body: JSON.stringify({ query: 'query Probe { __typename }', operationName: 'Probe' }),
    });
    expect(response.status).toBe(200);
    const spans = await receiver.waitFor((all) => all.some((span) => span.traceId === trace));
    const server = spans.find((span) => span.traceId === trace) as ReceivedSpan;
    expect(server).toMatchObject({ name: 'POST /graphql', kind: SERVER, parentSpanId: CALLER_SPAN });
    expect(server.attributes).toMatchObject({
      'graphql.operation.name': 'Probe',
      'gateway.tenant.id': expect.any(String),
      'http.response.status_code': 200,
    });
  });

  it('writes one access log line per request, with the trace id and never the prompt or the key', async () => {
    const accessLines = () =>
      logLines
        .map((line) => JSON.parse(line) as { msg: string; access?: Record<string, unknown> })
        .filter((line) => line.msg === 'request' && line.access !== undefined)
        .map((line) => line.access as Record<string, unknown>);
    await expect.poll(() => accessLines().some((line) => line.traceId === CALLER_TRACE)).toBe(true);
    const first = accessLines().find((line) => line.traceId === CALLER_TRACE);
    expect(first).toMatchObject({
      method: 'POST',
      route: '/v1/chat/completions',
      status: 200,
      operation: 'chat',
      requestModel: 'openai/gpt-4o',
      provider: 'openai',
      cache: 'miss',
      credentialKind: 'api-key',
    });
    expect(first?.durationMs).toBeGreaterThan(0);
    expect(first?.inputTokens).toBeGreaterThan(0);
    expect(first?.costMicros).toBeGreaterThan(0);
    // One line per request: the five requests so far (the 401 included).
    await expect.poll(() => accessLines().length).toBe(5);
    const logged = logLines.join('\n');
    for (const text of [PROMPT, FAKE_OPENAI_REPLY, gateway.credentials.apiKey, 'sk-platform-secret-7c2d'])
      expect(logged).not.toContain(text);
  });

  it('never exports a prompt, a completion or a key', () => {
    const exported = receiver.payloads.join('\n');
    expect(exported.length).toBeGreaterThan(0);
    // Sent as OTLP's default encoding, protobuf (its strings are UTF-8 bytes: the search still reads them).
    expect(new Set(receiver.contentTypes)).toEqual(new Set(['application/x-protobuf']));
    for (const text of [
      PROMPT,
      FAKE_OPENAI_REPLY,
      gateway.credentials.apiKey,
      'sk-platform-secret-7c2d',
      'tt_sk_not-a-real-key',
    ])
      expect(exported).not.toContain(text);
  });

  it('gives each attempt of a model route a span of its own, with its number, target and outcome', async () => {
    const trace = 'abcdabcdabcdabcd0123012301230123';
    const { id, record } = makeModelRoute(gateway.credentials.tenantId, undefined, 'traced-route', {
      targets: [
        { model: 'openai/gpt-4o', weight: 1, priority: 0 },
        { model: 'openai/gpt-4o-mini', weight: 1, priority: 1 },
      ],
    });
    await gateway.running.stores.config.put('modelRoute', id, record);
    await gateway.running.view.whenApplied('modelRoute', id, (held) => held !== undefined, 10_000);
    openai.overrideNext((_request, response) =>
      sendJson(response, 503, { error: { message: 'overloaded' } }),
    );
    const response = await ask(
      'through a route',
      { traceparent: `00-${trace}-${CALLER_SPAN}-01` },
      { model: 'traced-route' },
    );
    expect(response.status).toBe(200);
    await response.text();
    const spans = await receiver.waitFor((all) =>
      all.some((span) => span.traceId === trace && span.kind === SERVER),
    );
    const server = spans.find((span) => span.traceId === trace && span.kind === SERVER) as ReceivedSpan;
    expect(server.attributes).toMatchObject({
      'gateway.route': 'traced-route',
      'gateway.route.target': 'openai/gpt-4o-mini',
      'gateway.route.attempts': 2,
      'gen_ai.request.model': 'traced-route',
    });
    const attempts = (
      await receiver.waitFor(
        (all) => childrenOf(all, server).filter((span) => span.kind === CLIENT).length >= 2,
      )
    )
      .filter((span) => span.kind === CLIENT && span.parentSpanId === server.spanId && span.traceId === trace)
      .map((span) => span.attributes)
      .sort((a, b) => Number(a['gateway.route.attempt']) - Number(b['gateway.route.attempt']));
    expect(attempts).toEqual([
      expect.objectContaining({
        'gateway.route.attempt': 1,
        'gateway.route.target': 'openai/gpt-4o',
        'gateway.route.outcome': 'server_error',
      }),
      expect.objectContaining({
        'gateway.route.attempt': 2,
        'gateway.route.target': 'openai/gpt-4o-mini',
        'gateway.route.outcome': 'ok',
        'http.response.status_code': 200,
      }),
    ]);
  });
});

describe('a request the caller’s trace did not sample', () => {
  it('exports no span of it, and passes the unsampled context upstream', async () => {
    const trace = 'eeee1111eeee1111eeee1111eeee1111';
    const before = receiver.spans.length;
    const response = await ask('not sampled', { traceparent: `00-${trace}-${CALLER_SPAN}-00` });
    expect(response.status).toBe(200);
    await response.text();
    // The upstream still sees the trace, flagged unsampled, so that its own sampler agrees.
    expect(String(openai.requests.at(-1)?.headers.traceparent)).toMatch(
      new RegExp(`^00-${trace}-[0-9a-f]{16}-00$`),
    );
    // A later sampled request's spans arrive; none of this trace's ever do.
    const marker = 'ffff2222ffff2222ffff2222ffff2222';
    await (await ask('sampled', { traceparent: `00-${marker}-${CALLER_SPAN}-01` })).text();
    await receiver.waitFor((all) => all.some((span) => span.traceId === marker && span.kind === SERVER));
    expect(receiver.spans.slice(before).some((span) => span.traceId === trace)).toBe(false);
  });
});

describe('OTEL_EXPORTER_OTLP_PROTOCOL=http/json, with GATEWAY_TRACE_CONTENT=on', () => {
  let contentGateway: TestGateway;

  beforeAll(async () => {
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
    try {
      contentGateway = await startTestGateway({
        OPENAI_API_KEY: 'sk-platform-secret-7c2d',
        OPENAI_BASE_URL: `${openai.url}/v1`,
        GATEWAY_TRACE_CONTENT: 'on',
      });
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
    }
  });

  afterAll(async () => {
    await contentGateway?.stop();
  });

  it('exports JSON, and the prompt and the completion on the server span, never the key', async () => {
    const trace = 'abab3333abab3333abab3333abab3333';
    const prompt = 'CONTENT-ON-prompt-91c4';
    const response = await postJson(
      `${contentGateway.url}/v1/chat/completions`,
      { model: 'openai/gpt-4o', messages: [{ role: 'user', content: prompt }] },
      contentGateway.credentials.apiKey,
      { traceparent: `00-${trace}-${CALLER_SPAN}-01` },
    );
    expect(response.status).toBe(200);
    await response.text();
    const spans = await receiver.waitFor((all) =>
      all.some((span) => span.traceId === trace && span.kind === SERVER),
    );
    const server = spans.find((span) => span.traceId === trace && span.kind === SERVER) as ReceivedSpan;
    expect(String(server.attributes['gen_ai.input.messages'])).toContain(prompt);
    expect(String(server.attributes['gen_ai.output.messages'])).toContain(FAKE_OPENAI_REPLY);
    const index = receiver.payloads.findIndex((payload) => payload.includes(trace));
    expect(receiver.contentTypes[index]).toBe('application/json');
    for (const key of [contentGateway.credentials.apiKey, 'sk-platform-secret-7c2d'])
      expect(receiver.payloads.join('\n')).not.toContain(key);
  });
});

describe('flushing what is buffered', () => {
  it('sends the buffered spans at once, long before the batch delay, and goes on tracing', async () => {
    const log = createLogger('silent', 'tracing-flush');
    // A batch delay of a minute: a span can reach the receiver this soon only by the flush.
    const tracing = await startTracing(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '60000' },
      'gateway',
      log,
    );
    try {
      const first = tracing.tracer.startSpan('flush-test-first');
      first.end();
      await tracing.flush();
      const firstId = first.spanContext().spanId;
      expect(receiver.spans.some((span) => span.spanId === firstId)).toBe(true);
      const second = tracing.tracer.startSpan('flush-test-second');
      second.end();
      await tracing.flush();
      const secondId = second.spanContext().spanId;
      expect(receiver.spans.some((span) => span.spanId === secondId)).toBe(true);
    } finally {
      await tracing.shutdown();
    }
  });

  it('names a /v1/responses span chat, with openai.api.type responses', async () => {
    const trace = 'aaaabbbbccccddddeeeeffff00002222';
    const response = await postJson(
      `${gateway.url}/v1/responses`,
      { model: 'groq/llama-3.1-8b-instant', input: 'traced responses' },
      gateway.credentials.apiKey,
      { traceparent: `00-${trace}-${CALLER_SPAN}-01` },
    );
    expect(response.status).toBe(200);
    await response.text();
    const spans = await receiver.waitFor((all) =>
      all.some((span) => span.traceId === trace && span.kind === SERVER),
    );
    const server = spans.find((span) => span.traceId === trace && span.kind === SERVER) as ReceivedSpan;
    expect(server.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'openai.api.type': 'responses',
      'gen_ai.provider.name': 'groq',
      'http.route': '/v1/responses',
    });
    expect(server.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
  });
});

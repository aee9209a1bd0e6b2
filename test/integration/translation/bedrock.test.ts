import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, tenantNamespace } from '../../../src/resources/types.ts';
import {
  encodeFrame,
  FAKE_BEDROCK_REPLY,
  FAKE_BEDROCK_STREAM,
  type FakeBedrock,
  sendAwsError,
  sendEventStream,
  startFakeBedrock,
} from '../../fakes/fake-bedrock.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const CLAUDE = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const PLATFORM_KEY = {
  accessKeyId: 'AKIAPLATFORM0000EXAMPLE',
  secretAccessKey: 'platform/secret/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const TENANT_KEY = {
  accessKeyId: 'AKIATENANT00000EXAMPLE',
  secretAccessKey: 'tenant/secret/wJalrXUtnFEMI/K7MDENGbPxRfiCY',
  sessionToken: 'FwoGZXIvYXdzEXAMPLESESSIONTOKEN',
};
const MANTLE_API_KEY = 'bedrock-api-key-ABSKQmVkcm9ja0FQSUtleS1FWEFNUExF';

let runtime: FakeBedrock;
let mantle: FakeBedrock;
let gateway: TestGateway;

beforeAll(async () => {
  runtime = await startFakeBedrock({
    service: 'bedrock',
    keys: [PLATFORM_KEY, TENANT_KEY],
    models: [CLAUDE],
  });
  mantle = await startFakeBedrock({
    service: 'bedrock-mantle',
    keys: [TENANT_KEY],
    apiKeys: [MANTLE_API_KEY],
  });
  gateway = await startTestGateway({
    BEDROCK_BASE_URL: runtime.url,
    BEDROCK_REGION: 'eu-west-3',
    AWS_ACCESS_KEY_ID: PLATFORM_KEY.accessKeyId,
    AWS_SECRET_ACCESS_KEY: PLATFORM_KEY.secretAccessKey,
    BEDROCK_MANTLE_BASE_URL: `${mantle.url}/v1`,
    BEDROCK_MANTLE_API_KEY: MANTLE_API_KEY,
  });
  const namespace = tenantNamespace(gateway.credentials.tenantId);
  await gateway.running.resources.apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'tenant-aws', namespace },
    stringData: {
      awsAccessKeyId: TENANT_KEY.accessKeyId,
      awsSecretAccessKey: TENANT_KEY.secretAccessKey,
      awsSessionToken: TENANT_KEY.sessionToken,
    },
  });
  for (const [name, provider, baseUrl] of [
    ['my-bedrock', 'bedrock', runtime.url],
    ['my-mantle', 'bedrock-mantle', `${mantle.url}/v1`],
  ] as const) {
    await gateway.running.resources.apply({
      apiVersion: API_VERSION,
      kind: 'Connection',
      metadata: { name, namespace },
      spec: { provider, secretRef: { name: 'tenant-aws' }, awsRegion: 'ap-southeast-2', baseUrl },
    });
  }
  await gateway.running.settled();
});

afterAll(async () => {
  await gateway?.stop();
  await runtime?.stop();
  await mantle?.stop();
});

const openai = () =>
  new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Get the weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('bedrock/* on /v1/chat/completions (Converse, SigV4)', () => {
  it('translates to Converse at the encoded model path, signed with SigV4 for the region (official openai client)', async () => {
    const completion = await openai().chat.completions.create({
      model: `bedrock/${CLAUDE}`,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
      max_tokens: 256,
    });
    expect(completion.choices[0]!.message.content).toBe(FAKE_BEDROCK_REPLY);
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.model).toBe(CLAUDE);
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
    const upstream = runtime.requests.at(-1)!;
    // The ':' of the model id travels as %3A; the signature covered it double-encoded (the fake checked).
    expect(upstream.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(upstream.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${PLATFORM_KEY.accessKeyId}/\\d{8}/eu-west-3/bedrock/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$`,
      ),
    );
    expect(upstream.body).toEqual({
      system: [{ text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ text: 'Hello' }] }],
      inferenceConfig: { maxTokens: 256 },
    });
  });

  it('streams ConverseStream event-stream frames (split across network writes) as chat.completion.chunks', async () => {
    const stream = await openai().chat.completions.create({
      model: `bedrock/${CLAUDE}`,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishReasons: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishReasons.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(FAKE_BEDROCK_STREAM.join(''));
    expect(finishReasons).toEqual(['stop']);
    expect(usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 4 });
    expect(runtime.requests.at(-1)!.path).toBe(
      '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream',
    );
  });

  it('calls tools and takes tool results back, in JSON and streamed', async () => {
    const client = openai();
    const first = await client.chat.completions.create({
      model: `bedrock/${CLAUDE}`,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ id: 'tooluse_fake01', type: 'function' });
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    expect(runtime.requests.at(-1)!.body).toMatchObject({
      toolConfig: {
        tools: [
          { toolSpec: { name: 'get_weather', inputSchema: { json: WEATHER_TOOL.function.parameters } } },
        ],
        toolChoice: { any: {} },
      },
    });

    const stream = await client.chat.completions.create({
      model: `bedrock/${CLAUDE}`,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      stream: true,
    });
    let streamedArguments = '';
    let streamedName: string | undefined;
    for await (const chunk of stream)
      for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
        streamedName ??= delta.function?.name;
        streamedArguments += delta.function?.arguments ?? '';
      }
    expect(streamedName).toBe('get_weather');
    expect(JSON.parse(streamedArguments)).toEqual({ city: 'Paris' });

    const second = await client.chat.completions.create({
      model: `bedrock/${CLAUDE}`,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: '{"temp":18}' },
      ],
      tools: [WEATHER_TOOL],
    });
    expect(second.choices[0]!.message.content).toBe('It is 18°C in Paris.');
    expect((runtime.requests.at(-1)!.body as { messages: unknown[] }).messages.at(-1)).toEqual({
      role: 'user',
      content: [{ toolResult: { toolUseId: 'tooluse_fake01', content: [{ text: '{"temp":18}' }] } }],
    });
  });

  it('bills the translated answer at the Claude price (the Bedrock id priced as its model)', async () => {
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: `bedrock/${CLAUDE}`, messages: [{ role: 'user', content: 'Hi' }] },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(200);
    // 20 input * $3 + 10 output * $15 per million.
    expect(response.headers.get('x-service-balance-charged-micros')).toBe('210');
  });

  it('serves a Connection with its own AWS keys, session token and region (BYOK)', async () => {
    const completion = await openai().chat.completions.create({
      model: `@my-bedrock/${CLAUDE}`,
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]!.message.content).toBe(FAKE_BEDROCK_REPLY);
    const upstream = runtime.requests.at(-1)!;
    expect(upstream.headers.authorization).toContain(`Credential=${TENANT_KEY.accessKeyId}/`);
    expect(upstream.headers.authorization).toContain('/ap-southeast-2/bedrock/aws4_request');
    expect(upstream.headers['x-amz-security-token']).toBe(TENANT_KEY.sessionToken);
    expect(upstream.headers.authorization).not.toContain(PLATFORM_KEY.accessKeyId);
  });

  it('maps a refused signature (wrong secret) to 502 upstream_auth_error, not the caller’s 401/403', async () => {
    const key = runtime.keys.get(PLATFORM_KEY.accessKeyId)!;
    const secret = key.secretAccessKey;
    key.secretAccessKey = 'not-the-secret-the-gateway-has';
    try {
      const response = await postJson(
        `${gateway.url}/v1/chat/completions`,
        { model: `bedrock/${CLAUDE}`, messages: [{ role: 'user', content: 'Hi' }] },
        gateway.credentials.apiKey,
      );
      expect(response.status).toBe(502);
      const body = (await response.json()) as { error: { type: string; message: string; code: string } };
      expect(body.error.type).toBe('upstream_auth_error');
      expect(body.error.code).toBe('service.upstream_error');
      expect(body.error.message).toContain('InvalidSignatureException');
    } finally {
      key.secretAccessKey = secret;
    }
  });

  it.each([
    ['ThrottlingException', 429, 429, 'rate_limit_error'],
    ['ValidationException', 400, 400, 'invalid_request_error'],
    ['AccessDeniedException', 403, 403, 'permission_error'],
    ['ServiceUnavailableException', 503, 503, 'overloaded_error'],
    ['ModelErrorException', 424, 502, 'api_error'],
  ])('maps %s (%i) to %i %s in the OpenAI envelope', async (errorType, upstreamStatus, status, type) => {
    runtime.overrideNext((_request, response) =>
      sendAwsError(response, { status: upstreamStatus, errorType, message: `fake ${errorType}` }),
    );
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: `bedrock/${CLAUDE}`, messages: [{ role: 'user', content: 'Hi' }] },
      gateway.credentials.apiKey,
    );
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe(type);
    expect(body.error.message).toContain(`fake ${errorType}`);
  });

  it('surfaces an exception frame mid-stream as the error chunk (the SDK throws)', async () => {
    runtime.overrideNext((_request, response) =>
      sendEventStream(response, [
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Partial' } } },
        { event: 'throttlingException', payload: { message: 'Too many tokens' }, exception: true },
      ]),
    );
    const stream = await openai().chat.completions.create({
      model: `bedrock/${CLAUDE}`,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    });
    let text = '';
    await expect(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
    ).rejects.toThrow(/Too many tokens/);
    expect(text).toBe('Partial');
  });

  it('ends with an error chunk when the event stream is cut inside a frame', async () => {
    runtime.overrideNext((_request, response) => {
      const frame = encodeFrame({ event: 'messageStart', payload: { role: 'assistant' } });
      response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      response.end(Buffer.from(frame.subarray(0, frame.length - 5)));
    });
    const response = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: `bedrock/${CLAUDE}`, messages: [{ role: 'user', content: 'Hi' }], stream: true },
      gateway.credentials.apiKey,
    );
    const text = await response.text();
    expect(text).toContain('"error"');
    expect(text).not.toContain('[DONE]');
  });
});

describe('the fake Bedrock checks SigV4 as AWS does', () => {
  const signer = new SignatureV4({
    service: 'bedrock',
    region: 'eu-west-3',
    credentials: PLATFORM_KEY,
    sha256: Hash.bind(null, 'sha256') as unknown as ConstructorParameters<typeof SignatureV4>[0]['sha256'],
  });
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });

  async function send(signedPath: string, wirePath: string): Promise<Response> {
    const url = new URL(runtime.url);
    const signed = await signer.sign({
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: signedPath,
      query: {},
      headers: { host: url.host, 'content-type': 'application/json' },
      body,
    });
    const { host: _host, ...headers } = signed.headers;
    return fetch(`${runtime.url}${wirePath}`, { method: 'POST', headers, body });
  }

  it('accepts a signature over the path as sent', async () => {
    const path = '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse';
    expect((await send(path, path)).status).toBe(200);
  });

  it("refuses the classic ':' bug: signing the unencoded id but sending %3A", async () => {
    const response = await send(
      '/model/anthropic.claude-3-5-sonnet-20240620-v1:0/converse',
      '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
    );
    expect(response.status).toBe(403);
    expect(response.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
    expect(((await response.json()) as { message: string }).message).toMatch(
      /signature we calculated does not match/,
    );
  });
});

describe('bedrock-mantle/* (OpenAI-compatible passthrough)', () => {
  it('passes chat completions through with the Bedrock API key as Bearer (official openai client)', async () => {
    const completion = await openai().chat.completions.create({
      model: 'bedrock-mantle/openai.gpt-oss-120b',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Hello from Mantle.');
    const upstream = mantle.requests.at(-1)!;
    expect(upstream.path).toBe('/v1/chat/completions');
    expect(upstream.headers.authorization).toBe(`Bearer ${MANTLE_API_KEY}`);
    expect(upstream.body).toMatchObject({
      model: 'openai.gpt-oss-120b',
      messages: [{ role: 'user', content: 'Hello' }],
    });
  });

  it('signs with SigV4 for service bedrock-mantle on a Connection with AWS keys', async () => {
    const completion = await openai().chat.completions.create({
      model: '@my-mantle/openai.gpt-oss-20b',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]!.message.content).toBe('Hello from Mantle.');
    const upstream = mantle.requests.at(-1)!;
    expect(upstream.headers.authorization).toMatch(
      new RegExp(
        `^AWS4-HMAC-SHA256 Credential=${TENANT_KEY.accessKeyId}/\\d{8}/ap-southeast-2/bedrock-mantle/aws4_request`,
      ),
    );
  });
});

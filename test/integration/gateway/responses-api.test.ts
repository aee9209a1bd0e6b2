/**
 * `/v1/responses` through the official openai client against fake upstreams, on the memory and
 * the Redis stores: create and stream on translated routes (Anthropic, Gemini) and the
 * pass-through to OpenAI's own Responses API; two-turn conversations by previous_response_id; a
 * function tool round trip; retrieve, delete, input_items; cross-workspace retrieval refused; the
 * token scope `responses`.
 */
import { createGatewayFetch } from '@inference-gateway/client';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetCounterName } from '../../../src/billing/ephemeral-token-limits.ts';
import {
  heard,
  OPENAI_RESPONSES_REPLY,
  startConversationalAnthropic,
  startConversationalGemini,
  startFakeOpenAiResponses,
  WEATHER_RESULT_PREFIX,
} from '../../fakes/fake-conversation-upstreams.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { graphql, MINT, type MintedToken } from '../../helpers/graphql.ts';
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.ts';
import { startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

const GEMINI_MODEL = 'gemini-2.5-flash';
const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

type Backend = 'memory' | 'redis';

const redis: RedisServer | undefined = await startRedisServer();
const backends: Backend[] = redis === undefined ? ['memory'] : ['memory', 'redis'];

afterAll(async () => {
  await redis?.stop();
});

describe.each(backends)('/v1/responses on the %s store', (backend) => {
  let anthropic: FakeServer;
  let gemini: FakeServer;
  let openai: Awaited<ReturnType<typeof startFakeOpenAiResponses>>;
  let gateway: TestGateway;
  let client: OpenAI;

  beforeAll(async () => {
    [anthropic, gemini, openai] = await Promise.all([
      startConversationalAnthropic(),
      startConversationalGemini(GEMINI_MODEL),
      startFakeOpenAiResponses(),
    ]);
    gateway = await startTestGateway({
      ANTHROPIC_API_KEY: 'sk-ant-platform',
      ANTHROPIC_BASE_URL: anthropic.url,
      GEMINI_API_KEY: 'gemini-platform',
      GEMINI_BASE_URL: gemini.url,
      OPENAI_API_KEY: 'sk-platform-openai',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      SERVICE_TOKEN_SIGNING_KEY: 'cd'.repeat(32),
      ...(backend === 'redis' ? { REDIS_URL: redis!.url } : {}),
    });
    client = new OpenAI({ apiKey: gateway.credentials.apiKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([anthropic?.stop(), gemini?.stop(), openai?.stop()]);
  });

  it('creates a response on anthropic/ in the Responses shape, with resp_ and msg_ ids and usage', async () => {
    const response = await client.responses.create({
      model: 'anthropic/claude-sonnet-4-5',
      instructions: 'Be brief.',
      input: 'Hello there.',
    });
    expect(response.id).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe(heard(['Hello there.']));
    expect(response.output[0]).toMatchObject({ type: 'message', id: expect.stringMatching(/^msg_/) });
    expect(response.usage).toMatchObject({ input_tokens: 20, output_tokens: 9 });
    expect(response.instructions).toBe('Be brief.');
    // The instructions went as Anthropic's system prompt.
    expect(anthropic.requests.at(-1)?.body).toMatchObject({ system: [{ type: 'text', text: 'Be brief.' }] });
  });

  for (const [prefix, model] of [
    ['anthropic/', 'anthropic/claude-sonnet-4-5'],
    ['gemini/', `gemini/${GEMINI_MODEL}`],
  ] as const) {
    it(`continues a two-turn conversation by previous_response_id on ${prefix}, streaming the second turn`, async () => {
      const first = await client.responses.create({ model, input: 'My name is Ada.' });
      const stream = client.responses.stream({
        model,
        input: 'What is my name?',
        previous_response_id: first.id,
      });
      const deltas: string[] = [];
      stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
      const second = await stream.finalResponse();
      expect(second.output_text).toBe(heard(['My name is Ada.', 'What is my name?']));
      expect(deltas.join('')).toBe(second.output_text);
      expect(second.previous_response_id).toBe(first.id);
      // Stored before its terminal event: retrievable at once, and a third turn sees all three.
      const third = await client.responses.create({
        model,
        input: 'And again?',
        previous_response_id: second.id,
      });
      expect(third.output_text).toBe(heard(['My name is Ada.', 'What is my name?', 'And again?']));
    });
  }

  it('runs a function tool round trip: the call, then its output by previous_response_id', async () => {
    const first = await client.responses.create({
      model: `gemini/${GEMINI_MODEL}`,
      input: 'Weather in Paris?',
      tools: [WEATHER_TOOL],
    });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({
      name: 'get_weather',
      call_id: expect.any(String),
      id: expect.stringMatching(/^fc_/),
    });
    expect(JSON.parse(call!.type === 'function_call' ? call!.arguments : '')).toEqual({ city: 'Paris' });
    const second = await client.responses.create({
      model: `gemini/${GEMINI_MODEL}`,
      previous_response_id: first.id,
      tools: [WEATHER_TOOL],
      input: [
        {
          type: 'function_call_output',
          call_id: call!.type === 'function_call' ? call!.call_id : '',
          output: '18C, cloudy',
        },
      ],
    });
    expect(second.output_text).toBe(`${WEATHER_RESULT_PREFIX}18C, cloudy`);
  });

  it('streams a tool call on anthropic/ as function_call events the client accumulates', async () => {
    const stream = client.responses.stream({
      model: 'anthropic/claude-sonnet-4-5',
      input: 'Weather in Paris?',
      tools: [WEATHER_TOOL],
    });
    const argumentDeltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (event) => argumentDeltas.push(event.delta));
    const response = await stream.finalResponse();
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call?.type === 'function_call' && JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    expect(argumentDeltas.join('')).toBe('{"city":"Paris"}');
  });

  it('retrieves, lists input items of, and deletes a stored response', async () => {
    const first = await client.responses.create({ model: 'anthropic/claude-sonnet-4-5', input: 'one' });
    const second = await client.responses.create({
      model: 'anthropic/claude-sonnet-4-5',
      input: [{ role: 'user', content: 'two' }],
      previous_response_id: first.id,
    });
    const retrieved = await client.responses.retrieve(second.id);
    expect(retrieved).toMatchObject({ id: second.id, output_text: second.output_text, status: 'completed' });
    const items: string[] = [];
    for await (const item of client.responses.inputItems.list(second.id, { limit: 1, order: 'asc' }))
      items.push(item.type === 'message' ? JSON.stringify(item.content) : item.type);
    expect(items).toHaveLength(3);
    expect(items[0]).toContain('one');
    expect(items[2]).toContain('two');
    await client.responses.delete(second.id);
    await expect(client.responses.retrieve(second.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      client.responses.create({
        model: 'anthropic/claude-sonnet-4-5',
        input: 'x',
        previous_response_id: second.id,
      }),
    ).rejects.toMatchObject({ status: 400, code: 'previous_response_not_found' });
  });

  it("resolves item_references to the gateway's own items, as the Vercel AI SDK sends them", async () => {
    const first = await client.responses.create({
      model: 'anthropic/claude-sonnet-4-5',
      input: 'Remember teal.',
    });
    const answer = first.output[0]!;
    const second = await client.responses.create({
      model: `gemini/${GEMINI_MODEL}`,
      input: [
        { role: 'user', content: 'Remember teal.' },
        { type: 'item_reference', id: answer.id as string },
        { role: 'user', content: 'Which colour?' },
      ],
    });
    expect(second.output_text).toBe(heard(['Remember teal.', 'Which colour?']));
    // The referenced assistant answer reached the upstream as the model's own turn.
    const sent = gemini.requests.at(-1)!.body as {
      contents: Array<{ role: string; parts: Array<{ text?: string }> }>;
    };
    const contents = sent.contents;
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1]!.parts[0]!.text).toBe(first.output_text);
    await expect(
      client.responses.create({
        model: 'anthropic/claude-sonnet-4-5',
        input: [{ type: 'item_reference', id: `msg_${'0'.repeat(52)}` }],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('names no item') });
  });

  it('stores nothing with store: false', async () => {
    const response = await client.responses.create({
      model: 'anthropic/claude-sonnet-4-5',
      input: 'x',
      store: false,
    });
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
  });

  it('passes through to OpenAI, keeps its id, and routes its retrieve and delete there for this workspace only', async () => {
    const response = await client.responses.create({
      model: 'openai/gpt-4.1',
      input: 'Hi',
      tools: [{ type: 'web_search' }],
      metadata: { kept: 'yes' },
    });
    expect(response.id).toMatch(/^resp_openai/);
    expect(response.output_text).toBe(OPENAI_RESPONSES_REPLY);
    const sent = openai.requests.at(-1)!;
    expect(sent.path).toBe('/v1/responses');
    expect(sent.body).toMatchObject({
      model: 'gpt-4.1',
      tools: [{ type: 'web_search' }],
      metadata: { kept: 'yes' },
    });
    expect((await client.responses.retrieve(response.id)).id).toBe(response.id);
    const streamed = await client.responses
      .stream({ model: 'openai/gpt-4.1', input: 'Again', previous_response_id: response.id })
      .finalResponse();
    expect(openai.requests.at(-1)?.body).toMatchObject({ previous_response_id: response.id });
    expect(streamed.output_text).toBe(OPENAI_RESPONSES_REPLY);
    await client.responses.delete(response.id);
    expect(openai.created.has(response.id)).toBe(false);
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
  });

  it('answers with the request id, routing and balance headers the client SDK reads', async () => {
    const gatewayFetch = createGatewayFetch();
    const withFetch = new OpenAI({
      apiKey: gateway.credentials.apiKey,
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
      fetch: gatewayFetch,
    });
    const { response, data } = await withFetch.responses
      .create({ model: 'anthropic/claude-sonnet-4-5', input: 'headers?' })
      .withResponse();
    expect(data.status).toBe('completed');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(gatewayFetch.lastRouting()).toMatchObject({ byok: false });
    expect(gatewayFetch.lastResult()).toMatchObject({ status: 200 });
    expect(response.headers.get('x-service-balance-charged-micros')).toMatch(/^\d+$/);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_requests_total\{[^}]*route="\/v1\/responses"[^}]*\} \d+/);
  });

  it("polls and cancels OpenAI's background responses through the gateway, for their workspace", async () => {
    const queued = await client.responses.create({
      model: 'openai/gpt-4.1',
      input: 'Later',
      background: true,
    });
    expect(queued.status).toBe('queued');
    expect((await client.responses.retrieve(queued.id)).status).toBe('queued');
    expect((await client.responses.cancel(queued.id)).status).toBe('cancelled');
    expect(openai.requests.at(-1)?.path).toBe(`/v1/responses/${queued.id}/cancel`);
    const other = await createOtherWorkspaceClient(gateway);
    await expect(other.responses.cancel(queued.id)).rejects.toMatchObject({ status: 404 });
    // A translated response ran to its end before it was stored: nothing to cancel.
    const done = await client.responses.create({ model: 'anthropic/claude-sonnet-4-5', input: 'x' });
    await expect(client.responses.cancel(done.id)).rejects.toMatchObject({ status: 400 });
  });

  it("refuses OpenAI's conversations on the platform's shared key", async () => {
    await expect(
      client.responses.create({ model: 'openai/gpt-4.1', input: 'x', conversation: 'conv_someone_elses' }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("Connection's own OpenAI key") });
  });

  it('serves a model route: its target answers, the conversation continues under the route name', async () => {
    const upserted = await graphql(
      gateway.controlUrl,
      gateway.credentials.pat,
      'mutation($input: ModelRouteInput!) { upsertModelRoute(input: $input) { model } }',
      { input: { model: `assistant-${backend}`, targets: [{ model: `gemini/${GEMINI_MODEL}` }] } },
    );
    expect(upserted.errors).toBeUndefined();
    const first = await client.responses.create({ model: `assistant-${backend}`, input: 'Routed hello.' });
    expect(first.output_text).toBe(heard(['Routed hello.']));
    const second = await client.responses
      .stream({ model: `assistant-${backend}`, input: 'Again.', previous_response_id: first.id })
      .finalResponse();
    expect(second.output_text).toBe(heard(['Routed hello.', 'Again.']));
    expect((await client.responses.retrieve(second.id)).id).toBe(second.id);
  });

  it('refuses a hosted tool on a translated route with a 400 that says so', async () => {
    await expect(
      client.responses.create({
        model: 'anthropic/claude-sonnet-4-5',
        input: 'x',
        tools: [{ type: 'web_search' }],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("hosted tool 'web_search'") });
  });

  it("never shows one workspace another's responses: 404 on retrieve and delete, 400 on continuing", async () => {
    const mine = await client.responses.create({ model: 'anthropic/claude-sonnet-4-5', input: 'secret' });
    const other = await createOtherWorkspaceClient(gateway);
    await expect(other.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.delete(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.inputItems.list(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      other.responses.create({
        model: 'anthropic/claude-sonnet-4-5',
        input: 'x',
        previous_response_id: mine.id,
      }),
    ).rejects.toMatchObject({ status: 400, code: 'previous_response_not_found' });
    expect((await client.responses.retrieve(mine.id)).id).toBe(mine.id);
  });

  it('opens /v1/responses to a token with the responses scope, not to one with chat alone', async () => {
    const mint = async (scopes: string[]) => {
      const minted = await graphql<{ mintEphemeralToken: MintedToken }>(
        gateway.controlUrl,
        gateway.credentials.pat,
        MINT,
        {
          input: { parentKeyId: gateway.credentials.apiKeyId, scopes, ttlSeconds: 600 },
        },
      );
      expect(minted.errors).toBeUndefined();
      return minted.data!.mintEphemeralToken.token;
    };
    const asToken = (token: string) =>
      new OpenAI({ apiKey: token, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const chatOnly = asToken(await mint(['chat']));
    await expect(
      chatOnly.responses.create({ model: 'anthropic/claude-sonnet-4-5', input: 'x' }),
    ).rejects.toMatchObject({
      status: 403,
      code: 'service.scope_denied',
    });
    const responsesToken = asToken(await mint(['responses']));
    // GET /v1/models shows it the chat models the route serves.
    expect((await responsesToken.models.list()).data.map((model) => model.id)).toContain(
      'anthropic/claude-sonnet-4-5',
    );
    const made = await responsesToken.responses.create({
      model: 'anthropic/claude-sonnet-4-5',
      input: 'x',
    });
    expect(made.status).toBe('completed');
    await expect(chatOnly.responses.retrieve(made.id)).rejects.toMatchObject({ status: 403 });
    const otherModel = asToken(await mint(['responses', 'model:gemini/other']));
    await expect(otherModel.responses.retrieve(made.id)).rejects.toMatchObject({ status: 403 });
  });

  it("spends a token's budget on /v1/responses: one paid response, then 402, the budget charged once", async () => {
    const minted = await graphql<{ mintEphemeralToken: MintedToken }>(
      gateway.controlUrl,
      gateway.credentials.pat,
      MINT,
      {
        input: {
          parentKeyId: gateway.credentials.apiKeyId,
          scopes: ['responses'],
          ttlSeconds: 600,
          budgetMicros: 1,
        },
      },
    );
    expect(minted.errors).toBeUndefined();
    const { token, jti } = minted.data!.mintEphemeralToken;
    const spent = () => gateway.running.stores.runtime.getCounter(budgetCounterName(jti));
    const asToken = new OpenAI({
      apiKey: token,
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'x-service-cache': 'off' },
    });
    const first = await asToken.responses.create({
      model: 'anthropic/claude-sonnet-4-5',
      input: 'one paid answer',
    });
    expect(first.status).toBe('completed');
    const charged = await spent();
    expect(charged).toBeGreaterThan(0);
    await expect(
      asToken.responses.create({ model: 'anthropic/claude-sonnet-4-5', input: 'a second paid answer' }),
    ).rejects.toMatchObject({ status: 402, code: 'service.credential_cap_exceeded' });
    expect(await spent()).toBe(charged);
  });
});

const otherClients = new WeakMap<TestGateway, Promise<OpenAI>>();

/** A client with a key of a second workspace of the same tenant (made once per gateway). */
function createOtherWorkspaceClient(gateway: TestGateway): Promise<OpenAI> {
  let made = otherClients.get(gateway);
  if (made === undefined) {
    made = makeOtherWorkspaceClient(gateway);
    otherClients.set(gateway, made);
  }
  return made;
}

async function makeOtherWorkspaceClient(gateway: TestGateway): Promise<OpenAI> {
  const workspace = await graphql<{ createWorkspace: { id: string } }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    'mutation { createWorkspace(name: "Other team") { id } }',
  );
  expect(workspace.errors).toBeUndefined();
  const key = await graphql<{ createApiKey: { key: string } }>(
    gateway.controlUrl,
    gateway.credentials.pat,
    'mutation($workspaceId: String!) { createApiKey(workspaceId: $workspaceId) { key } }',
    { workspaceId: workspace.data!.createWorkspace.id },
  );
  expect(key.errors).toBeUndefined();
  return new OpenAI({ apiKey: key.data!.createApiKey.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
}

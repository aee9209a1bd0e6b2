/**
 * Wrongly typed fields on translated routes (issue 23, item 12): a field a translator maps is
 * type-checked first, and a wrong type is a 400 `invalid_request` naming the field with nothing sent
 * upstream, where it used to go upstream as nothing and come back a 200. Pass-through routes still
 * forward what they do not know untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic } from '../../fakes/fake-anthropic.ts';
import { startFakeGemini } from '../../fakes/fake-gemini.ts';
import { startFakeOpenAi } from '../../fakes/fake-openai.ts';
import type { FakeServer } from '../../fakes/fake-server.ts';
import { postJson, startTestGateway, type TestGateway } from '../../helpers/test-gateway.ts';

let openaiFake: FakeServer;
let anthropicFake: FakeServer;
let geminiFake: FakeServer;
let gateway: TestGateway;

beforeAll(async () => {
  openaiFake = await startFakeOpenAi();
  anthropicFake = await startFakeAnthropic();
  geminiFake = await startFakeGemini('gemini-platform-key');
  gateway = await startTestGateway({
    OPENAI_API_KEY: 'sk-platform-openai',
    OPENAI_BASE_URL: `${openaiFake.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-platform',
    ANTHROPIC_BASE_URL: anthropicFake.url,
    GEMINI_API_KEY: 'gemini-platform-key',
    GEMINI_BASE_URL: geminiFake.url,
  });
});

afterAll(async () => {
  await gateway?.stop();
  await openaiFake?.stop();
  await anthropicFake?.stop();
  await geminiFake?.stop();
});

const hello = [{ role: 'user', content: 'Hello' }];

/** Posts to the gateway and says how many requests `upstream` received meanwhile. */
async function post(path: string, body: unknown, upstream: FakeServer): Promise<[Response, number]> {
  const before = upstream.requests.length;
  const response = await postJson(`${gateway.url}${path}`, body, gateway.credentials.apiKey);
  return [response, upstream.requests.length - before];
}

const WRONG_CHAT_FIELDS: [string, Record<string, unknown>, string][] = [
  ['temperature "hot"', { temperature: 'hot' }, "'temperature' must be a number"],
  ['max_tokens "100"', { max_tokens: '100' }, "'max_tokens' must be an integer"],
  ['stop 5', { stop: 5 }, "'stop' must be a string or an array of strings"],
  [
    'response_format.json_schema "x"',
    { response_format: { type: 'json_schema', json_schema: 'x' } },
    "'response_format.json_schema' must be an object",
  ],
  ['tools that are not a list', { tools: { name: 'f' } }, "'tools' must be an array"],
];

describe.each([
  ['anthropic/claude-3-5-sonnet-20241022', () => anthropicFake],
  ['gemini/gemini-2.5-flash', () => geminiFake],
])('/v1/chat/completions on %s', (model, upstream) => {
  it.each(WRONG_CHAT_FIELDS)(
    'answers %s with 400 naming the field, sending nothing upstream',
    async (_name, fields, expected) => {
      for (const stream of [false, true]) {
        const [response, sent] = await post(
          '/v1/chat/completions',
          { model, messages: hello, stream, ...fields },
          upstream(),
        );
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({
          error: { code: 'invalid_request', type: 'invalid_request_error', message: expected },
          request_id: response.headers.get('x-request-id'),
        });
        expect(sent).toBe(0);
      }
    },
  );

  it('still serves the same request with the fields well typed', async () => {
    const [response, sent] = await post(
      '/v1/chat/completions',
      { model, messages: hello, temperature: 0.5, max_tokens: 100, stop: ['END'] },
      upstream(),
    );
    expect(response.status).toBe(200);
    expect(sent).toBe(1);
  });
});

describe('/v1/messages on openai/ (translated to chat completions)', () => {
  it('answers system 7 with 400 in the Anthropic envelope, naming the field, sending nothing upstream', async () => {
    const [response, sent] = await post(
      '/v1/messages',
      { model: 'openai/gpt-4o', max_tokens: 64, messages: hello, system: 7 },
      openaiFake,
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: {
        code: 'invalid_request',
        type: 'invalid_request_error',
        message: "'system' must be a string or an array of text blocks",
      },
      request_id: response.headers.get('x-request-id'),
    });
    expect(sent).toBe(0);
  });

  it.each([
    [{ temperature: 'hot' }, "'temperature' must be a number"],
    [{ stop_sequences: 'END' }, "'stop_sequences' must be an array of strings"],
    [
      { tool_choice: { type: 'tool' }, tools: [{ name: 'f', input_schema: {} }] },
      "'tool_choice.name' must be a string",
    ],
  ])('answers %j with 400 naming the field', async (fields, expected) => {
    const [response, sent] = await post(
      '/v1/messages',
      { model: 'openai/gpt-4o', max_tokens: 64, messages: hello, ...fields },
      openaiFake,
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(expected);
    expect(sent).toBe(0);
  });
});

describe('pass-through routes (same shape on both sides)', () => {
  it('forward oddly typed and unknown chat fields untouched, for the upstream to judge', async () => {
    const odd = { temperature: 'hot', stop: 5, vendor_extension: { mode: ['x', 1] } };
    const [response, sent] = await post(
      '/v1/chat/completions',
      { model: 'openai/gpt-4o', messages: hello, ...odd },
      openaiFake,
    );
    expect(response.status).toBe(200);
    expect(sent).toBe(1);
    expect(openaiFake.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o', ...odd });
  });

  it('forward an odd system and unknown fields on /v1/messages to anthropic/ untouched', async () => {
    const odd = { system: 7, temperature: 'hot', vendor_extension: true };
    const [response, sent] = await post(
      '/v1/messages',
      { model: 'anthropic/claude-3-5-sonnet-20241022', max_tokens: 64, messages: hello, ...odd },
      anthropicFake,
    );
    expect(response.status).toBe(200);
    expect(sent).toBe(1);
    expect(anthropicFake.requests.at(-1)!.body).toMatchObject({
      model: 'claude-3-5-sonnet-20241022',
      ...odd,
    });
  });
});

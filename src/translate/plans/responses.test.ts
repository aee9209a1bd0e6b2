import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../../sse/sse-events.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { collectResponsesStream } from '../test-support/responses-client.ts';
import {
  encodeAnthropicEvents,
  encodeAwsEventStream,
  encodeDataEvents,
  fetchServingSse,
  replayAwsEventStream,
  replaySse,
  splitEvery,
} from '../test-support/wire.ts';
import type { StreamTranslator, UpstreamTarget } from '../types.ts';
import {
  planResponsesUpstream,
  type ResponsesPlanRequest,
  type ResponsesStreamPipeline,
} from './responses.ts';

// The Responses side of each pair is this folder's requests; the upstream side replays the
// recorded-shape answers, streams and errors of the chat pairs (FIXTURES.md: composed pairs).
const requests = translatorFixtures('responses-to-chat');
const anthropic = translatorFixtures('openai-to-anthropic');
const gemini = translatorFixtures('openai-to-gemini');
const bedrock = translatorFixtures('openai-to-bedrock');
const chat = translatorFixtures('anthropic-to-openai');

const DIGITS = 'ef56'.repeat(12);
const RESPONSE_ID = `resp_${DIGITS}`;

const to = (
  shape: UpstreamTarget['shape'],
  provider: string = shape,
  nativePath?: string,
): UpstreamTarget => ({
  shape,
  provider,
  model: `${provider}-model`,
  nativePath,
});

const plan = (
  body: Record<string, unknown>,
  target: UpstreamTarget,
  extra: Partial<ResponsesPlanRequest> = {},
) => planResponsesUpstream({ body, stream: body.stream === true, responseId: RESPONSE_ID, ...extra }, target);

/** The pipeline as a stream translator, so the wire replays feed it. */
const asTranslator = (pipeline: ResponsesStreamPipeline): StreamTranslator => ({
  push: (event) => pipeline.push(event),
  end: () => pipeline.end(),
});

const errorAnswer = (
  provider: string,
  error: { status?: number; headers?: Record<string, string>; body?: unknown },
  status = 429,
) => ({
  provider,
  status: error.status ?? status,
  body: typeof error.body === 'string' ? error.body : JSON.stringify(error.body ?? error),
  headers: error.headers ?? {},
});

describe('planResponsesUpstream', () => {
  describe('responses->anthropic', () => {
    const target = to('anthropic');

    it('sends an Anthropic Messages body: instructions as system, images, the token cap', () => {
      const body = JSON.parse(plan(requests.json('text.request.json'), target).payload);
      expect(body).toMatchObject({
        model: 'anthropic-model',
        max_tokens: 512,
        temperature: 0.4,
        system: [
          { type: 'text', text: 'You are a concise assistant. Answer in one sentence.' },
          { type: 'text', text: 'Prefer metric units.' },
        ],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What does this diagram show?' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png' } },
            ],
          },
        ],
      });
    });

    it('answers in the Responses shape and bills the upstream usage, cache writes included', () => {
      const answer = plan(requests.json('text.request.json'), target).answer(
        anthropic.text('text.response.json'),
      );
      const response = JSON.parse(answer.text);
      expect(response).toMatchObject({
        id: RESPONSE_ID,
        object: 'response',
        status: 'completed',
        output: [
          {
            type: 'message',
            id: `msg_${DIGITS}0000`,
            content: [
              {
                type: 'output_text',
                text: "Goûtez la tarte aux pralines : une spécialité lyonnaise d'un rose éclatant.",
              },
            ],
          },
        ],
        usage: {
          input_tokens: 31 + 2048 + 1536,
          input_tokens_details: { cached_tokens: 2048 },
          output_tokens: 24,
        },
        metadata: { session: 's-42' },
      });
      expect(answer.usage).toEqual({
        inputTokens: 31,
        cachedInputTokens: 2048,
        cacheWriteTokens: 1536,
        outputTokens: 24,
      });
    });

    it('streams tool use as function_call items, cut at awkward byte boundaries, read by the openai client', async () => {
      const responsesPlan = plan(
        { ...requests.json<Record<string, unknown>>('tools.request.json'), stream: true },
        target,
      );
      const bytes = encodeAnthropicEvents(anthropic.lines('tool-use.chunks.txt'));
      const events = replaySse(asTranslator(responsesPlan.stream()), splitEvery(bytes, 3));
      const stream = collectResponsesStream(events);
      expect(stream.final?.status).toBe('completed');
      expect(stream.items.map((item) => item.type)).toEqual(['message', 'function_call', 'function_call']);
      const client = new OpenAI({
        apiKey: 'k',
        baseURL: 'http://gateway.test/v1',
        fetch: fetchServingSse(events),
      });
      const response = await client.responses.stream({ model: 'anthropic/x', input: 'x' }).finalResponse();
      const calls = response.output.filter((item) => item.type === 'function_call');
      expect(calls.map((call) => JSON.parse(call.arguments))).toEqual([
        expect.objectContaining({ city: 'Paris' }),
        expect.objectContaining({ city: expect.stringMatching(/^T/) }),
      ]);
      // The stream's pipeline billed Anthropic's own counts and saw the answer whole.
      const pipeline = responsesPlan.stream();
      replaySse(asTranslator(pipeline), [bytes]);
      expect(pipeline.completed()).toBe(true);
      expect(pipeline.usage()).toMatchObject({
        inputTokens: expect.any(Number),
        outputTokens: expect.any(Number),
      });
      expect(pipeline.response()).toMatchObject({ id: RESPONSE_ID, status: 'completed' });
    });

    it('answers the JSON tool of text.format json_schema as message text', () => {
      const answer = plan(requests.json('json-schema.request.json'), target).answer(
        anthropic.text('json-tool.response.json'),
      );
      const [item] = JSON.parse(answer.text).output;
      expect(item.type).toBe('message');
      expect(JSON.parse(item.content[0].text)).toEqual(expect.any(Object));
    });

    it('is incomplete when Anthropic stops at max_tokens, in a stream too', () => {
      const body = requests.json<Record<string, unknown>>('text.request.json');
      expect(
        JSON.parse(plan(body, target).answer(anthropic.text('max-tokens.response.json')).text),
      ).toMatchObject({
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
      });
      const pipeline = plan({ ...body, stream: true }, target).stream();
      const stream = collectResponsesStream(
        replaySse(asTranslator(pipeline), [encodeAnthropicEvents(anthropic.lines('max-tokens.chunks.txt'))]),
      );
      expect(stream.terminal).toBe('response.incomplete');
      // An incomplete answer is a whole one (cacheable, as a chat stream cut by length is).
      expect(pipeline.completed()).toBe(true);
    });

    it('fails the stream on an in-stream overloaded error, and the pipeline says it did not complete', () => {
      const pipeline = plan(
        { ...requests.json<Record<string, unknown>>('text.request.json'), stream: true },
        target,
      ).stream();
      const stream = collectResponsesStream(
        replaySse(asTranslator(pipeline), [
          encodeAnthropicEvents(anthropic.lines('mid-stream-error.chunks.txt')),
        ]),
      );
      expect(stream.terminal).toBe('response.failed');
      expect(stream.error).toMatchObject({ type: 'error', message: expect.any(String) });
      expect(pipeline.completed()).toBe(false);
    });

    it("maps Anthropic's error answers by the chat pair's table", () => {
      const error = plan(requests.json('text.request.json'), target).error(
        errorAnswer('anthropic', { body: anthropic.json('rate-limit.error.json') }),
      );
      expect(error).toMatchObject({ statusCode: 429 });
    });

    it('refuses a hosted tool before anything goes upstream', () => {
      expect(() => plan(requests.json('hosted-tools.request.json'), target)).toThrow(
        /provider 'anthropic' does not serve the hosted tool 'web_search'/,
      );
    });

    it('refuses a malformed body with a 400 naming the field, never a 500', () => {
      expect(() => plan({ model: 'm', input: [{ role: 'user', content: 7 }] }, target)).toThrow(
        expect.objectContaining({ statusCode: 400, message: expect.stringContaining("'input[0].content'") }),
      );
      expect(() => plan({ model: 'm', input: [null] }, target)).toThrow(
        expect.objectContaining({ statusCode: 400 }),
      );
      expect(() => plan({ model: 'm', input: [{ role: 'user', content: [7] }] }, target)).toThrow(
        expect.objectContaining({ statusCode: 400 }),
      );
    });
  });

  describe('responses->gemini', () => {
    const target = to('gemini');

    it('calls generateContent, or streamGenerateContent with SSE for a stream', () => {
      const body = requests.json<Record<string, unknown>>('tools.request.json');
      expect(plan(body, target).path).toBe('/v1beta/models/gemini-model:generateContent');
      expect(plan({ ...body, stream: true }, target).path).toBe(
        '/v1beta/models/gemini-model:streamGenerateContent?alt=sse',
      );
      const upstream = JSON.parse(plan(body, target).payload);
      // Gemini's functionResponse needs the function's name: found from the call_id.
      expect(JSON.stringify(upstream.contents)).toContain('"functionResponse":{"name":"get_time"');
    });

    it('answers text and usage, incomplete at MAX_TOKENS', () => {
      const body = requests.json<Record<string, unknown>>('tools.request.json');
      expect(JSON.parse(plan(body, target).answer(gemini.text('text.response.json')).text)).toMatchObject({
        status: 'completed',
        output: [{ type: 'message' }],
      });
      expect(
        JSON.parse(plan(body, target).answer(gemini.text('max-tokens.response.json')).text),
      ).toMatchObject({
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
      });
    });

    it('streams a function call whole, cut at awkward byte boundaries', () => {
      const bytes = encodeDataEvents(gemini.lines('tool-call.chunks.txt'), '\r\n');
      const whole = replaySse(
        asTranslator(
          plan(
            { ...requests.json<Record<string, unknown>>('tools.request.json'), stream: true },
            target,
          ).stream(),
        ),
        [bytes],
      );
      for (const size of [1, 4, 9]) {
        const cut = replaySse(
          asTranslator(
            plan(
              { ...requests.json<Record<string, unknown>>('tools.request.json'), stream: true },
              target,
            ).stream(),
          ),
          splitEvery(bytes, size),
        );
        expect(cut.map((event) => JSON.parse(event.data).type)).toEqual(
          whole.map((event) => JSON.parse(event.data).type),
        );
      }
      const stream = collectResponsesStream(whole);
      expect(stream.items.map((item) => item.type)).toEqual(['message', 'function_call']);
      expect(JSON.parse(String(stream.items[1]!.arguments))).toMatchObject({ city: 'Paris' });
    });

    it('asks for JSON with the schema of text.format and answers the JSON as message text', () => {
      const responsesPlan = plan(
        { ...requests.json<Record<string, unknown>>('json-schema.request.json'), stream: false },
        target,
      );
      expect(JSON.parse(responsesPlan.payload).generationConfig).toMatchObject({
        responseMimeType: 'application/json',
      });
      expect(JSON.stringify(JSON.parse(responsesPlan.payload).generationConfig)).toContain('participants');
      const [item] = JSON.parse(responsesPlan.answer(gemini.text('json-output.response.json')).text).output;
      expect(JSON.parse(item.content[0].text)).toMatchObject({ name: 'Ada Lovelace' });
    });

    it("maps Google's quota error to a 429 with Retry-After", () => {
      const error = plan(requests.json('tools.request.json'), target).error(
        errorAnswer('gemini', { body: gemini.json('quota.error.json') }),
      );
      expect(error).toMatchObject({ statusCode: 429, headers: { 'retry-after': expect.any(String) } });
    });
  });

  describe('responses->bedrock', () => {
    const target = to('bedrock');

    it('streams the JSON tool of a json_schema format as text from AWS event-stream frames', () => {
      const responsesPlan = plan(requests.json('json-schema.request.json'), target);
      expect(responsesPlan.framing).toBe('aws-eventstream');
      expect(responsesPlan.path).toContain('/converse-stream');
      const bytes = encodeAwsEventStream(bedrock.lines('json-tool.chunks.txt'));
      const stream = collectResponsesStream(
        replayAwsEventStream(asTranslator(responsesPlan.stream()), splitEvery(bytes, 5)),
      );
      expect(stream.final?.status).toBe('completed');
      expect(JSON.parse((stream.items[0]!.content as Array<{ text: string }>)[0]!.text)).toEqual({
        name: 'Science fair',
        date: 'Friday',
      });
    });

    it('answers text with Bedrock usage billed', () => {
      const answer = plan({ model: 'm', input: 'Hi' }, target).answer(bedrock.text('text.response.json'));
      expect(JSON.parse(answer.text).status).toBe('completed');
      expect(answer.usage?.cacheWriteTokens).toBeGreaterThan(0);
    });

    it('streams tool use (reasoning dropped) as function_call items, cut at awkward byte boundaries', () => {
      const responsesPlan = plan(
        { ...requests.json<Record<string, unknown>>('tools.request.json'), stream: true },
        target,
      );
      const bytes = encodeAwsEventStream(bedrock.lines('tool-use.chunks.txt'));
      const whole = collectResponsesStream(
        replayAwsEventStream(asTranslator(responsesPlan.stream()), [bytes]),
      );
      const cut = collectResponsesStream(
        replayAwsEventStream(asTranslator(responsesPlan.stream()), splitEvery(bytes, 7)),
      );
      expect(cut.items).toEqual(whole.items);
      expect(whole.final?.status).toBe('completed');
      expect(whole.items.filter((item) => item.type === 'function_call')).toHaveLength(2);
      expect(whole.items.some((item) => item.type === 'reasoning')).toBe(false);
    });

    it('is incomplete with max_output_tokens when Bedrock stops at max_tokens', () => {
      const answer = plan({ model: 'm', input: 'Hi' }, target).answer(
        bedrock.text('max-tokens.response.json'),
      );
      expect(JSON.parse(answer.text)).toMatchObject({
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [{ type: 'message', status: 'incomplete' }],
      });
    });

    it("maps Bedrock's throttling to a 429", () => {
      const fixture = bedrock.json<{ status: number; headers: Record<string, string>; body: unknown }>(
        'throttling.error.json',
      );
      expect(plan({ model: 'm', input: 'Hi' }, target).error(errorAnswer('bedrock', fixture))).toMatchObject({
        statusCode: 429,
      });
    });
  });

  describe('responses->openai without a Responses API (compatible servers)', () => {
    const target = to('openai', 'groq');

    it('sends chat completions, asks for stream usage, and streams the chat chunks back as events', () => {
      const responsesPlan = plan(
        { ...requests.json<Record<string, unknown>>('text.request.json'), stream: true },
        target,
      );
      expect(responsesPlan.path).toBe('/chat/completions');
      expect(JSON.parse(responsesPlan.payload)).toMatchObject({
        model: 'groq-model',
        max_tokens: 512,
        stream: true,
        stream_options: { include_usage: true },
      });
      const pipeline = responsesPlan.stream();
      const stream = collectResponsesStream(
        replaySse(asTranslator(pipeline), [encodeDataEvents(chat.lines('text.chunks.txt'))]),
      );
      expect(stream.final?.status).toBe('completed');
      expect(pipeline.usage()).toMatchObject({ inputTokens: expect.any(Number) });
    });

    it('renders a failure after the stream began as error and response.failed, numbered on', () => {
      const pipeline = plan({ model: 'm', input: 'x', stream: true }, target).stream();
      const lines = chat.lines('text.chunks.txt').slice(0, 2);
      const events: SseEvent[] = [];
      for (const line of lines) events.push(...pipeline.push({ data: line }));
      events.push(...(pipeline.fail?.({ code: 'server_error', message: 'the upstream timed out' }) ?? []));
      const stream = collectResponsesStream(events);
      expect(stream.types.slice(-2)).toEqual(['error', 'response.failed']);
      expect(pipeline.completed()).toBe(false);
    });
  });

  describe('on a hosting provider (Vertex)', () => {
    const endpoint = {
      path: (method: string, stream: boolean) =>
        `/v1/projects/p/locations/l/publishers/anthropic/models/m:${method}${stream ? '-stream' : ''}`,
      body: (body: Record<string, unknown>) => {
        const { model: _model, ...rest } = body;
        return { ...rest, anthropic_version: 'vertex-2023-10-16' };
      },
    };

    it("takes the host's path and body form for Claude, and is never a passthrough", () => {
      const target: UpstreamTarget = {
        shape: 'anthropic',
        provider: 'vertex',
        model: 'claude-x@1',
        nativePath: '/x',
        endpoint,
      };
      const responsesPlan = plan({ model: 'vertex/claude-x@1', input: 'Hi', stream: true }, target);
      expect(responsesPlan.kind).toBe('translated');
      expect(responsesPlan.path).toBe(
        '/v1/projects/p/locations/l/publishers/anthropic/models/m:messages-stream',
      );
      const body = JSON.parse(responsesPlan.payload);
      expect(body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
      expect(body).not.toHaveProperty('model');
    });
  });

  describe('passthrough to an upstream that serves the Responses API', () => {
    const target = to('openai', 'openai', '/responses');

    it('keeps every field, hosted tools included, and rewrites only the model', () => {
      const body = requests.json<Record<string, unknown>>('hosted-tools.request.json');
      const passthrough = plan(body, target);
      expect(passthrough.kind).toBe('passthrough');
      expect(passthrough.path).toBe('/responses');
      expect(JSON.parse(passthrough.payload)).toEqual({ ...body, model: 'openai-model' });
    });

    it('sends a conversation the gateway keeps as the full input, without the previous_response_id', () => {
      const history = [{ type: 'message', role: 'user', content: 'My name is Ada.' }];
      const body = {
        model: 'openai/gpt-4.1',
        input: 'Name?',
        previous_response_id: 'resp_kept',
        store: true,
      };
      expect(JSON.parse(plan(body, target, { history }).payload)).toEqual({
        model: 'openai-model',
        input: [...history, { role: 'user', content: 'Name?' }],
        store: true,
      });
    });

    it('reads usage off the answer and off the terminal event', () => {
      const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 5 }, output_tokens: 3 };
      const passthrough = plan({ model: 'm', input: 'x' }, target);
      expect(passthrough.answer(JSON.stringify({ id: 'resp_1', usage })).usage).toEqual({
        inputTokens: 15,
        cachedInputTokens: 5,
        cacheWriteTokens: 0,
        outputTokens: 3,
      });
      const pipeline = passthrough.stream();
      const completed = { type: 'response.completed', sequence_number: 4, response: { id: 'resp_1', usage } };
      expect(pipeline.push({ event: 'response.completed', data: JSON.stringify(completed) })).toHaveLength(1);
      expect(pipeline.completed()).toBe(true);
      expect(pipeline.usage()).toMatchObject({ inputTokens: 15 });
      expect(pipeline.response()).toMatchObject({ id: 'resp_1' });
      expect(pipeline.fail).toBeUndefined();
    });
  });
});

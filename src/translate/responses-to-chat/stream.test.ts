import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../../sse/sse-events.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { collectResponsesStream } from '../test-support/responses-client.ts';
import { encodeDataEvents, fetchServingSse, replaySse, splitEvery } from '../test-support/wire.ts';
import type { ResponsesContext } from './response.ts';
import { createChatStreamToResponsesTranslator } from './stream.ts';

/** Chat-shaped upstream streams: this folder's, and anthropic-to-openai's (the same upstream shape). */
const own = translatorFixtures('responses-to-chat');
const chat = translatorFixtures('anthropic-to-openai');
const DIGITS = 'cd34'.repeat(12);
const RESPONSE_ID = `resp_${DIGITS}`;

const context: ResponsesContext = {
  id: RESPONSE_ID,
  request: { model: 'openai/gpt-4.1', input: 'x', stream: true },
  createdAt: 1_761_100_000,
  now: () => 1_761_100_005,
};

const bytesOf = (fixtures: typeof chat, name: string) => encodeDataEvents(fixtures.lines(name));
const translate = (pieces: Uint8Array[]): SseEvent[] =>
  replaySse(createChatStreamToResponsesTranslator(context), pieces);

describe('createChatStreamToResponsesTranslator', () => {
  it('streams text as one message item between response.created and response.completed', () => {
    const events = translate([bytesOf(chat, 'text.chunks.txt')]);
    const stream = collectResponsesStream(events);
    expect(stream.types.slice(0, 5)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
    ]);
    expect(stream.types.slice(-5)).toEqual([
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(stream.final).toMatchObject({
      id: RESPONSE_ID,
      status: 'completed',
      model: 'gpt-4o-mini-2024-07-18',
      created_at: 1_761_100_000,
      completed_at: 1_761_100_005,
    });
    const text = (stream.items[0]!.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain('café ☕');
    expect(stream.items[0]).toMatchObject({ id: `msg_${DIGITS}0000`, status: 'completed' });
    // The created event carries the same id, status in_progress and no output yet.
    expect(JSON.parse(events[0]!.data).response).toMatchObject({
      id: RESPONSE_ID,
      status: 'in_progress',
      output: [],
    });
  });

  it('emits the same events however the upstream bytes are cut, characters and events split included', () => {
    for (const [fixtures, name] of [
      [chat, 'text.chunks.txt'],
      [chat, 'tool-calls-interleaved.chunks.txt'],
      [own, 'text-then-tool-calls.chunks.txt'],
    ] as const) {
      const whole = translate([bytesOf(fixtures, name)]);
      for (const size of [1, 2, 3, 5, 7, 64])
        expect(translate(splitEvery(bytesOf(fixtures, name), size))).toEqual(whole);
    }
  });

  it('closes the text before a tool call and keeps interleaved argument pieces on their own calls', () => {
    const stream = collectResponsesStream(translate([bytesOf(chat, 'tool-calls-interleaved.chunks.txt')]));
    expect(stream.final?.status).toBe('completed');
    expect(stream.items.map((item) => [item.type, item.id])).toEqual([
      ['message', `msg_${DIGITS}0000`],
      ['function_call', `fc_${DIGITS}0001`],
      ['function_call', `fc_${DIGITS}0002`],
      ['message', `msg_${DIGITS}0003`],
    ]);
    expect(stream.items[1]).toMatchObject({
      call_id: 'chatcmpl-tool-a1',
      name: 'get_weather',
      arguments: '{"city": "Paris"}',
    });
    expect(stream.items[2]).toMatchObject({
      call_id: 'chatcmpl-tool-b2',
      name: 'get_time',
      arguments: '{"city": "Tōkyō"}',
    });
    expect(stream.final?.usage).toEqual({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 160,
    });
  });

  it('ends incomplete with max_output_tokens after a length finish, even with no usage chunk', () => {
    const stream = collectResponsesStream(translate([bytesOf(chat, 'length-no-usage.chunks.txt')]));
    expect(stream.terminal).toBe('response.incomplete');
    expect(stream.final).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    expect(stream.items[0]).toMatchObject({ status: 'incomplete' });
    expect(stream.final?.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
  });

  it('streams a refusal as a refusal part', () => {
    const stream = collectResponsesStream(translate([bytesOf(chat, 'refusal.chunks.txt')]));
    expect(stream.types).toContain('response.refusal.delta');
    expect(stream.items[0]!.content).toEqual([
      { type: 'refusal', refusal: "I'm sorry, I can't help with that request." },
    ]);
  });

  it('turns the upstream in-stream error into error then response.failed, and nothing after', () => {
    const stream = collectResponsesStream(translate([bytesOf(chat, 'mid-stream-error.chunks.txt')]));
    expect(stream.types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(stream.error).toMatchObject({
      code: 'server_error',
      message: expect.stringContaining('server had an error'),
      param: null,
    });
    expect(stream.final).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: expect.stringContaining('server had an error') },
    });
    expect(stream.items[0]).toMatchObject({ type: 'message', status: 'in_progress' });
  });

  it('fails a stream cut before its finish, and fails on request once only', () => {
    const lines = chat.lines('text.chunks.txt').slice(0, 3);
    const stream = collectResponsesStream(translate([encodeDataEvents(lines)]));
    expect(stream.terminal).toBe('response.failed');
    expect(stream.final?.error).toMatchObject({ code: 'server_error' });
    const translator = createChatStreamToResponsesTranslator(context);
    const failed = translator.fail({ code: 'server_error', message: 'upstream timed out' });
    expect(collectResponsesStream(failed).types).toEqual([
      'response.created',
      'response.in_progress',
      'error',
      'response.failed',
    ]);
    expect(translator.fail({ code: 'x', message: 'y' })).toEqual([]);
    expect(translator.push({ data: '[DONE]' })).toEqual([]);
  });

  it('is read by the official openai client: responses.stream() accumulates the same final response', async () => {
    const events = translate([bytesOf(own, 'text-then-tool-calls.chunks.txt')]);
    const client = new OpenAI({
      apiKey: 'test',
      baseURL: 'http://gateway.test/v1',
      fetch: fetchServingSse(events),
    });
    const stream = client.responses.stream({ model: 'openai/gpt-4.1', input: 'x' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(deltas.join('')).toBe('Let me check — café ☕ first.');
    expect(response.output_text).toBe('Let me check — café ☕ first.');
    expect(response.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(response.output[1]).toMatchObject({ call_id: 'call_Zx81LmQp3', arguments: '{"city":"Paris"}' });
    expect(response.usage).toMatchObject({ input_tokens: 84, input_tokens_details: { cached_tokens: 64 } });
  });

  it('makes the official openai client throw on the failure', async () => {
    const events = translate([bytesOf(chat, 'mid-stream-error.chunks.txt')]);
    const client = new OpenAI({
      apiKey: 'test',
      baseURL: 'http://gateway.test/v1',
      maxRetries: 0,
      fetch: fetchServingSse(events),
    });
    const stream = client.responses.stream({ model: 'openai/gpt-4.1', input: 'x' });
    await expect(stream.finalResponse()).rejects.toThrow(/server had an error/);
  });
});

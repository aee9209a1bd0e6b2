import { describe, expect, it } from 'vitest';
import type { AnthropicMessagesRequest } from '../../shapes/anthropic.ts';
import type { GeminiGenerateContentResponse } from '../../shapes/gemini.ts';
import type { SseEvent } from '../../sse/sse-events.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { eventBodies as bodies, encodeDataEvents, replaySse, splitEvery } from '../test-support/wire.ts';
import {
  convertAnthropicRequestToGemini,
  convertGeminiResponseToAnthropic,
  createGeminiStreamToAnthropicTranslator,
} from './index.ts';

// The fixtures of the two translators this pair composes.
const anthropicFixtures = translatorFixtures('anthropic-to-openai');
const geminiFixtures = translatorFixtures('openai-to-gemini');

const context = () => {
  let next = 0;
  return { model: 'gemini-2.5-flash', created: 1_760_000_000, generateId: () => `id${++next}` };
};

/** A Gemini `.chunks.txt` fixture as Google's wire bytes (CRLF), fed in pieces of `size` bytes. */
const replay = (name: string, size = 7): SseEvent[] =>
  replaySse(
    createGeminiStreamToAnthropicTranslator(context()),
    splitEvery(encodeDataEvents(geminiFixtures.lines(name), '\r\n'), size),
  );

describe('convertAnthropicRequestToGemini', () => {
  it('maps system, turns, tool uses and tool results through the chat shape', () => {
    const request = anthropicFixtures.json<AnthropicMessagesRequest>('tool-results.request.json');
    const body = convertAnthropicRequestToGemini(request, { model: 'gemini-2.5-flash' });
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'You can call tools to look things up.' }] });
    expect(body.contents[0]).toEqual({
      role: 'user',
      parts: [{ text: 'Compare the weather in Paris and Tokyo, and show me the radar.' }],
    });
    const model = body.contents[1]!;
    expect(model.role).toBe('model');
    expect(model.parts!.map((part) => part.functionCall?.name ?? part.text)).toEqual([
      'Let me check both cities.',
      'get_weather',
      'get_weather',
    ]);
    // Both results answer the previous turn's two calls, in one user turn, names looked up by id.
    const results = body.contents[2]!.parts!.filter((part) => part.functionResponse !== undefined);
    expect(results.map((part) => part.functionResponse!.name)).toEqual(['get_weather', 'get_weather']);
    expect(body.generationConfig?.maxOutputTokens).toBe(4096);
  });

  it('turns tools and tool_choice into function declarations and a calling mode', () => {
    const body = convertAnthropicRequestToGemini(
      {
        model: 'gemini/gemini-2.5-flash',
        max_tokens: 100,
        stop_sequences: ['END'],
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [
          {
            name: 'get_weather',
            description: 'Weather by city',
            input_schema: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
              additionalProperties: false,
            },
          },
        ],
        tool_choice: { type: 'tool', name: 'get_weather' },
      } as AnthropicMessagesRequest,
      { model: 'gemini-2.5-flash' },
    );
    expect(body.tools?.[0]?.functionDeclarations?.[0]?.name).toBe('get_weather');
    expect(JSON.stringify(body.tools)).not.toContain('additionalProperties');
    expect(body.toolConfig).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] },
    });
    expect(body.generationConfig).toMatchObject({ maxOutputTokens: 100, stopSequences: ['END'] });
  });
});

describe('convertGeminiResponseToAnthropic', () => {
  it('answers text with end_turn and Anthropic usage', () => {
    const response = geminiFixtures.json<GeminiGenerateContentResponse>('text.response.json');
    const message = convertGeminiResponseToAnthropic(response, context());
    expect(message.type).toBe('message');
    expect(message.id).toMatch(/^msg_/);
    expect(message.content[0]).toMatchObject({ type: 'text' });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBe(response.usageMetadata!.promptTokenCount);
  });

  it('answers function calls with tool_use blocks and stop_reason tool_use', () => {
    const response = geminiFixtures.json<GeminiGenerateContentResponse>('tool-call.response.json');
    const message = convertGeminiResponseToAnthropic(response, context());
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.filter((block) => block.type === 'tool_use')).toEqual([
      expect.objectContaining({ name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } }),
      expect.objectContaining({ name: 'get_weather', input: { city: 'Tokyo', unit: 'celsius' } }),
    ]);
  });

  it('answers a blocked prompt with stop_reason refusal', () => {
    const response = geminiFixtures.json<GeminiGenerateContentResponse>('blocked-prompt.response.json');
    expect(convertGeminiResponseToAnthropic(response, context()).stop_reason).toBe('refusal');
  });
});

describe('createGeminiStreamToAnthropicTranslator', () => {
  it('streams text as one text block, then message_delta with usage and message_stop', () => {
    for (const size of [1, 7, 4096]) {
      const events = replay('text.chunks.txt', size);
      expect(events.map((event) => event.event)).toEqual([
        'message_start',
        'content_block_start',
        ...events.slice(2, -3).map(() => 'content_block_delta'),
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      const text = bodies(events)
        .filter((body) => body.type === 'content_block_delta')
        .map((body) => (body.delta as { text: string }).text)
        .join('');
      expect(text).toContain('Crème brûlée');
      expect(text).toContain('🍮');
      const delta = bodies(events).find((body) => body.type === 'message_delta')!;
      expect(delta).toMatchObject({
        delta: { stop_reason: 'end_turn' },
        usage: { input_tokens: 10 },
      });
    }
  });

  it('streams a function call as a tool_use block with its arguments as input_json_delta', () => {
    const events = bodies(replay('tool-call.chunks.txt'));
    const start = events.find(
      (body) =>
        body.type === 'content_block_start' &&
        (body.content_block as Record<string, unknown>).type === 'tool_use',
    )!;
    expect(start.content_block).toMatchObject({ name: 'get_weather', input: {} });
    const json = events
      .filter((body) => body.type === 'content_block_delta' && body.index === start.index)
      .map((body) => (body.delta as { partial_json: string }).partial_json)
      .join('');
    expect(JSON.parse(json)).toMatchObject({ city: 'Paris', unit: 'celsius' });
    expect(events.find((body) => body.type === 'message_delta')).toMatchObject({
      delta: { stop_reason: 'tool_use' },
    });
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('maps MAX_TOKENS to stop_reason max_tokens', () => {
    const events = bodies(replay('max-tokens.chunks.txt'));
    expect(events.find((body) => body.type === 'message_delta')).toMatchObject({
      delta: { stop_reason: 'max_tokens' },
    });
  });

  it('turns an in-stream Google error into an Anthropic error event and stops there', () => {
    const events = replay('mid-stream-error.chunks.txt');
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({
      type: 'error',
      error: { message: 'The model is overloaded. Please try again later.' },
    });
    expect(events.some((event) => event.event === 'message_stop')).toBe(false);
  });

  it('reports a stream cut short as an error event', () => {
    const translator = createGeminiStreamToAnthropicTranslator(context());
    const line = geminiFixtures.lines('text.chunks.txt')[0]!;
    const events = [...translator.push({ data: line }), ...translator.end()];
    expect(events[0]!.event).toBe('message_start');
    expect(events.at(-1)!.event).toBe('error');
  });
});

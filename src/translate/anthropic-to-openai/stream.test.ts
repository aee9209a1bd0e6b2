import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../../sse/sse-events.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { encodeDataEvents, fetchServingSse, replaySse, splitEvery } from '../test-support/wire.ts';
import type { AnthropicResponseContext } from './response.ts';
import { createChatStreamToAnthropicTranslator } from './stream.ts';

const fixtures = translatorFixtures('anthropic-to-openai');

/** A `.chunks.txt` fixture (one event's data per line) as the bytes an OpenAI upstream sends. */
const openAiSse = (name: string): Uint8Array => encodeDataEvents(fixtures.lines(name));

/** Feeds the byte chunks through SseEventReader and the translator, as the gateway does. */
const translate = (chunks: Uint8Array[], context: AnthropicResponseContext = {}): SseEvent[] =>
  replaySse(createChatStreamToAnthropicTranslator(context), chunks);

type Json = Record<string, unknown>;

interface Block {
  type: string;
  id?: string;
  name?: string;
  text: string;
  partialJson: string;
  stopped: boolean;
}

/** Replays the events as an Anthropic client would, checking the protocol's ordering rules. */
function collect(events: SseEvent[]) {
  const blocks: Block[] = [];
  let messageStart: Json | undefined;
  let messageDelta: Json | undefined;
  let stopped = false;
  let error: Json | undefined;
  for (const event of events) {
    const body = JSON.parse(event.data) as Json;
    expect(event.event).toBe(body.type);
    expect(stopped).toBe(false); // nothing after message_stop
    switch (body.type) {
      case 'message_start':
        expect(messageStart).toBeUndefined();
        messageStart = body.message as Json;
        break;
      case 'content_block_start': {
        expect(body.index).toBe(blocks.length);
        expect(blocks.every((block) => block.stopped)).toBe(true); // blocks are sequential
        const start = body.content_block as Json;
        blocks.push({
          type: String(start.type),
          ...(start.id === undefined ? {} : { id: String(start.id), name: String(start.name) }),
          text: '',
          partialJson: '',
          stopped: false,
        });
        break;
      }
      case 'content_block_delta': {
        const block = blocks[body.index as number];
        const delta = body.delta as Json;
        expect(block?.stopped).toBe(false);
        if (delta.type === 'text_delta') block!.text += delta.text;
        if (delta.type === 'input_json_delta') block!.partialJson += delta.partial_json;
        break;
      }
      case 'content_block_stop':
        blocks[body.index as number]!.stopped = true;
        break;
      case 'message_delta':
        expect(blocks.every((block) => block.stopped)).toBe(true);
        messageDelta = body;
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'error':
        error = body.error as Json;
        break;
    }
  }
  return { messageStart, blocks, messageDelta, stopped, error };
}

describe('createChatStreamToAnthropicTranslator', () => {
  it('translates a text stream into message_start, one text block, message_delta with usage and message_stop', () => {
    const events = translate([openAiSse('text.chunks.txt')]);
    const pieces = [
      'The',
      ' README',
      ' explains',
      ' how to install,',
      ' configure',
      ' and run',
      ' the gateway',
      ' — café ☕',
      ' and 日本語',
      ' included.',
    ];
    const event = (body: Json & { type: string }) => ({ event: body.type, data: JSON.stringify(body) });
    expect(events).toEqual([
      event({
        type: 'message_start',
        message: {
          id: 'msg_chatcmpl-CJ3kZ8n2QpXyTj6bWvR1mLsd4HfGa',
          type: 'message',
          role: 'assistant',
          model: 'gpt-4o-mini-2024-07-18',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
            output_tokens: 0,
          },
        },
      }),
      event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      ...pieces.map((text) =>
        event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
      ),
      event({ type: 'content_block_stop', index: 0 }),
      event({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        // 2381 prompt tokens of which 2304 cached
        usage: {
          input_tokens: 77,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 2304,
          output_tokens: 17,
        },
      }),
      event({ type: 'message_stop' }),
    ]);
  });

  it('gives the same events whatever byte boundary splits the upstream stream', () => {
    const bytes = openAiSse('text.chunks.txt');
    const expected = translate([bytes]);
    expect(translate(splitEvery(bytes, 1))).toEqual(expected);
    for (let cut = 1; cut < bytes.length; cut++)
      expect(translate([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
  });

  it('opens a tool_use block per tool call and streams its arguments as input_json_delta, exactly', () => {
    const bytes = openAiSse('tool-calls.chunks.txt');
    const expected = translate([bytes]);
    for (let cut = 1; cut < bytes.length; cut++)
      expect(translate([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    const result = collect(translate(splitEvery(bytes, 13)));
    expect(result.blocks).toEqual([
      { type: 'text', text: 'Checking both cities.', partialJson: '', stopped: true },
      {
        type: 'tool_use',
        id: 'call_qF8m2VxN7pLr4Tz1',
        name: 'get_weather',
        text: '',
        partialJson: '{"city": "Paris", "unit": "celsius"}',
        stopped: true,
      },
      {
        type: 'tool_use',
        id: 'call_Hw3Kd9sB6yQe0Jm5',
        name: 'get_weather',
        text: '',
        partialJson: '{"city": "Tōkyō", "unit": "celsius"}',
        stopped: true,
      },
    ]);
    expect(result.messageDelta).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: {
        input_tokens: 96,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 52,
      },
    });
    expect(result.stopped).toBe(true);
  });

  it('keeps every delta before its block stop when an upstream interleaves tool-call fragments', () => {
    const bytes = openAiSse('tool-calls-interleaved.chunks.txt');
    const expected = translate([bytes]);
    for (let cut = 1; cut < bytes.length; cut++)
      expect(translate([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(expected);
    // collect() fails on a delta to a stopped block or a start before the previous stop.
    const result = collect(expected);
    expect(result.blocks).toEqual([
      { type: 'text', text: 'Checking both cities.', partialJson: '', stopped: true },
      {
        type: 'tool_use',
        id: 'chatcmpl-tool-a1',
        name: 'get_weather',
        text: '',
        partialJson: '{"city": "Paris"}',
        stopped: true,
      },
      {
        type: 'tool_use',
        id: 'chatcmpl-tool-b2',
        name: 'get_time',
        text: '',
        partialJson: '{"city": "Tōkyō"}',
        stopped: true,
      },
      { type: 'text', text: ' Done.', partialJson: '', stopped: true },
    ]);
    expect(result.messageDelta?.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
    expect(result.stopped).toBe(true);
  });

  it('streams the first tool call live and holds later blocks until the finish', () => {
    const lines = fixtures.lines('tool-calls-interleaved.chunks.txt');
    const translator = createChatStreamToAnthropicTranslator();
    const perLine = lines.map((line) => translator.push({ data: line }).map((event) => event.event));
    expect(perLine[4]).toEqual(['content_block_delta']); // call 0's fragment, live
    expect(perLine[5]).toEqual([]); // call 1's fragment, held
    expect(perLine[7]).toEqual([]); // text after the tool calls, held
  });

  it('is read correctly by the official Anthropic client when tool-call fragments interleave', async () => {
    const events = translate([openAiSse('tool-calls-interleaved.chunks.txt')]);
    const client = new Anthropic({
      apiKey: 'test',
      baseURL: 'http://gateway.test',
      fetch: fetchServingSse(events),
    });
    const message = await client.messages
      .stream({ model: 'vllm/qwen', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(message.content.filter((block) => block.type === 'tool_use')).toEqual([
      expect.objectContaining({ id: 'chatcmpl-tool-a1', name: 'get_weather', input: { city: 'Paris' } }),
      expect.objectContaining({ id: 'chatcmpl-tool-b2', name: 'get_time', input: { city: 'Tōkyō' } }),
    ]);
  });

  it('finishes at [DONE] when the upstream sends no usage chunk', () => {
    const result = collect(translate(splitEvery(openAiSse('length-no-usage.chunks.txt'), 5)));
    expect(result.blocks.map((block) => block.text)).toEqual(['The first image shows a small ant on a']);
    expect(result.messageDelta?.delta).toEqual({ stop_reason: 'max_tokens', stop_sequence: null });
    expect(result.messageDelta?.usage).toMatchObject({ output_tokens: 0 });
    expect(result.stopped).toBe(true);
  });

  it('streams a refusal as text with stop_reason refusal', () => {
    const result = collect(translate(splitEvery(openAiSse('refusal.chunks.txt'), 9)));
    expect(result.blocks.map((block) => block.text)).toEqual(["I'm sorry, I can't help with that request."]);
    expect(result.messageDelta?.delta).toEqual({ stop_reason: 'refusal', stop_sequence: null });
  });

  it('surfaces an error chunk as an error event and sends nothing after it', () => {
    const events = translate(splitEvery(openAiSse('mid-stream-error.chunks.txt'), 4));
    const result = collect(events);
    expect(result.blocks.map((block) => block.text)).toEqual(['Here is the start of a long answer']);
    expect(result.stopped).toBe(false);
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: '{"type":"error","error":{"type":"api_error","message":"The server had an error while processing your request. Sorry about that!"}}',
    });
  });

  it('ends the message as soon as the usage chunk arrives, without waiting for [DONE]', () => {
    const lines = fixtures.lines('tool-calls.chunks.txt');
    const translator = createChatStreamToAnthropicTranslator();
    for (const line of lines.slice(0, -2)) translator.push({ data: line });
    const atUsage = translator.push({ data: lines.at(-2)! });
    // The first tool call's block closes; the second call, held whole, follows.
    expect(atUsage.map((event) => event.event)).toEqual([
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(translator.push({ data: '[DONE]' })).toEqual([]);
    expect(translator.end()).toEqual([]);
  });

  it('reports a stream cut short before its finish as an error, and completes one that only lost [DONE]', () => {
    const lines = fixtures.lines('tool-calls.chunks.txt');
    const run = (count: number) => {
      const translator = createChatStreamToAnthropicTranslator({ messageId: 'msg_01Cut' });
      const events = lines.slice(0, count).flatMap((line) => translator.push({ data: line }));
      return collect([...events, ...translator.end()]);
    };
    const cut = run(6);
    expect(cut.error).toEqual({
      type: 'api_error',
      message: 'the upstream stream ended before the message was complete',
    });
    expect(cut.messageStart?.id).toBe('msg_01Cut');
    const noDone = run(lines.length - 2); // finish chunk seen, usage chunk and [DONE] lost
    expect(noDone.messageDelta?.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
    expect(noDone.stopped).toBe(true);
  });

  it('is read correctly by the official Anthropic client, tool inputs included', async () => {
    const events = translate([openAiSse('tool-calls.chunks.txt')], { model: 'openai/gpt-4.1' });
    const client = new Anthropic({
      apiKey: 'test',
      baseURL: 'http://gateway.test',
      fetch: fetchServingSse(events),
    });
    const message = await client.messages
      .stream({ model: 'openai/gpt-4.1', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(message.model).toBe('openai/gpt-4.1');
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Checking both cities.' }),
      expect.objectContaining({
        type: 'tool_use',
        id: 'call_qF8m2VxN7pLr4Tz1',
        input: { city: 'Paris', unit: 'celsius' },
      }),
      expect.objectContaining({
        type: 'tool_use',
        id: 'call_Hw3Kd9sB6yQe0Jm5',
        input: { city: 'Tōkyō', unit: 'celsius' },
      }),
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 96, output_tokens: 52 });
  });

  it('makes the official Anthropic client throw on the error event', async () => {
    const events = translate([openAiSse('mid-stream-error.chunks.txt')]);
    const client = new Anthropic({
      apiKey: 'test',
      baseURL: 'http://gateway.test',
      maxRetries: 0,
      fetch: fetchServingSse(events),
    });
    const stream = client.messages.stream({
      model: 'openai/gpt-4.1',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(stream.finalMessage()).rejects.toThrow('The server had an error');
  });
});

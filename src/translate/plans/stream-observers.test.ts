import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createAnthropicStreamObserver,
  createOpenAiStreamObserver,
  deltaCharsOf,
  scanOpenAiChunk,
} from './stream-observers.ts';

/** The output characters one scan finds in an OpenAI chunk's text. */
const outputCharsOf = (data: string) => scanOpenAiChunk(data, { chars: 0, usage: false }).chars;

/** What a full parse counts: each choice's delta content and its tool calls' arguments. */
function parsedChars(data: string): number {
  const chunk = JSON.parse(data) as {
    choices?: { delta?: { content?: unknown; tool_calls?: { function?: { arguments?: unknown } }[] } }[];
  };
  let chars = 0;
  for (const choice of chunk.choices ?? []) {
    if (typeof choice.delta?.content === 'string') chars += choice.delta.content.length;
    for (const call of choice.delta?.tool_calls ?? [])
      if (typeof call.function?.arguments === 'string') chars += call.function.arguments.length;
  }
  return chars;
}

const chunk = (delta: unknown, usage: unknown = null) =>
  JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta }], usage });

describe('outputCharsOf', () => {
  it('counts what a parse counts, escapes as one character each', () => {
    const samples = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello' }),
      chunk({ content: 'a "quoted" word,\na tab\there, a backslash \\ and é, 日本, 😀' }),
      chunk({ content: '\u0001\u001f control characters' }),
      chunk({ content: 'mentions "content":"x" and "usage":{} inside the text' }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{"city": "Paris"}' } }] }),
      chunk({ content: null }),
      chunk({}),
      JSON.stringify({ choices: [{ delta: { content: 'two' } }, { delta: { content: 'choices' } }] }),
    ];
    for (const data of samples) expect(outputCharsOf(data), data).toBe(parsedChars(data));
  });

  it('reads keys written with spaces, as some servers write JSON', () => {
    expect(outputCharsOf('{"choices": [{"delta": {"content" : "four"}}]}')).toBe(4);
    expect(outputCharsOf('{"choices":[{"delta":{"content"\n:\t"tabs"}}]}')).toBe(4);
  });

  it('counts what a parse counts for any content and arguments, keys and escapes inside them included', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('"content":"', '\\"arguments\\":\\"', '\\', '"', '\\u0041'),
      fc
        .array(fc.constantFrom('a', '"', '\\', 'content', ':', '\n', '\u00e9', '\ud83d'), { maxLength: 30 })
        .map((parts) => parts.join('')),
    );
    const delta = fc.record(
      {
        role: fc.constant('assistant'),
        content: fc.oneof(text, fc.constant(null)),
        tool_calls: fc.array(
          fc.record({ index: fc.nat(3), function: fc.record({ name: text, arguments: text }) }),
          {
            maxLength: 2,
          },
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(delta, { maxLength: 3 }),
        fc.oneof(fc.constant(null), fc.record({ prompt_tokens: fc.nat(), completion_tokens: fc.nat() })),
        fc.constantFrom(undefined, 1, '\t'),
        (deltas, usage, space) => {
          const data = JSON.stringify(
            { id: 'c', choices: deltas.map((d, index) => ({ index, delta: d })), usage },
            null,
            space,
          );
          expect(outputCharsOf(data)).toBe(parsedChars(data));
          // One scan says both: the output, and whether the chunk carries usage worth a parse.
          expect(scanOpenAiChunk(data, { chars: -1, usage: true })).toEqual({
            chars: parsedChars(data),
            usage: usage !== null,
          });
        },
      ),
      { seed: 20261126, numRuns: 2000 },
    );
  });
});

describe('createOpenAiStreamObserver', () => {
  it('reads usage from the chunk that carries it, however spaced, and counts the output', () => {
    const observer = createOpenAiStreamObserver(true);
    expect(observer.accept({ data: chunk({ content: 'Hi' }) })).toBe(true);
    expect(observer.accept({ data: chunk({ content: ' there' }) })).toBe(true);
    expect(observer.usage()).toBeUndefined();
    const last = '{"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9}}';
    expect(observer.accept({ data: last })).toBe(true);
    expect(observer.accept({ data: '[DONE]' })).toBe(true);
    expect(observer.usage()).toMatchObject({ inputTokens: 7, outputTokens: 2 });
    expect(observer.outputChars()).toBe(8);
    expect(observer.completed()).toBe(true);
  });

  it('drops the usage-only chunk the gateway asked for when the client did not', () => {
    const observer = createOpenAiStreamObserver(false);
    expect(observer.accept({ data: chunk({ content: 'Hi' }) })).toBe(true);
    const usageOnly = JSON.stringify({
      choices: [],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
    expect(observer.accept({ data: usageOnly })).toBe(false);
    expect(observer.usage()).toMatchObject({ inputTokens: 3, outputTokens: 1 });
    // Usage on a chunk that also has content is kept: the client sees its content.
    const both = chunk({ content: 'x' }, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    expect(observer.accept({ data: both })).toBe(true);
    expect(observer.usage()).toMatchObject({ outputTokens: 2 });
  });

  it('is not taken in by the word usage in the generated text', () => {
    const observer = createOpenAiStreamObserver(false);
    expect(observer.accept({ data: chunk({ content: 'the "usage": {"prompt_tokens": 1} field' }) })).toBe(
      true,
    );
    expect(observer.usage()).toBeUndefined();
  });
});

describe('deltaCharsOf', () => {
  it("counts what a parse counts of an Anthropic delta's text or partial JSON, and nothing of other deltas", () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('"text":"', '\\"partial_json\\":\\"', '\\', '"', '\\u0041'),
    );
    const delta = fc.oneof(
      text.map((value) => ({ type: 'text_delta', text: value })),
      text.map((value) => ({ type: 'input_json_delta', partial_json: value })),
      text.map((value) => ({ type: 'thinking_delta', thinking: value })),
      text.map((value) => ({ type: 'signature_delta', signature: value })),
      text.map((value) => ({
        type: 'citations_delta',
        citation: { type: 'char_location', cited_text: value, document_title: 'text' },
      })),
    );
    /** What the observer counted when it parsed each event. */
    const parsed = (data: string) => {
      const value = (JSON.parse(data) as { delta: { text?: unknown; partial_json?: unknown } }).delta;
      return (
        (typeof value.text === 'string' ? value.text.length : 0) +
        (typeof value.partial_json === 'string' ? value.partial_json.length : 0)
      );
    };
    fc.assert(
      fc.property(delta, fc.nat(5), fc.constantFrom(undefined, 1, '\t'), (d, index, space) => {
        const data = JSON.stringify({ type: 'content_block_delta', index, delta: d }, null, space);
        expect(deltaCharsOf(data, { chars: 0, usage: false })).toBe(parsed(data));
      }),
      { seed: 20261126, numRuns: 2000 },
    );
  });

  it('is what the Anthropic observer counts, with usage from message_start and message_delta', () => {
    const observer = createAnthropicStreamObserver();
    const events = [
      {
        event: 'message_start',
        data: '{"type":"message_start","message":{"usage":{"input_tokens":9,"output_tokens":1}}}',
      },
      {
        event: 'content_block_start',
        data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      },
      {
        event: 'content_block_delta',
        data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hé \\"x\\""}}',
      },
      {
        event: 'content_block_delta',
        data: '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":"}}',
      },
      {
        event: 'message_delta',
        data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}',
      },
      { event: 'message_stop', data: '{"type":"message_stop"}' },
    ];
    for (const event of events) expect(observer.accept(event)).toBe(true);
    expect(observer.outputChars()).toBe(6 + 5);
    expect(observer.usage()).toMatchObject({ inputTokens: 9, outputTokens: 7 });
    expect(observer.completed()).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { createToolBlockRouter, renderDeltaChunk, renderUsageChunk } from './chat-chunks.ts';

const header = { id: 'chatcmpl-1', created: 1_761_000_000, model: 'm', includeUsage: true };

describe('renderDeltaChunk and renderUsageChunk', () => {
  it('write usage null on delta chunks when usage was asked for, and the usage on its own chunk', () => {
    expect(JSON.parse(renderDeltaChunk(header, { content: 'hi' }).data)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1_761_000_000,
      model: 'm',
      choices: [{ index: 0, delta: { content: 'hi' }, logprobs: null, finish_reason: null }],
      usage: null,
    });
    expect(
      JSON.parse(renderDeltaChunk({ ...header, includeUsage: false }, {}, 'stop', 1).data),
    ).not.toHaveProperty('usage');
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
    expect(JSON.parse(renderUsageChunk(header, usage).data)).toMatchObject({ choices: [], usage });
  });
});

describe('createToolBlockRouter', () => {
  it('numbers tool calls apart from block indexes and routes argument pieces to their call', () => {
    const router = createToolBlockRouter(undefined);
    router.startText(0);
    expect(router.startToolUse(1, { id: 't1', name: 'get', initialArguments: '' })).toEqual({
      tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'get', arguments: '' } }],
    });
    router.startToolUse(3, { id: 't2', name: 'get', initialArguments: '{}' });
    expect(router.forwardArguments(1, '{"a"')).toEqual({
      tool_calls: [{ index: 0, function: { arguments: '{"a"' } }],
    });
    expect(router.forwardArguments(3, '')).toBeUndefined();
    expect(router.forwardArguments(0, 'x')).toBeUndefined();
    expect(router.answeredWithJsonTool()).toBe(false);
  });

  it("streams the JSON tool's input as content", () => {
    const router = createToolBlockRouter('json');
    expect(router.startToolUse(0, { id: 't', name: 'json', initialArguments: '' })).toBeUndefined();
    expect(router.forwardArguments(0, '{"a":1}')).toEqual({ content: '{"a":1}' });
    expect(router.answeredWithJsonTool()).toBe(true);
  });
});

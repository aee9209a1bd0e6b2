import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { ChatMessage } from '../../shapes/openai.ts';
import { chatTextPieces, convertChatMessagesToTurns, type TurnBlockWriter } from './chat-messages.ts';

type TestBlock = { text: string } | { call: string; input: unknown } | { result: string };

/** A writer with plain blocks, so the assertions read the shared rules and nothing else. */
const writer: TurnBlockWriter<TestBlock, { text: string }> = {
  keepsText: (text) => text !== '',
  text: (text) => ({ text }),
  isText: (block): block is { text: string } => 'text' in block,
  userPart: (part) => (part.type === 'text' && part.text !== '' ? [{ text: part.text }] : []),
  toolUse: (id, _name, input) => ({ call: id, input }),
  toolResult: (message) => ({ result: message.tool_call_id }),
  isToolResult: (block) => 'result' in block,
};

const convert = (messages: unknown) => convertChatMessagesToTurns(messages, writer);

describe('convertChatMessagesToTurns', () => {
  it('hoists system and developer text, in order, and merges adjacent turns of one role', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'one' },
      { role: 'user', content: 'hello' },
      { role: 'developer', content: [{ type: 'text', text: 'two' }] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ];
    expect(convert(messages)).toEqual({
      system: [{ text: 'one' }, { text: 'two' }],
      turns: [{ role: 'user', content: [{ text: 'hello' }, { text: 'again' }] }],
    });
  });

  it('puts tool results first in their user turn and parses tool-call arguments', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }],
      },
      { role: 'user', content: 'and quickly' },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ];
    expect(convert(messages).turns).toEqual([
      { role: 'user', content: [{ text: 'weather?' }] },
      { role: 'assistant', content: [{ call: 'c1', input: { a: 1 } }] },
      { role: 'user', content: [{ result: 'c1' }, { text: 'and quickly' }] },
    ]);
  });

  it('opens with a stand-in user turn and trims a trailing prefill, dropping it when blank', () => {
    expect(convert([{ role: 'assistant', content: 'Sure: ' }]).turns).toEqual([
      { role: 'user', content: [{ text: '.' }] },
      { role: 'assistant', content: [{ text: 'Sure:' }] },
    ]);
    expect(
      convert([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '  ' },
      ]).turns,
    ).toEqual([{ role: 'user', content: [{ text: 'hi' }] }]);
  });

  it('uses the refusal of an assistant message without content', () => {
    expect(convert([{ role: 'assistant', content: null, refusal: 'No.' }]).turns.at(-1)).toEqual({
      role: 'assistant',
      content: [{ text: 'No.' }],
    });
  });

  it.each([
    ['messages that are not an array', {}],
    ['no user or assistant message', [{ role: 'system', content: 'only' }]],
    ['a tool message without tool_call_id', [{ role: 'tool', content: 'x' }]],
    ['an unknown role', [{ role: 'critic', content: 'x' }]],
    ['user content that is neither string nor array', [{ role: 'user', content: 42 }]],
    [
      'a tool call that is not a function',
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'custom' }] }],
    ],
  ])('refuses %s', (_label, messages) => {
    expect(() => convert(messages)).toThrow(InvalidRequestError);
  });
});

describe('chatTextPieces', () => {
  it('reads strings, text parts and refusal parts, and nothing from other values', () => {
    expect(chatTextPieces('plain')).toEqual(['plain']);
    expect(
      chatTextPieces([
        { type: 'text', text: 'a' },
        { type: 'refusal', refusal: 'b' },
      ]),
    ).toEqual(['a', 'b']);
    expect(chatTextPieces(null)).toEqual([]);
  });
});

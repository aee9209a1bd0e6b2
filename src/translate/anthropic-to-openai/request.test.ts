import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { AnthropicMessagesRequest } from '../../shapes/anthropic.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { convertAnthropicRequestToChat } from './request.ts';

const fixture = (name: string): AnthropicMessagesRequest =>
  translatorFixtures('anthropic-to-openai').json(name);

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('convertAnthropicRequestToChat', () => {
  it('turns system blocks into a system message and asks a streamed upstream for usage', () => {
    expect(convertAnthropicRequestToChat(fixture('text.request.json'))).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        {
          role: 'system',
          content:
            "You are Claude Code, Anthropic's official CLI for Claude.\n\nWorking directory: /home/dev/project",
        },
        { role: 'user', content: 'Summarise the README in one sentence.' },
      ],
      max_tokens: 1024,
      temperature: 0.2,
      top_p: 0.95,
      stop: ['</answer>'],
      user: 'user_2f1c9e0a7b',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('maps tools to functions, tool_choice any to required and disable_parallel_tool_use', () => {
    const body = convertAnthropicRequestToChat(fixture('tools.request.json'));
    expect(body.messages).toEqual([{ role: 'user', content: "What's the weather in Paris and in Tokyo?" }]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Get the current weather for a city.',
          parameters: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
            },
            required: ['city'],
          },
        },
      },
      { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
    ]);
    expect(body.tool_choice).toBe('required');
    expect(body.parallel_tool_calls).toBe(false);
    expect(body.max_tokens).toBe(2048);
  });

  it('turns tool_use into tool_calls and tool_result blocks into tool messages ahead of the user text', () => {
    const body = convertAnthropicRequestToChat(fixture('tool-results.request.json'));
    expect(body.messages).toEqual([
      { role: 'system', content: 'You can call tools to look things up.' },
      { role: 'user', content: 'Compare the weather in Paris and Tokyo, and show me the radar.' },
      {
        role: 'assistant',
        content: 'Let me check both cities.',
        tool_calls: [
          {
            id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'toolu_01Q8aGXtK6c2jFdNn8yWz7Lr',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        content: '{"temp":18,"sky":"overcast"}',
      },
      {
        role: 'tool',
        tool_call_id: 'toolu_01Q8aGXtK6c2jFdNn8yWz7Lr',
        content: '[tool error] upstream weather service timed out\nretry later',
      },
      { role: 'user', content: 'Try Tokyo again, please.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'toolu_01Rd5mWq8Lx2',
            type: 'function',
            function: { name: 'get_radar', arguments: '{"city":"Tokyo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01Rd5mWq8Lx2', content: 'Radar image attached.' },
      // Tool messages carry text only: the result's image follows as user content.
      { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] },
    ]);
    expect(body.tool_choice).toBe('auto');
    expect(body.parallel_tool_calls).toBeUndefined();
  });

  it('converts image and PDF document blocks into image_url and file parts', () => {
    const body = convertAnthropicRequestToChat(fixture('images.request.json'));
    const content = body.messages[0]?.content as unknown as Array<Record<string, unknown>>;
    expect(content.map((part) => part.type)).toEqual(['image_url', 'image_url', 'file', 'text']);
    expect(content[0]).toMatchObject({
      image_url: { url: expect.stringMatching(/^data:image\/jpeg;base64,\/9j\//) },
    });
    expect(content[1]).toEqual({
      type: 'image_url',
      image_url: {
        url: 'https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg',
      },
    });
    expect(content[2]).toMatchObject({
      type: 'file',
      file: { filename: 'menu.pdf', file_data: expect.stringMatching(/^data:application\/pdf;base64,JVBER/) },
    });
  });

  it('turns output_config.format into a json_schema response format, and can put the cap in max_completion_tokens', () => {
    const request = fixture('json-output.request.json');
    const body = convertAnthropicRequestToChat(request, { maxTokensField: 'max_completion_tokens' });
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema: request.output_config?.format?.schema },
    });
    expect(body.max_completion_tokens).toBe(400);
    expect(body.max_tokens).toBeUndefined();
    expect(body.messages.at(-1)).toEqual({ role: 'assistant', content: '{' });
    expect(body.stream).toBeUndefined();
  });

  it('keeps a system turn inside messages in place', () => {
    const body = convertAnthropicRequestToChat({
      model: 'gpt-4.1',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Be brief.' },
    ]);
  });

  it('refuses server tools and blocks with no chat-completions equivalent', () => {
    const base: AnthropicMessagesRequest = {
      model: 'gpt-4.1',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }],
    };
    const cases: AnthropicMessagesRequest[] = [
      { ...base, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] },
      {
        ...base,
        messages: [
          {
            role: 'user',
            content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }],
          },
        ],
      },
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'search_result' } as unknown as { type: 'text'; text: string }] },
        ],
      },
    ];
    for (const request of cases)
      expect(() => convertAnthropicRequestToChat(request)).toThrow(InvalidRequestError);
  });
});

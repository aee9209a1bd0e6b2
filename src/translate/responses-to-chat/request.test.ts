import { describe, expect, it } from 'vitest';
import type { ResponsesRequest } from '../../shapes/responses.ts';
import { translatorFixtures } from '../test-support/fixtures.ts';
import { convertResponsesRequestToChat } from './request.ts';
import { checkResponsesRequestFields } from './request-fields.ts';

const fixtures = translatorFixtures('responses-to-chat');
const request = (name: string) => fixtures.json<ResponsesRequest>(name);
const convert = (body: ResponsesRequest, history?: unknown[]) =>
  convertResponsesRequestToChat(body, {
    model: 'upstream-model',
    provider: 'anthropic',
    ...(history === undefined ? {} : { history }),
  });

describe('convertResponsesRequestToChat', () => {
  it('maps instructions, developer and user messages with image parts, and the sampling fields', () => {
    expect(convert(request('text.request.json'))).toEqual({
      model: 'upstream-model',
      messages: [
        { role: 'system', content: 'You are a concise assistant. Answer in one sentence.' },
        { role: 'system', content: 'Prefer metric units.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What does this diagram show?' },
            {
              type: 'image_url',
              image_url: {
                url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
                detail: 'high',
              },
            },
          ],
        },
      ],
      temperature: 0.4,
      top_p: 0.9,
      max_tokens: 512,
      user: 'user-7f3a',
      reasoning_effort: 'low',
    });
  });

  it('puts the token cap where the provider takes it', () => {
    const chat = convertResponsesRequestToChat(request('text.request.json'), {
      model: 'gpt-4.1',
      provider: 'openai',
      maxTokensField: 'max_completion_tokens',
    });
    expect(chat.max_completion_tokens).toBe(512);
    expect(chat.max_tokens).toBeUndefined();
  });

  it('wraps function tools, merges consecutive calls into one assistant turn and drops reasoning', () => {
    const chat = convert(request('tools.request.json'));
    expect(chat.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather of a city',
          parameters: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
            },
            required: ['city', 'unit'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
      {
        type: 'function',
        function: {
          name: 'get_time',
          description: 'Local time of a city',
          parameters: { type: 'object', properties: {} },
        },
      },
    ]);
    expect(chat.tool_choice).toBe('auto');
    expect(chat.parallel_tool_calls).toBe(true);
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [{ type: 'text', text: 'Weather in Paris and Tokyo, and the time in Tokyo?' }],
      },
      {
        role: 'assistant',
        content: 'Checking both cities.',
        tool_calls: [
          {
            id: 'call_qF8m2VxN7pLr4Tz1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
          },
          {
            id: 'call_Hw3Kd9sB6yQe0Jm5',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Tokyo","unit":"celsius"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_qF8m2VxN7pLr4Tz1', content: '{"temperature":18,"sky":"cloudy"}' },
      {
        role: 'tool',
        tool_call_id: 'call_Hw3Kd9sB6yQe0Jm5',
        content: [
          { type: 'text', text: '{"temperature":24,' },
          { type: 'text', text: '"sky":"clear"}' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_T1me0kYo',
            type: 'function',
            function: { name: 'get_time', arguments: '{"city":"Tokyo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_T1me0kYo', content: '21:04' },
    ]);
  });

  it('maps text.format json_schema to response_format, a string input to a user message, and asks for stream usage', () => {
    const chat = convert(request('json-schema.request.json'));
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Extract the event: Alice and Bob meet for lunch on Friday at noon.' },
    ]);
    expect(chat.response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: 'calendar_event',
        schema: fixtures.json<{ text: { format: { schema: unknown } } }>('json-schema.request.json').text
          .format.schema,
        strict: true,
        description: 'An event on a calendar',
      },
    });
    expect(chat.stream).toBe(true);
    expect(chat.stream_options).toEqual({ include_usage: true });
    expect(
      convert({ model: 'm', input: 'x', text: { format: { type: 'json_object' } } }).response_format,
    ).toEqual({
      type: 'json_object',
    });
  });

  it('puts the stored conversation before the input, and this request’s instructions before both', () => {
    const history = [
      {
        id: 'msg_a',
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'My name is Ada.' }],
      },
      {
        id: 'msg_b',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hello Ada.', annotations: [] }],
      },
    ];
    const chat = convert({ model: 'm', instructions: 'Be warm.', input: 'What is my name?' }, history);
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Be warm.' },
      { role: 'user', content: [{ type: 'text', text: 'My name is Ada.' }] },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('continues a tool turn from the stored conversation when the input is only the outputs', () => {
    const history = [
      { type: 'message', role: 'user', content: 'Weather in Paris?' },
      {
        type: 'function_call',
        id: 'fc_1',
        call_id: 'call_1',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      },
    ];
    const chat = convert(
      { model: 'm', input: [{ type: 'function_call_output', call_id: 'call_1', output: '18C' }] },
      history,
    );
    expect(chat.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18C' },
    ]);
  });

  it('keeps a replayed refusal as the refusal', () => {
    const chat = convert({
      model: 'm',
      input: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot.' }] },
        { role: 'user', content: 'y' },
      ],
    });
    expect(chat.messages[1]).toEqual({ role: 'assistant', content: null, refusal: 'I cannot.' });
  });

  it('refuses hosted tools with a 400 naming the tool and the provider', () => {
    expect(() => convert(request('hosted-tools.request.json'))).toThrow(
      expect.objectContaining({
        statusCode: 400,
        message: expect.stringMatching(
          /provider 'anthropic' does not serve the hosted tool 'web_search'.*OpenAI runs it/,
        ),
      }),
    );
    expect(() => convert({ model: 'm', input: 'x', tool_choice: { type: 'file_search' } })).toThrow(
      /file_search/,
    );
    expect(() => convert({ model: 'm', input: [{ type: 'web_search_call', id: 'ws_1' }] as never })).toThrow(
      /input items of type 'web_search_call'/,
    );
  });

  it('narrows the tools to those allowed_tools lists', () => {
    const chat = convert({
      model: 'm',
      input: 'x',
      tools: [
        { type: 'function', name: 'a' },
        { type: 'function', name: 'b' },
      ],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'b' }] },
    });
    expect(chat.tools?.map((tool) => tool.function.name)).toEqual(['b']);
    expect(chat.tool_choice).toBe('required');
    expect(
      convert({
        model: 'm',
        input: 'x',
        tools: [{ type: 'function', name: 'a' }],
        tool_choice: { type: 'function', name: 'a' },
      }).tool_choice,
    ).toEqual({ type: 'function', function: { name: 'a' } });
  });

  it('refuses what only OpenAI keeps or runs: background, conversations, stored prompts, file ids and urls', () => {
    expect(() => convert({ model: 'm', input: 'x', background: true })).toThrow(/background responses/);
    expect(() => convert({ model: 'm', input: 'x', conversation: 'conv_1' })).toThrow(/conversations/);
    expect(() => convert({ model: 'm', prompt: { id: 'pmpt_1' } })).toThrow(/stored prompts/);
    expect(() =>
      convert({
        model: 'm',
        input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1', detail: 'auto' }] }],
      }),
    ).toThrow(/images named by file_id/);
    expect(() =>
      convert({
        model: 'm',
        input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://x/y.pdf' }] }],
      }),
    ).toThrow(/file_url/);
  });

  it('refuses an item_reference left unresolved, and an input with no message', () => {
    expect(() => convert({ model: 'm', input: [{ type: 'item_reference', id: 'msg_gone' }] })).toThrow(
      /item_reference 'msg_gone' names no stored item/,
    );
    expect(() => convert({ model: 'm', instructions: 'x', input: [] })).toThrow(/at least one message/);
  });
});

describe('checkResponsesRequestFields', () => {
  it('accepts the fixtures', () => {
    for (const name of ['text', 'tools', 'json-schema', 'hosted-tools'])
      expect(() => checkResponsesRequestFields(fixtures.json(`${name}.request.json`))).not.toThrow();
  });

  it.each([
    [{ temperature: 'hot' }, "'temperature' must be a number"],
    [{ max_output_tokens: 10.5 }, "'max_output_tokens' must be an integer"],
    [{ input: 42 }, "'input' must be a string or an array"],
    [{ input: [{ role: 'robot', content: 'x' }] }, "'input[0].role' must be one of"],
    [
      { input: [{ type: 'function_call', call_id: 'c', name: 'f' }] },
      "'input[0].arguments' must be a string",
    ],
    [
      { input: [{ type: 'function_call_output', call_id: 'c' }] },
      "'input[0].output' must be a string or an array",
    ],
    [{ tools: [{ type: 'function' }] }, "'tools[0].name' must be a string"],
    [
      { tools: [{ type: 'function', name: 'f', parameters: 'x' }] },
      "'tools[0].parameters' must be an object",
    ],
    [{ tool_choice: 'sometimes' }, "'tool_choice' must be"],
    [{ text: { format: { type: 'xml' } } }, "'text.format.type' must be one of"],
    [{ text: { format: { type: 'json_schema', name: 'n' } } }, "'text.format.schema' must be an object"],
    [{ store: 'yes' }, "'store' must be a boolean"],
  ])('refuses %j', (fields, message) => {
    expect(() => checkResponsesRequestFields({ model: 'm', ...fields })).toThrow(message);
  });

  it('takes null for an absent field, as OpenAI does', () => {
    expect(() =>
      checkResponsesRequestFields({ model: 'm', input: 'x', temperature: null, tools: null, text: null }),
    ).not.toThrow();
  });
});

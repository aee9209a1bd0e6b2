import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest } from '../../shapes/openai.ts';
import { translatorFixtures, WEATHER_SCHEMA } from '../test-support/fixtures.ts';
import { convertChatRequestToAnthropic, defaultMaxTokensFor } from './request.ts';

const fixture = (name: string): ChatCompletionRequest => translatorFixtures('openai-to-anthropic').json(name);

describe('convertChatRequestToAnthropic', () => {
  it('moves system and developer messages to top-level system, clamps temperature and drops what Anthropic lacks', () => {
    const plan = convertChatRequestToAnthropic(fixture('text.request.json'));
    expect(plan.body).toEqual({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 8192,
      system: [
        { type: 'text', text: 'You are a concise assistant for a travel agency.' },
        { type: 'text', text: 'Answer in French.' },
        { type: 'text', text: 'Never mention prices.' },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Suggest one dessert to try in Lyon.' }] }],
      stop_sequences: ['\n\nHuman:'],
      temperature: 1,
      top_p: 0.9,
      metadata: { user_id: 'user-7f3a9c' },
      stream: true,
    });
    expect(plan.context).toEqual({ includeUsage: true });
  });

  it('maps tools to input_schema, a named tool_choice to type tool, and parallel_tool_calls:false', () => {
    const { body, context } = convertChatRequestToAnthropic(fixture('tools.request.json'));
    expect(body.max_tokens).toBe(1024); // max_completion_tokens wins over max_tokens
    expect(body.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Get the current weather for a city.',
        input_schema: WEATHER_SCHEMA,
        strict: true,
      },
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'get_weather', disable_parallel_tool_use: true });
    expect(context).toEqual({ includeUsage: false });
  });

  it('turns tool calls into tool_use blocks and tool messages into tool_result blocks of the next user turn', () => {
    const { body } = convertChatRequestToAnthropic(fixture('tool-results.request.json'));
    expect(body.system).toEqual([
      { type: 'text', text: 'You can call tools to look things up.' },
      { type: 'text', text: 'Keep the comparison to two sentences.' },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Compare the weather in Paris and Tokyo.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me check both cities.' },
          {
            type: 'tool_use',
            id: 'call_9pXq2LmN4vB7',
            name: 'get_weather',
            input: { city: 'Paris', unit: 'celsius' },
          },
          // Invalid JSON arguments become {}; the foreign id is sanitised the same way in its result.
          { type: 'tool_use', id: 'functions_get_weather_1', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_9pXq2LmN4vB7', content: '{"temp":18,"sky":"overcast"}' },
          {
            type: 'tool_result',
            tool_use_id: 'functions_get_weather_1',
            content: [{ type: 'text', text: 'error: missing closing brace in arguments' }],
          },
          { type: 'text', text: 'Retry Tokyo please.' },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_Tk2', name: 'get_weather', input: { city: 'Tokyo' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_Tk2', content: '{"temp":24,"sky":"clear"}' }],
      },
      // A trailing assistant turn is a prefill: trailing whitespace is refused by Anthropic.
      { role: 'assistant', content: [{ type: 'text', text: 'Paris is 18°C and overcast,' }] },
    ]);
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.max_tokens).toBe(8192);
  });

  it('converts image data URLs to base64 sources, http URLs to url sources, and PDF files to documents', () => {
    const { body } = convertChatRequestToAnthropic(fixture('images.request.json'));
    const content = body.messages[0]?.content as unknown as Array<Record<string, unknown>>;
    expect(content.map((block) => block.type)).toEqual(['text', 'image', 'image', 'image', 'document']);
    expect(content[1]).toEqual({
      type: 'image',
      source: {
        type: 'base64',
        media_type: 'image/png',
        data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      },
    });
    expect(content[2]).toEqual({
      type: 'image',
      source: {
        type: 'url',
        url: 'https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg',
      },
    });
    expect(content[3]).toMatchObject({ source: { type: 'base64', media_type: 'image/jpeg' } });
    expect(content[4]).toMatchObject({
      type: 'document',
      title: 'menu.pdf',
      source: { type: 'base64', media_type: 'application/pdf' },
    });
    expect(body.max_tokens).toBe(300);
  });

  it('answers json_schema with a forced JSON tool and tells the response translators its name', () => {
    const request = fixture('json-schema.request.json');
    const { body, context } = convertChatRequestToAnthropic(request);
    expect(body.tools).toEqual([
      {
        name: 'json',
        description: 'A calendar event extracted from the text.',
        input_schema: (request.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'json' });
    expect(context.jsonToolName).toBe('json');
  });

  it('uses output_config.format for json_schema on models with native structured output', () => {
    const request = fixture('json-schema.request.json');
    const { body, context } = convertChatRequestToAnthropic(request, { nativeStructuredOutput: true });
    expect(body.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: (request.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
      },
    });
    expect(body.tools).toBeUndefined();
    expect(context.jsonToolName).toBeUndefined();
  });

  it('adds a permissive JSON tool for json_object beside client tools, renamed around a clash, and requires a tool call', () => {
    const { body, context } = convertChatRequestToAnthropic(fixture('json-object.request.json'));
    expect(body.tools?.map((tool) => tool.name)).toEqual(['json', 'json_2']);
    expect(body.tools?.[1]).toMatchObject({ input_schema: { type: 'object', additionalProperties: true } });
    expect(body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    expect(context.jsonToolName).toBe('json_2');
  });

  it('maps the remaining tool_choice values and omits tool_choice without tools', () => {
    const base: ChatCompletionRequest = {
      model: 'claude-haiku-4-5',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'f' } }],
    };
    const choiceOf = (request: ChatCompletionRequest) =>
      convertChatRequestToAnthropic(request).body.tool_choice;
    expect(choiceOf({ ...base, tool_choice: 'required' })).toEqual({ type: 'any' });
    expect(choiceOf({ ...base, tool_choice: 'none', parallel_tool_calls: false })).toEqual({ type: 'none' });
    expect(choiceOf({ ...base, parallel_tool_calls: false })).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(choiceOf({ ...base, tools: [], tool_choice: 'auto' })).toBeUndefined();
  });

  it('starts with a user turn, merges adjacent turns of the same role and filters empty stop sequences', () => {
    const { body } = convertChatRequestToAnthropic({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'assistant', content: 'Hello! How can I help?' },
        { role: 'user', content: 'First part.' },
        { role: 'user', content: [{ type: 'text', text: 'Second part.' }] },
      ],
      stop: ['END', ''],
      temperature: -0.5,
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello! How can I help?' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'First part.' },
          { type: 'text', text: 'Second part.' },
        ],
      },
    ]);
    expect(body.stop_sequences).toEqual(['END']);
    expect(body.temperature).toBe(0);
  });

  it('refuses what Anthropic cannot express with a 400', () => {
    const user = (content: unknown): ChatCompletionRequest =>
      ({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content }] }) as ChatCompletionRequest;
    const cases: ChatCompletionRequest[] = [
      { ...user('hi'), n: 2 },
      user([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }]),
      user([{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }]),
      user([{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }]),
      user([{ type: 'file', file: { file_id: 'file-abc123' } }]),
      { model: 'claude-sonnet-4-5', messages: [{ role: 'function', name: 'f', content: 'x' }] },
      { model: 'claude-sonnet-4-5', messages: [{ role: 'system', content: 'only a system prompt' }] },
    ];
    for (const request of cases)
      expect(() => convertChatRequestToAnthropic(request)).toThrow(InvalidRequestError);
  });
});

describe('defaultMaxTokensFor', () => {
  it('caps the original Claude 3 models at 4096 and later ones at 8192, on any platform id', () => {
    expect(defaultMaxTokensFor('claude-3-haiku-20240307')).toBe(4096);
    expect(defaultMaxTokensFor('anthropic.claude-3-opus-20240229-v1:0')).toBe(4096);
    expect(defaultMaxTokensFor('claude-3-5-haiku-20241022')).toBe(8192);
    expect(defaultMaxTokensFor('claude-sonnet-4-5@20250929')).toBe(8192);
    expect(defaultMaxTokensFor('some-other-model')).toBe(4096);
  });
});

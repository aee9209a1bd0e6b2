import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type { ChatCompletionRequest } from '../../shapes/openai.ts';
import { translatorFixtures, WEATHER_SCHEMA } from '../test-support/fixtures.ts';
import { converseModelPath, convertChatRequestToConverse } from './request.ts';

const fixture = (name: string): ChatCompletionRequest => translatorFixtures('openai-to-bedrock').json(name);

describe('converseModelPath', () => {
  it('puts the model id into one URL-encoded path segment (":" and "/" encoded)', () => {
    expect(converseModelPath('anthropic.claude-3-5-sonnet-20240620-v1:0', false)).toBe(
      '/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse',
    );
    expect(
      converseModelPath(
        'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-7',
        true,
      ),
    ).toBe(
      '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-7/converse-stream',
    );
  });
});

describe('convertChatRequestToConverse', () => {
  it('hoists system and developer messages, clamps temperature and fills inferenceConfig', () => {
    const plan = convertChatRequestToConverse(fixture('text.request.json'));
    expect(plan.body).toEqual({
      system: [
        { text: 'You are a concise assistant for a travel agency.' },
        { text: 'Answer in French.' },
        { text: 'Never mention prices.' },
      ],
      messages: [{ role: 'user', content: [{ text: 'Suggest one dessert to try in Lyon.' }] }],
      inferenceConfig: { maxTokens: 512, temperature: 1, topP: 0.9, stopSequences: ['\n\nHuman:'] },
    });
    expect(plan.context).toEqual({ includeUsage: true });
  });

  it('maps tools to toolSpec with inputSchema.json and a named tool_choice to {tool}', () => {
    const { body, context } = convertChatRequestToConverse(fixture('tools.request.json'));
    expect(body.inferenceConfig).toEqual({ maxTokens: 1024 }); // max_completion_tokens wins
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'Get the current weather for a city.',
            inputSchema: { json: WEATHER_SCHEMA },
          },
        },
        { toolSpec: { name: 'get_time', inputSchema: { json: { type: 'object', properties: {} } } } },
      ],
      toolChoice: { tool: { name: 'get_weather' } },
    });
    expect(context).toEqual({ includeUsage: false });
  });

  it.each([
    ['auto', { auto: {} }],
    ['required', { any: {} }],
  ] as const)('maps tool_choice %s', (choice, expected) => {
    const request = { ...fixture('tools.request.json'), tool_choice: choice };
    expect(convertChatRequestToConverse(request).body.toolConfig?.toolChoice).toEqual(expected);
  });

  it('drops the tools for tool_choice none when the history has no tool blocks', () => {
    const request = { ...fixture('tools.request.json'), tool_choice: 'none' as const };
    expect(convertChatRequestToConverse(request).body.toolConfig).toBeUndefined();
  });

  it('turns tool calls into toolUse and tool messages into toolResult blocks of one user turn', () => {
    const { body } = convertChatRequestToConverse(fixture('tool-results.request.json'));
    expect(body.system).toEqual([
      { text: 'You can call tools to look things up.' },
      { text: 'Keep the comparison to two sentences.' },
    ]);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Compare the weather in Paris and Tokyo.' }] },
      {
        role: 'assistant',
        content: [
          { text: 'Let me check both cities.' },
          {
            toolUse: {
              toolUseId: 'tooluse_9pXq2LmN4vB7',
              name: 'get_weather',
              input: { city: 'Paris', unit: 'celsius' },
            },
          },
          // Invalid JSON arguments become {}; the id is sanitised the same way in the result.
          { toolUse: { toolUseId: 'functions_get_weather_1', name: 'get_weather', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            toolResult: {
              toolUseId: 'tooluse_9pXq2LmN4vB7',
              content: [{ text: '{"temp":18,"sky":"overcast"}' }],
            },
          },
          {
            toolResult: {
              toolUseId: 'functions_get_weather_1',
              content: [{ text: 'error: missing closing brace in arguments' }],
            },
          },
          { text: 'Retry Tokyo please.' },
        ],
      },
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'tooluse_Tk2', name: 'get_weather', input: { city: 'Tokyo' } } }],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_Tk2', content: [{ text: '{"temp":24,"sky":"clear"}' }] } },
        ],
      },
      // The final assistant turn is a prefill: trailing whitespace trimmed.
      { role: 'assistant', content: [{ text: 'Paris is 18°C and overcast,' }] },
    ]);
    expect(body.toolConfig?.toolChoice).toEqual({ auto: {} });
  });

  it('answers an empty or blank tool result with non-blank text (Converse refuses blank text blocks)', () => {
    const { body } = convertChatRequestToConverse({
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      messages: [
        { role: 'user', content: 'Clear both caches.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'clear_cache', arguments: '{"name":"a"}' } },
            { id: 'call_b', type: 'function', function: { name: 'clear_cache', arguments: '{"name":"b"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: '' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '  ' }] },
      ],
    });
    const results = body.messages[2]?.content.map((block) =>
      'toolResult' in block ? block.toolResult : block,
    );
    expect(results).toEqual([
      { toolUseId: 'call_a', content: [{ text: '(empty result)' }] },
      { toolUseId: 'call_b', content: [{ text: '(empty result)' }] },
    ]);
  });

  it('keeps a toolConfig when the history has tool blocks but the request no tools (else ValidationException)', () => {
    const request = fixture('tool-results.request.json');
    delete request.tools;
    delete request.tool_choice;
    expect(convertChatRequestToConverse(request).body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'A tool called earlier in this conversation.',
            inputSchema: { json: { type: 'object', additionalProperties: true } },
          },
        },
      ],
    });
  });

  it('keeps the tools on auto for tool_choice none when the history has tool blocks', () => {
    const request = { ...fixture('tool-results.request.json'), tool_choice: 'none' as const };
    const { toolConfig } = convertChatRequestToConverse(request).body;
    expect(toolConfig?.tools).toHaveLength(1);
    expect(toolConfig?.toolChoice).toBeUndefined();
  });

  it('sends base64 data-URL images as bytes and files as documents', () => {
    const { body } = convertChatRequestToConverse(fixture('images.request.json'));
    const content = body.messages[0]!.content;
    expect(content[0]).toEqual({ text: 'What is in these two pictures and the attached report?' });
    expect(content[1]).toEqual({
      image: {
        format: 'png',
        source: {
          bytes:
            'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
        },
      },
    });
    expect(content[2]).toMatchObject({ image: { format: 'jpeg' } });
    expect(content[3]).toEqual({
      document: {
        format: 'pdf',
        name: 'Q3 report (final)',
        source: { bytes: 'JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFI+PgpzdHJlYW0K' },
      },
    });
  });

  it('refuses images by https URL (Converse takes bytes only), audio, and n > 1', () => {
    const remote = {
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] },
      ],
    } as ChatCompletionRequest;
    expect(() => convertChatRequestToConverse(remote)).toThrow(InvalidRequestError);
    const audio = {
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] },
      ],
    } as ChatCompletionRequest;
    expect(() => convertChatRequestToConverse(audio)).toThrow(/audio/);
    expect(() =>
      convertChatRequestToConverse({ model: 'm', n: 2, messages: [{ role: 'user', content: 'hi' }] }),
    ).toThrow(/n > 1/);
  });

  it('forces the synthetic json tool for response_format json_schema', () => {
    const { body, context } = convertChatRequestToConverse(fixture('json-schema.request.json'));
    expect(body.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'json',
            description: 'Answer with the final response as JSON by calling this tool with it as input.',
            inputSchema: {
              json: {
                type: 'object',
                properties: { name: { type: 'string' }, date: { type: 'string' } },
                required: ['name', 'date'],
                additionalProperties: false,
              },
            },
          },
        },
      ],
      toolChoice: { tool: { name: 'json' } },
    });
    expect(context.jsonToolName).toBe('json');
  });

  it('asks for any tool when JSON output is wanted alongside usable client tools', () => {
    const request = {
      ...fixture('tools.request.json'),
      tool_choice: 'auto' as const,
      response_format: { type: 'json_object' as const },
    };
    const { body } = convertChatRequestToConverse(request);
    expect(body.toolConfig?.tools.map((tool) => ('toolSpec' in tool ? tool.toolSpec.name : ''))).toEqual([
      'get_weather',
      'get_time',
      'json',
    ]);
    expect(body.toolConfig?.toolChoice).toEqual({ any: {} });
  });

  it('starts with a user turn and merges adjacent turns of one role', () => {
    const { body } = convertChatRequestToConverse({
      model: 'm',
      messages: [
        { role: 'assistant', content: 'Hello! How can I help?' },
        { role: 'user', content: 'One' },
        { role: 'user', content: [{ type: 'text', text: 'Two' }] },
        { role: 'user', content: '   ' },
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: '.' }] },
      { role: 'assistant', content: [{ text: 'Hello! How can I help?' }] },
      { role: 'user', content: [{ text: 'One' }, { text: 'Two' }] },
    ]);
  });
});
